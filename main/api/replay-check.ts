/**
 * What a template's cassette can answer. A cassette holds the answers to the requests one run
 * made: the template's document as it ships, at its parameters' defaults, with its example
 * inputs (that is how every template's cassette is recorded). A run that differs in any of
 * these asks other questions, which a strict replay cannot answer, so the studio refuses it
 * before it starts, naming each difference, rather than failing at the first miss (or, as the
 * editor once did, calling the models instead).
 *
 * What counts: the nodes' types, containers and data (not where they are drawn, nor the
 * editor-only `ui`), the wiring, the model profiles and run settings, each parameter's value,
 * each run input's value and each answer given ahead. The name and description do not.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type CompiledGraph, compileGraph } from '../../app/compiler/index.ts';
import type { NodeRegistry } from '../../app/node-sdk/registry.ts';
import { canonicalJson } from '../../app/providers/canonical.ts';
import { Cassette } from '../../app/providers/cassette.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { exampleRunValue, runExamples } from '../../app/runtime/examples.ts';
import type { GraphDocument } from '../../app/schema/document.ts';
import { type ApiContext, messageOf } from './context.ts';
import { ApiError } from './errors.ts';
import type { PageRunInputs } from './run-inputs.ts';
import type { TemplateShelf } from './templates.ts';

/** How many differences a refusal names before "and N more". */
const NAMED = 6;

/**
 * The cassette of template `name` for a replay of `run`, or an ApiError: the template ships
 * none, it does not load, or the run differs from what it was recorded with (each difference
 * named). Nothing has been recorded or called when it refuses.
 */
export async function replayCassette(
  ctx: ApiContext,
  templates: TemplateShelf,
  name: string,
  run: CompiledGraph,
  given: PageRunInputs,
): Promise<Cassette> {
  const base = await templates.base(name);
  const file = path.join(ctx.templatesDir, `${base}.cassette.json`);
  if (!existsSync(file)) throw new ApiError(`template "${base}" ships no cassette to replay`);
  let cassette: Cassette;
  try {
    cassette = await Cassette.load(file);
  } catch (error) {
    throw new ApiError(`cannot replay template "${base}": ${messageOf(error)}`);
  }
  const differences = await replayDifferences(
    run,
    given,
    path.join(ctx.templatesDir, `${base}.society.json`),
    await ctx.nodeRegistry(),
    cassette.answers(),
  );
  if (differences.length) throw new ApiError(replayRefusal(`${base}.society.json`, differences));
  return cassette;
}

/**
 * Every way this run differs from the one `templateFile`'s cassette was recorded with, one
 * phrase each (`parameter rounds is 2; the cassette was recorded with 3`); empty when the
 * cassette holds this run. `answers` are the answers a person gave in the cassette.
 */
export async function replayDifferences(
  run: CompiledGraph,
  given: PageRunInputs,
  templateFile: string,
  registry: NodeRegistry,
  recordedAnswers: Readonly<Record<string, string>>,
): Promise<string[]> {
  const recorded = await compileGraph(await readFile(templateFile, 'utf8'), registry);
  if (!recorded.ok) {
    return [`the template ${path.basename(templateFile)} itself does not compile`];
  }
  return [
    ...documentDifferences(run.source, recorded.source),
    ...paramDifferences(run.params, recorded.params),
    ...inputDifferences(given.inputs, recorded),
    ...answerDifferences(given.humanAnswers, recordedAnswers),
  ];
}

/** One line for a refused replay: what differs, and what to do instead. */
export function replayRefusal(template: string, differences: readonly string[]): string {
  const named = differences.slice(0, NAMED);
  const more = differences.length - named.length;
  return `the cassette of ${template} cannot answer this run: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}. A replay calls nothing and runs only what its cassette was recorded with: use Run live or Run simulated instead`;
}

function paramDifferences(
  now: Readonly<Record<string, unknown>>,
  then: Readonly<Record<string, unknown>>,
): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(then), ...Object.keys(now)])) {
    if (!(name in then)) out.push(`parameter ${name} is new: the template has no such parameter`);
    else if (!(name in now)) out.push(`the template's parameter ${name} is gone`);
    else if (canonicalJson(now[name]) !== canonicalJson(then[name])) {
      out.push(
        `parameter ${name} is ${shown(now[name])}; the cassette was recorded with ${shown(then[name])}`,
      );
    }
  }
  return out;
}

function shown(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}

