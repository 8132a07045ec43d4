/**
 * Template parameters: a document's `params` declare named, typed values with defaults (rounds,
 * a structure, a list of styles), and any value inside a node's `data` may be exactly
 * `{ "$param": "NAME" }`. Before a graph is analysed, every such reference is replaced by the
 * parameter's value: its default, or what a run sets (`society run --set NAME=VALUE`, the
 * studio's Inputs panel). So a researcher switches rounds, member counts or a structure without
 * editing the graph, and a run records exactly which values it used.
 *
 * Everything here is pure (zod only): the CLI, the API and the editor bind the same way.
 */
import { z } from 'zod';
import { DOCUMENT_BOUNDS } from './limits.ts';
import { isPrototypeName, prototypeNameMessage } from './names.ts';
import { formatPath, type Problem } from './problems.ts';

/** How far a document's parameters may go: they are data, bounded like the rest of it. */
export const PARAM_BOUNDS = Object.freeze({
  /** Most parameters one document declares. */
  maxParams: 100,
  /** Longest text value (and enum value, and list item), in characters. */
  maxText: 10_000,
  /** Most items of a list value or enum values: a list may feed a replicate, so its bound. */
  maxItems: DOCUMENT_BOUNDS.maxReplicas,
});

/** What a parameter may be called: what a template can read as `params.NAME`. */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

const text = z.string().max(PARAM_BOUNDS.maxText, `at most ${PARAM_BOUNDS.maxText} characters`);

/** What every parameter may carry besides its type and default. */
const common = {
  /** One line shown beside the control and by `society params`. */
  description: z.string().max(2_000).optional(),
  /** A display name for the control (default: the parameter's name). */
  label: z.string().max(200).optional(),
};

const IntegerParam = z.looseObject({
  type: z.literal('integer'),
  default: z.number().int('must be a whole number'),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  ...common,
});
const NumberParam = z.looseObject({
  type: z.literal('number'),
  default: z.number(),
  min: z.number().optional(),
  max: z.number().optional(),
  ...common,
});
const BooleanParam = z.looseObject({ type: z.literal('boolean'), default: z.boolean(), ...common });
const TextParam = z.looseObject({ type: z.literal('text'), default: text, ...common });
const EnumParam = z.looseObject({
  type: z.literal('enum'),
  values: z
    .array(text.min(1, 'an enum value cannot be empty'))
    .min(1, 'an enum needs at least one value')
    .max(PARAM_BOUNDS.maxItems, `at most ${PARAM_BOUNDS.maxItems} values`),
  default: text,
  ...common,
});
const ListParam = z.looseObject({
  type: z.literal('list'),
  default: z.array(text).max(PARAM_BOUNDS.maxItems, `at most ${PARAM_BOUNDS.maxItems} items`),
  minItems: z.number().int().nonnegative().optional(),
  maxItems: z
    .number()
    .int()
    .positive()
    .max(PARAM_BOUNDS.maxItems, `a list holds at most ${PARAM_BOUNDS.maxItems} items`)
    .optional(),
  ...common,
});

/** One declared parameter. */
export const ParamSchema = z
  .discriminatedUnion(
    'type',
    [IntegerParam, NumberParam, BooleanParam, TextParam, EnumParam, ListParam],
    {
      error: 'type must be one of integer, number, boolean, text, enum, list',
    },
  )
  .superRefine((param, ctx) => {
    const low = 'min' in param ? param.min : 'minItems' in param ? param.minItems : undefined;
    const high = 'max' in param ? param.max : 'maxItems' in param ? param.maxItems : undefined;
    if (typeof low === 'number' && typeof high === 'number' && low > high) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `its lower bound ${low} is above its upper bound ${high}`,
      });
      return;
    }
    if (param.type === 'enum' && new Set(param.values).size !== param.values.length) {
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'enum values must differ' });
    }
    if (!fitsParam(param, param.default)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `the default ${preview(param.default)} is not ${accepts(param)}`,
      });
    }
  });
export type ParamSpec = z.infer<typeof ParamSchema>;
export type ParamType = ParamSpec['type'];

/** A document's `params`: parameters by name. */
export const ParamsSchema = z.record(z.string(), ParamSchema).superRefine((params, ctx) => {
  const names = Object.keys(params);
  if (names.length > PARAM_BOUNDS.maxParams) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `a document declares at most ${PARAM_BOUNDS.maxParams} parameters`,
    });
  }
  for (const key of names.filter((n) => !PARAM_NAME.test(n))) {
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: 'a parameter name must start with a letter or _ and use letters, digits, _ or -',
    });
  }
  for (const key of names.filter(isPrototypeName)) {
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: prototypeNameMessage(key, 'a parameter name'),
    });
  }
});
export type Params = z.infer<typeof ParamsSchema>;

/** A parameter's value: what its type holds. */
export type ParamValue = number | boolean | string | string[];

/** `{ "$param": "NAME" }`: a value that stands for a parameter's. */
export interface ParamRef {
  $param: string;
}

