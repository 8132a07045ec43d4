/**
 * Reads a node's zod data schema to build its inspector form: which fields there are, what kind
 * of input each needs, their defaults, and the editor each field declares with `.meta()`
 * (FieldEditorMeta in app/node-sdk/define.ts). Anything the form cannot show as a simple input
 * (lists, records, unions of shapes) is edited as JSON. Only zod's public API is read: schema
 * classes, `.def`, `.unwrap()`, `.shape`, `.options` and `.meta()`.
 */
import { z } from 'zod';
import type { FieldEditorMeta } from '../../app/node-sdk/define.ts';
import { hiddenFields, type ShowWhen } from '../../app/node-sdk/show-when.ts';
import { ReplicateSchema } from '../../app/schema/document.ts';
import { isModality, SCALAR_MODALITIES } from '../../app/schema/modality.ts';

export type FieldKind =
  | { kind: 'string' }
  | { kind: 'number'; integer: boolean; min?: number; max?: number }
  | { kind: 'boolean' }
  | { kind: 'enum'; options: string[] }
  /** A few named choices or a number (an agent's history: none, all or the last N). */
  | { kind: 'choice-or-number'; options: string[] }
  | { kind: 'object'; fields: FieldDesc[] }
  /** A list of texts (a vote's candidates): one per line. */
  | { kind: 'lines' }
  /** A node's replication: its items one per line, and the name each copy sees its item by. */
  | { kind: 'replicate' }
  | { kind: 'json' };

export interface FieldDesc {
  name: string;
  path: string[];
  optional: boolean;
  hasDefault: boolean;
  defaultValue?: unknown;
  field: FieldKind;
  /** The editor the field declares (merged from its wrappers, the outermost winning). */
  meta: FieldEditorMeta;
}

/** The fields of an object schema, in declaration order, leaving out `hidden` ones. */
export function describeFields(schema: z.ZodType, prefix: string[] = []): FieldDesc[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .map(([name, field]) => describeField(name, field, [...prefix, name]))
    .filter((f) => f.meta.editor !== 'hidden');
}

/**
 * The fields of one object the form shows for its current values (defaults filled in): those
 * whose `showWhen` holds. A field left out keeps its value in the document; switching back
 * shows it again as it was.
 */
export function shownFields(fields: readonly FieldDesc[], values: unknown): FieldDesc[] {
  const hints = new Map<string, ShowWhen>();
  for (const f of fields) if (f.meta.showWhen) hints.set(f.name, f.meta.showWhen);
  if (hints.size === 0) return [...fields];
  const siblings =
    values && typeof values === 'object' && !Array.isArray(values)
      ? (values as Record<string, unknown>)
      : {};
  const hidden = hiddenFields(hints, siblings);
  return fields.filter((f) => !hidden.has(f.name));
}

function editorMeta(schema: z.ZodType): FieldEditorMeta {
  const meta = schema.meta();
  if (!meta) return {};
  const { editor, language, lines, placeholder, showWhen } = meta;
  return Object.fromEntries(
    Object.entries({ editor, language, lines, placeholder, showWhen }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}

function describeField(name: string, schema: z.ZodType, path: string[]): FieldDesc {
  let optional = false;
  let hasDefault = false;
  let defaultValue: unknown;
  let meta: FieldEditorMeta = {};
  let current = schema;
  // Peel wrappers down to the value's own type; metadata may sit on any of them.
  for (let i = 0; i < 10; i++) {
    meta = { ...editorMeta(current), ...meta };
    if (current instanceof z.ZodOptional) {
      optional = true;
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodNullable || current instanceof z.ZodReadonly) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodDefault || current instanceof z.ZodPrefault) {
      hasDefault = true;
      defaultValue = current.def.defaultValue;
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodCatch) current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else break;
  }
  return {
    name,
    path,
    optional,
    hasDefault,
    defaultValue,
    field: kindOf(current, optional, path),
    meta,
  };
}

function kindOf(schema: z.ZodType, optional: boolean, path: string[]): FieldKind {
  if (schema instanceof z.ZodString) return { kind: 'string' };
  if (schema instanceof z.ZodNumber) {
    return {
      kind: 'number',
      integer: schema.isInt,
      min: schema.minValue ?? undefined,
      max: schema.maxValue ?? undefined,
    };
  }
  if (schema instanceof z.ZodBoolean) return { kind: 'boolean' };
  if (schema instanceof z.ZodEnum) return { kind: 'enum', options: schema.options.map(String) };
  if (schema instanceof z.ZodLiteral)
    return { kind: 'enum', options: [...schema.values].map(String) };
  if (schema instanceof z.ZodUnion) {
    const options: string[] = [];
    let number = false;
    for (const option of schema.options as z.ZodType[]) {
      if (option instanceof z.ZodEnum) options.push(...option.options.map(String));
      else if (option instanceof z.ZodLiteral && typeof [...option.values][0] === 'string')
        options.push(String([...option.values][0]));
      else if (option instanceof z.ZodNumber) number = true;
      else return { kind: 'json' };
    }
    return number ? { kind: 'choice-or-number', options } : { kind: 'enum', options };
  }
  if (schema instanceof z.ZodArray && schema.element instanceof z.ZodString) {
    return { kind: 'lines' };
  }
  // Replication is every node's field (the base data), with an editor of its own.
  if (schema === ReplicateSchema) return { kind: 'replicate' };
  if (schema instanceof z.ZodObject) {
    // An optional object is absent until someone writes it: JSON says that best.
    return optional ? { kind: 'json' } : { kind: 'object', fields: describeFields(schema, path) };
  }
  return { kind: 'json' };
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

/**
 * The choices of a `modality` field: every scalar modality, then a list of each; a value the
 * document holds that is none of these (`list<list<text>>`) is kept as a choice of its own.
 */
export function modalityChoices(current: unknown): string[] {
  const choices: string[] = [
    ...SCALAR_MODALITIES,
    ...SCALAR_MODALITIES.filter((m) => m !== 'any').map((m) => `list<${m}>`),
  ];
  if (typeof current === 'string' && isModality(current) && !choices.includes(current))
    choices.push(current);
  return choices;
}
