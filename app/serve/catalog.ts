/**
 * The societies a server offers: each compiled document under the name it is served by, with
 * the JSON Schemas of what a run takes (its input nodes) and gives (its output nodes), read from
 * the node types' declarations so no node type is named here.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import type { CompileResult } from '../compiler/index.ts';
import { isGivenModality, modalityJsonSchema } from '../node-sdk/tool-modalities.ts';
import { type ParsedModality, parseModality } from '../schema/modality.ts';

type Compiled = Extract<CompileResult, { ok: true }>;

/** One field of a society's inputs or outputs. */
export interface ServedField {
  name: string;
  modality: string;
  description?: string;
  /** True for an input with a default: a run may leave it out. */
  optional?: boolean;
}

/** A society as the server offers it. */
export interface ServedSociety {
  /** The name in URLs and the `model` of the OpenAI-compatible endpoint. */
  name: string;
  /** The document's own name (its title in the studio). */
  title: string;
  file: string;
  compiled: Compiled;
  inputs: ServedField[];
  outputs: ServedField[];
}

/** The name a file is served by: its file name without `.society.json`, as a URL path segment. */
export function servedName(file: string): string {
  const base = file.split(/[\\/]/).pop() ?? file;
  return base
    .replace(/\.society\.json$|\.json$/i, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The served form of a compiled document. */
export function servedSociety(name: string, file: string, compiled: Compiled): ServedSociety {
  return {
    name,
    title: compiled.doc.name,
    file,
    compiled,
    inputs: inputFields(compiled.plan),
    outputs: outputFields(compiled.plan),
  };
}

function inputFields(plan: GraphPlan): ServedField[] {
  const fields: ServedField[] = [];
  for (const node of plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (!input) continue;
    fields.push({
      name: input.name,
      modality: input.modality,
      ...(input.description ? { description: input.description } : {}),
      ...(input.default !== undefined ? { optional: true } : {}),
    });
  }
  return fields;
}

function outputFields(plan: GraphPlan): ServedField[] {
  const fields: ServedField[] = [];
  for (const node of plan.nodes.values()) {
    const output = node.spec.runOutput?.(node.data);
    if (!output) continue;
    // An output node takes any value: what it gives is what the node wired into it gives.
    const port = node.ports.inputs[0];
    let modality: string = port?.modality ?? 'any';
    if (modality === 'any') {
      const edge = plan.doc.edges.find((e) => e.target === node.id);
      const source = edge ? plan.nodes.get(edge.source) : undefined;
      const from = source?.ports.outputs.find((p) => p.name === edge?.sourceHandle);
      if (from) modality = from.modality;
    }
    fields.push({ name: output.name, modality });
  }
  return fields;
}

/** The JSON Schema of a value of `modality`; binary values travel as base64 data URLs. */
export function modalitySchema(modality: string): Record<string, unknown> {
  const parsed = parseModality(modality);
  return parsed ? schemaOf(parsed) : {};
}

function schemaOf(parsed: ParsedModality): Record<string, unknown> {
  if (parsed.kind === 'list') return { type: 'array', items: schemaOf(parsed.of) };
  // Files travel as data URLs; every other value as a tool's argument of its modality does.
  if (isGivenModality(parsed.name))
    return {
      type: 'string',
      description: `${parsed.name} as a data URL: data:MIME;base64,…`,
      contentEncoding: 'base64',
    };
  return modalityJsonSchema(parsed.name);
}

/** An object schema of `fields` (required unless optional). */
export function fieldsSchema(fields: readonly ServedField[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of fields) {
    const schema = modalitySchema(field.modality);
    // The document's words come first; how a file travels (a data URL) must stay, or a client's
    // model sends bare base64.
    const description = [field.description, schema.description].filter(Boolean).join(' — ');
    properties[field.name] = { ...schema, ...(description ? { description } : {}) };
  }
  const required = fields.filter((f) => !f.optional).map((f) => f.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/** How a chat maps onto a society: the inputs its messages feed, the output that answers. */
export interface ChatFields {
  /** Takes the last user message. */
  input?: string;
  output?: string;
  /** Takes the transcript of the turns before the last user message. */
  history?: string;
  /** Takes the system (and developer) messages. */
  system?: string;
  /** Takes the last user message's first image. */
  image?: string;
}

/**
 * What a chat message feeds and reads: as the document's `serve.chat` says (checked when it
 * compiled), else its first text input, its first image input and its first text output.
 */
export function chatFields(society: ServedSociety): ChatFields {
  const isText = (f: ServedField) => f.modality === 'text';
  const named = society.compiled.doc.serve?.chat ?? {};
  const input = named.input ?? society.inputs.find(isText)?.name;
  // A file (an image, a recording) is no chat answer; an output of any value may be text.
  const answers = (f: ServedField) => !isGivenModality(f.modality.replace(/^list<(.+)>$/, '$1'));
  const output =
    named.output ?? society.outputs.find(isText)?.name ?? society.outputs.find(answers)?.name;
  const image = named.image ?? society.inputs.find((f) => f.modality === 'image')?.name;
  return {
    ...(input ? { input } : {}),
    ...(output ? { output } : {}),
    ...(named.history ? { history: named.history } : {}),
    ...(named.system ? { system: named.system } : {}),
    ...(image ? { image } : {}),
  };
}