/** True for exactly `{ "$param": "NAME" }` (an object whose only key is `$param`, a string). */
export function isParamRef(value: unknown): value is ParamRef {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.length === 1 && keys[0] === '$param' && typeof (value as ParamRef).$param === 'string'
  );
}

/** Whether `value` is one the parameter takes: its type, within its bounds or values. */
export function fitsParam(param: ParamSpec, value: unknown): boolean {
  switch (param.type) {
    case 'integer':
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (param.type === 'number' || Number.isInteger(value)) &&
        (param.min === undefined || value >= param.min) &&
        (param.max === undefined || value <= param.max)
      );
    case 'boolean':
      return typeof value === 'boolean';
    case 'text':
      return typeof value === 'string' && value.length <= PARAM_BOUNDS.maxText;
    case 'enum':
      return typeof value === 'string' && param.values.includes(value);
    case 'list':
      return (
        Array.isArray(value) &&
        value.every((item) => typeof item === 'string' && item.length <= PARAM_BOUNDS.maxText) &&
        value.length >= (param.minItems ?? 0) &&
        value.length <= (param.maxItems ?? PARAM_BOUNDS.maxItems)
      );
    default:
      return param satisfies never;
  }
}

/** What a parameter takes, as a phrase: "a whole number from 1 to 10", "one of a, b". */
export function accepts(param: ParamSpec): string {
  switch (param.type) {
    case 'integer':
      return `a whole number${range(param.min, param.max)}`;
    case 'number':
      return `a number${range(param.min, param.max)}`;
    case 'boolean':
      return 'true or false';
    case 'text':
      return `a text of at most ${PARAM_BOUNDS.maxText.toLocaleString('en-US')} characters`;
    case 'enum':
      return `one of ${param.values.join(', ')}`;
    case 'list': {
      const low = param.minItems ?? 0;
      const high = param.maxItems ?? PARAM_BOUNDS.maxItems;
      const items = low === 0 ? `at most ${high} items` : `${low} to ${high} items`;
      return `a list of texts (comma-separated or a JSON array) of ${items}`;
    }
    default:
      return param satisfies never;
  }
}

/** "rounds is a whole number from 1 to 10": what a bad value of `name` is told. */
export function describeParam(paramName: string, param: ParamSpec): string {
  return `${paramName} is ${accepts(param)}`;
}

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` of at least ${min}`;
  if (max !== undefined) return ` of at most ${max}`;
  return '';
}

function preview(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}

/**
 * Reads a value given as text (`--set NAME=VALUE`, a form field) by the parameter's type: a
 * whole number or a number as written, `true`/`false` (also yes/no, on/off, 1/0), an enum value
 * as written, a list as comma-separated items or a JSON array of texts. Undefined when the text
 * is not a value of the parameter (type, bounds or values).
 */
export function parseParamText(param: ParamSpec, raw: string): ParamValue | undefined {
  const trimmed = raw.trim();
  let value: unknown;
  switch (param.type) {
    case 'integer':
      value = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : undefined;
      break;
    case 'number':
      value = trimmed === '' ? undefined : Number(trimmed);
      break;
    case 'boolean':
      value = BOOLEAN_WORDS[trimmed.toLowerCase()];
      break;
    case 'text':
      value = raw;
      break;
    case 'enum':
      value = trimmed;
      break;
    case 'list':
      value = parseList(trimmed);
      break;
    default:
      return param satisfies never;
  }
  return fitsParam(param, value) ? (value as ParamValue) : undefined;
}

/** A value as `--set` would take it back: lists comma-separated unless an item has a comma. */
export function formatValue(value: ParamValue): string {
  if (!Array.isArray(value)) return String(value);
  return value.some((item) => item.includes(',')) ? JSON.stringify(value) : value.join(',');
}

const BOOLEAN_WORDS: Record<string, boolean> = {
  true: true,
  yes: true,
  on: true,
  '1': true,
  false: false,
  no: false,
  off: false,
  '0': false,
};

function parseList(trimmed: string): unknown {
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return undefined;
    }
  }
  if (trimmed === '') return [];
  return trimmed.split(',').map((item) => item.trim());
}

/**
 * Template variables with the parameters under `params`; `vars` themselves when there are
 * none, so a document without parameters renders exactly as it did before they existed.
 */
export function withParamVars(
  vars: Record<string, unknown>,
  params: Readonly<Record<string, ParamValue>>,
): Record<string, unknown> {
  for (const _ in params) return { params, ...vars };
  return vars;
}

/** Each parameter's default, by name. */
export function paramDefaults(params: Params | undefined): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [key, param] of Object.entries(params ?? {})) out[key] = param.default as ParamValue;
  return out;
}

/** "(parameters: rounds, structure)", or that the document declares none. */
function declaredList(params: Params | undefined): string {
  const names = Object.keys(params ?? {});
  return names.length ? `(parameters: ${names.join(', ')})` : '(the document declares none)';
}

/**
 * The value of every parameter for a run: the defaults, then `given` (by name). A given value
 * may be typed (a number, a list) or text read as `--set` reads it. An unknown name or a value
 * the parameter does not take is a problem at `params.NAME`, naming what it takes.
 */
