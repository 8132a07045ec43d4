/**
 * Reads a node's zod data schema to build its inspector form: which fields there are, what kind
 * of input each needs, and their defaults. Anything the form cannot show as a simple input
 * (lists, records, unions of shapes) is edited as JSON.
 */
import type { z } from 'zod';

export type FieldKind =
  | { kind: 'string'; multiline: boolean }
  | { kind: 'number'; integer: boolean; min?: number; max?: number }
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  /** A few named choices or a number (an agent's history: none, all or the last N). */
  | { kind: 'choice-or-number'; options: string[] }
  | { kind: 'object'; fields: FieldDesc[] }
  | { kind: 'json' };

export interface FieldDesc {
  name: string;
  path: string[];
  optional: boolean;
  hasDefault: boolean;
  defaultValue?: unknown;
  field: FieldKind;
}

/** Fields shown as text areas: prompts and templates are long and multi-line. */
const MULTILINE = new Set(['prompt', 'role', 'template', 'instructions', 'description']);
/** Editor-only state has no place in the form. */
const HIDDEN = new Set(['ui']);

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  options?: z.ZodType[];
  values?: unknown[];
  defaultValue?: unknown;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

export function describeFields(schema: z.ZodType, prefix: string[] = []): FieldDesc[] {
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) return [];
  return Object.entries(def.shape)
    .filter(([name]) => !HIDDEN.has(name))
    .map(([name, field]) => describeField(name, field, [...prefix, name]));
}

function describeField(name: string, schema: z.ZodType, path: string[]): FieldDesc {
  let optional = false;
  let hasDefault = false;
  let defaultValue: unknown;
  let current = schema;
  // Peel wrappers down to the value's own type.
  for (let i = 0; i < 10; i++) {
    const def = defOf(current);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'readonly') {
      if (def.type === 'optional') optional = true;
      current = def.innerType!;
    } else if (def.type === 'default' || def.type === 'prefault') {
      hasDefault = true;
      defaultValue = def.defaultValue;
      current = def.innerType!;
    } else if (def.type === 'pipe') current = def.in!;
    else if (def.type === 'catch') current = def.innerType!;
    else break;
  }
  return {
    name,
    path,
    optional,
    hasDefault,
    defaultValue,
    field: kindOf(name, current, optional, path),
  };
}

function kindOf(name: string, schema: z.ZodType, optional: boolean, path: string[]): FieldKind {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return { kind: 'string', multiline: MULTILINE.has(name) };
    case 'number': {
      const n = schema as unknown as {
        isInt?: boolean;
        minValue?: number | null;
        maxValue?: number | null;
      };
      return {
        kind: 'number',
        integer: n.isInt === true,
        min: n.minValue ?? undefined,
        max: n.maxValue ?? undefined,
      };
    }
    case 'boolean':
      return { kind: 'boolean' };
    case 'enum':
      return { kind: 'enum', options: Object.values(def.entries ?? {}) };
    case 'literal':
      return { kind: 'enum', options: (def.values ?? []).map(String) };
    case 'union': {
      const options: string[] = [];
      let number = false;
      for (const option of def.options ?? []) {
        const d = defOf(option);
        if (d.type === 'enum') options.push(...Object.values(d.entries ?? {}));
        else if (d.type === 'literal' && typeof d.values?.[0] === 'string')
          options.push(String(d.values[0]));
        else if (d.type === 'number') number = true;
        else return { kind: 'json' };
      }
      return number ? { kind: 'choice-or-number', options } : { kind: 'enum', options };
    }
    case 'object':
      // An optional object (replication) is absent until someone writes it: JSON says that best.
      return optional ? { kind: 'json' } : { kind: 'object', fields: describeFields(schema, path) };
    default:
      return { kind: 'json' };
  }
}

/** A copy of `data` with the value at `path` set, or removed when `value` is undefined. */
export function setIn(
  data: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
  fallback: Record<string, unknown> = {},
): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined) return data;
  const out = { ...data };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const inner = out[head];
  const base =
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? (inner as Record<string, unknown>)
      : ((fallback[head] as Record<string, unknown> | undefined) ?? {});
  out[head] = setIn(base, rest, value, (fallback[head] as Record<string, unknown>) ?? {});
  return out;
}

export function getIn(data: unknown, path: readonly string[]): unknown {
  let current = data;
  for (const key of path) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