/** Run inputs against the template's examples (an input without one takes its default). */
function inputDifferences(inputs: Record<string, unknown>, recorded: CompiledGraph): string[] {
  const blobs = new BlobStore();
  const examples = runExamples(recorded.plan.nodes.values());
  const taken = new Set<string>();
  const out: string[] = [];
  for (const node of recorded.plan.nodes.values()) {
    const field = node.spec.runInput?.(node.data);
    if (!field || taken.has(field.name)) continue;
    taken.add(field.name);
    const example = examples.get(field.name);
    const now = inputs[field.name];
    if (!example) {
      // Recorded with the input's default: the same value, or none, runs the same.
      if (now !== undefined && canonicalJson(now) !== canonicalJson(field.default ?? null))
        out.push(`input ${field.name} differs from the cassette's`);
    } else if (now === undefined) {
      out.push(
        `input ${field.name} is not given; the cassette was recorded with the template's example`,
      );
    } else if (
      // Only compared by hash, never decoded here: the run itself checks the pixel budget.
      canonicalJson(now) !==
      canonicalJson(exampleRunValue(example, blobs, Number.POSITIVE_INFINITY))
    ) {
      out.push(`input ${field.name} differs from the cassette's`);
    }
  }
  for (const name of Object.keys(inputs))
    if (!taken.has(name)) out.push(`input ${name} is not one the template takes`);
  return out;
}

function answerDifferences(
  given: Readonly<Record<string, string>>,
  recorded: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(given)
    .filter(([name, text]) => recorded[name] !== text)
    .map(([name]) =>
      name in recorded
        ? `the answer ${name} differs from the cassette's`
        : `the answer ${name} is given; the cassette was recorded without it`,
    );
}

/** The document's nodes, wiring, profiles and settings, compared as a run sees them. */
function documentDifferences(now: GraphDocument, then: GraphDocument): string[] {
  const out: string[] = [];
  const a = runShape(now);
  const b = runShape(then);
  for (const key of new Set([...Object.keys(b.rest), ...Object.keys(a.rest)])) {
    if (key === 'models') {
      const nowModels = (a.rest.models ?? {}) as Record<string, unknown>;
      const thenModels = (b.rest.models ?? {}) as Record<string, unknown>;
      for (const name of new Set([...Object.keys(thenModels), ...Object.keys(nowModels)])) {
        if (canonicalJson(nowModels[name] ?? null) !== canonicalJson(thenModels[name] ?? null))
          out.push(`model profile ${name} differs from the template's`);
      }
    } else if (canonicalJson(a.rest[key] ?? null) !== canonicalJson(b.rest[key] ?? null)) {
      out.push(`the document's ${key} differ from the template's`);
    }
  }
  for (const [id, node] of b.nodes) {
    const mine = a.nodes.get(id);
    if (!mine) out.push(`node ${id} of the template is gone`);
    else if (canonicalJson(mine) !== canonicalJson(node)) out.push(nodeDifference(id, mine, node));
  }
  for (const id of a.nodes.keys())
    if (!b.nodes.has(id)) out.push(`node ${id} is not in the template`);
  const added = [...a.edges].filter((e) => !b.edges.has(e)).length;
  const removed = [...b.edges].filter((e) => !a.edges.has(e)).length;
  if (added || removed) {
    out.push(
      `the wiring differs from the template's (${[
        added ? `${added} connection${added === 1 ? '' : 's'} added` : '',
        removed ? `${removed} removed` : '',
      ]
        .filter(Boolean)
        .join(', ')})`,
    );
  }
  return out;
}

interface NodeShape {
  type: string;
  parentId: string | null;
  data: Record<string, unknown>;
}

function nodeDifference(id: string, now: NodeShape, then: NodeShape): string {
  if (now.type !== then.type)
    return `node ${id} is a ${now.type}; the template's is a ${then.type}`;
  if (now.parentId !== then.parentId)
    return `node ${id} sits in another container than the template's`;
  const fields = [...new Set([...Object.keys(then.data), ...Object.keys(now.data)])].filter(
    (key) => canonicalJson(now.data[key] ?? null) !== canonicalJson(then.data[key] ?? null),
  );
  return `node ${id}'s ${fields.join(', ')} differ${fields.length === 1 ? 's' : ''} from the template's`;
}

/**
 * The parts of a document a run depends on. Positions, sizes, edge ids and the editor-only `ui`
 * of a node's data are drawing; the parameters are compared by the values they take.
 */
function runShape(doc: GraphDocument): {
  rest: Record<string, unknown>;
  nodes: Map<string, NodeShape>;
  edges: Set<string>;
} {
  const {
    version: _version,
    name: _name,
    description: _description,
    params: _params,
    nodes,
    edges,
    ...rest
  } = doc;
  return {
    rest,
    nodes: new Map(
      nodes.map((node) => {
        const { ui: _ui, ...data } = node.data;
        return [node.id, { type: node.type, parentId: node.parentId ?? null, data }];
      }),
    ),
    edges: new Set(
      edges.map((edge) =>
        canonicalJson([
          edge.source,
          edge.sourceHandle,
          edge.target,
          edge.targetHandle,
          edge.data ?? null,
        ]),
      ),
    ),
  };
}