export function resolveParams(
  params: Params | undefined,
  given: Readonly<Record<string, unknown>> = {},
): { ok: true; values: Record<string, ParamValue> } | { ok: false; problems: Problem[] } {
  const values = paramDefaults(params);
  const problems: Problem[] = [];
  for (const [key, value] of Object.entries(given)) {
    const path = formatPath(['params', key]);
    const param = params && Object.hasOwn(params, key) ? params[key] : undefined;
    if (!param) {
      problems.push({ path, message: `no parameter "${key}" ${declaredList(params)}` });
      continue;
    }
    const read =
      typeof value === 'string' && param.type !== 'text' ? parseParamText(param, value) : value;
    if (read === undefined || !fitsParam(param, read)) {
      problems.push({ path, message: describeParam(key, param) });
    } else values[key] = read as ParamValue;
  }
  return problems.length ? { ok: false, problems } : { ok: true, values };
}

type BindableNodes = ReadonlyArray<{ id: string; data: Record<string, unknown> }>;

interface BindableDocument {
  params?: Params;
  nodes: BindableNodes;
  /** The document's library: its graphs' nodes are bound too (`graphs.NAME.nodes[i]…`). */
  graphs?: Readonly<Record<string, { nodes: BindableNodes }>>;
}

/**
 * The document with every `{ "$param": NAME }` inside a node's `data` (at any depth), in the
 * document's own nodes and its library graphs', replaced by `values[NAME]`. Nodes without a
 * reference are kept as they are (the same objects), so a document with no reference comes back
 * unchanged, as the same object. A reference to a name `values` lacks is a problem naming the
 * node and the JSON path.
 */
export function bindParams<D extends BindableDocument>(
  doc: D,
  values: Readonly<Record<string, ParamValue>>,
): { ok: true; doc: D } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const bindNodes = <N extends BindableNodes>(list: N, at: PropertyKey[]): N => {
    let nodes: N | undefined;
    list.forEach((node, index) => {
      const where = [...at, 'nodes', index, 'data'];
      const data = bindValue(node.data, where, (ref, path) => {
        if (Object.hasOwn(values, ref.$param)) return values[ref.$param];
        problems.push({
          path: formatPath(path),
          node: node.id,
          message: `no parameter "${ref.$param}" ${declaredList(doc.params)}`,
        });
        return ref;
      });
      if (data !== node.data) {
        nodes ??= [...list] as unknown as N;
        (nodes as unknown as Array<N[number]>)[index] = {
          ...node,
          data: data as Record<string, unknown>,
        };
      }
    });
    return nodes ?? list;
  };
  const nodes = bindNodes(doc.nodes, []);
  let graphs: Record<string, { nodes: BindableNodes }> | undefined;
  for (const [name, graph] of Object.entries(doc.graphs ?? {})) {
    const bound = bindNodes(graph.nodes, ['graphs', name]);
    if (bound === graph.nodes) continue;
    graphs ??= { ...doc.graphs };
    graphs[name] = { ...graph, nodes: bound };
  }
  if (problems.length) return { ok: false, problems };
  if (nodes === doc.nodes && !graphs) return { ok: true, doc };
  return { ok: true, doc: { ...doc, nodes, ...(graphs ? { graphs } : {}) } };
}

/**
 * `value` with its references replaced by what `resolve` gives; containers without one are
 * returned as they are. Documents nest at most DOCUMENT_BOUNDS.maxDepth levels (checked when
 * read), so the recursion is shallow.
 */
function bindValue(
  value: unknown,
  path: PropertyKey[],
  resolve: (ref: ParamRef, path: PropertyKey[]) => unknown,
): unknown {
  if (isParamRef(value)) return resolve(value, path);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const bound = bindValue(item, [...path, i], resolve);
      if (bound === item) return;
      out ??= [...value];
      out[i] = bound;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const bound = bindValue(item, [...path, key], resolve);
    if (bound === item) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[key] = bound;
  }
  return out ?? value;
}

/**
 * A node's data with its references to `values` replaced (any other reference kept as it is):
 * how the editor reads a node's data to draw it, with the document's defaults.
 */
export function bindData(
  data: Record<string, unknown>,
  values: Readonly<Record<string, ParamValue>>,
): Record<string, unknown> {
  return bindValue(data, [], (ref) =>
    Object.hasOwn(values, ref.$param) ? values[ref.$param] : ref,
  ) as Record<string, unknown>;
}

/**
 * The document as a run records it: each parameter's default set to the value the run used,
 * so compiling the recorded text again (resume, fork, replay, export) binds the same values.
 * The same object when every value is its default.
 */
export function withParamValues<D extends { params?: Params }>(
  doc: D,
  values: Readonly<Record<string, ParamValue>>,
): D {
  const params = doc.params;
  if (!params) return doc;
  let out: Params | undefined;
  for (const [key, param] of Object.entries(params)) {
    if (!Object.hasOwn(values, key)) continue;
    if (JSON.stringify(param.default) === JSON.stringify(values[key])) continue;
    out ??= { ...params };
    out[key] = { ...param, default: values[key] } as ParamSpec;
  }
  return out ? { ...doc, params: out } : doc;
}
