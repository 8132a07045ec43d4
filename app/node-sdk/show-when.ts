/**
 * When a field of a node's data applies: a `showWhen` editor hint on the field's schema, plain
 * data (never a function), so the inspector, `society nodes` and the checks below read it alike.
 * `router`'s `rules` only mean something in `rules` mode:
 * `rules: z.array(…).meta({ showWhen: { field: 'mode', is: 'rules' } })`. A field whose
 * condition fails is left out of the form; its value stays in the document as it is.
 */
import { z } from 'zod';

/** A value a condition compares with: what an enum, a literal or a boolean field holds. */
export type FieldValue = string | number | boolean;

/** One condition on another field of the same object: it equals `is`, or one of `in`. */
export type FieldCondition =
  | { field: string; is: FieldValue }
  | { field: string; in: readonly FieldValue[] };

/** One condition, or several that must all hold. */
export type ShowWhen = FieldCondition | readonly FieldCondition[];

const fieldValue = z.union([z.string(), z.number(), z.boolean()]);
const conditionSchema = z.union([
  z.strictObject({ field: z.string().min(1), is: fieldValue }),
  z.strictObject({ field: z.string().min(1), in: z.array(fieldValue).min(1) }),
]);
/** The shape a `showWhen` hint must have. */
export const showWhenSchema = z.union([conditionSchema, z.array(conditionSchema).min(1)]);

/** The conditions of a hint, as a list. */
export function conditionsOf(showWhen: ShowWhen): readonly FieldCondition[] {
  return Array.isArray(showWhen) ? showWhen : [showWhen as FieldCondition];
}

const allowed = (c: FieldCondition): readonly FieldValue[] => ('is' in c ? [c.is] : c.in);

/**
 * Whether a field with this hint is shown, given its siblings' values (defaults filled in).
 * A sibling whose value is not a plain value (bound to a template parameter, which a run may
 * set either way) cannot decide it: the field is shown.
 */
export function conditionHolds(showWhen: ShowWhen, siblings: Record<string, unknown>): boolean {
  return conditionsOf(showWhen).every((c) => {
    const value = siblings[c.field];
    if (value !== undefined && value !== null && typeof value === 'object') return true;
    return allowed(c).includes(value as FieldValue);
  });
}

/**
 * The names of the fields of one object that are hidden, given their hints and values: a
 * field whose condition fails, or whose condition reads a field that is itself hidden (a
 * `retries` that reads `behaviour`, itself shown only in one `mode`).
 */
export function hiddenFields(
  hints: ReadonlyMap<string, ShowWhen>,
  siblings: Record<string, unknown>,
): Set<string> {
  const hidden = new Set<string>();
  const shown = (name: string, seen: Set<string>): boolean => {
    const hint = hints.get(name);
    if (!hint || seen.has(name)) return true;
    seen.add(name);
    return conditionHolds(hint, siblings) && conditionsOf(hint).every((c) => shown(c.field, seen));
  };
  for (const name of hints.keys()) if (!shown(name, new Set())) hidden.add(name);
  return hidden;
}

/** The condition in words, for a listing: `when mode is model and behaviour is retry`. */
export function describeShowWhen(showWhen: ShowWhen): string {
  const parts = conditionsOf(showWhen).map((c) => {
    const values = allowed(c).map(String);
    return `${c.field} is ${values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values.at(-1)}` : values[0]}`;
  });
  return `when ${parts.join(' and ')}`;
}

/** A schema's wrappers peeled off (optional, default…), with the `showWhen` any of them holds. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; showWhen?: unknown } {
  let current = schema;
  let showWhen: unknown;
  for (let i = 0; i < 10; i++) {
    showWhen ??= current.meta()?.showWhen;
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodReadonly ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodCatch
    )
      current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else break;
  }
  return showWhen === undefined ? { inner: current } : { inner: current, showWhen };
}

/** The values a field can hold, when it is a choice (enum, literal, boolean); else undefined. */
function choices(schema: z.ZodType): FieldValue[] | undefined {
  if (schema instanceof z.ZodEnum) return schema.options as FieldValue[];
  if (schema instanceof z.ZodLiteral) return [...schema.values] as FieldValue[];
  if (schema instanceof z.ZodBoolean) return [true, false];
  return undefined;
}

/** The `showWhen` hints of an object schema's own fields, by field name. */
export function showWhenHints(schema: z.ZodType): Map<string, ShowWhen> {
  const hints = new Map<string, ShowWhen>();
  if (!(schema instanceof z.ZodObject)) return hints;
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const { showWhen } = unwrap(field);
    const parsed = showWhenSchema.safeParse(showWhen);
    if (parsed.success) hints.set(name, parsed.data);
  }
  return hints;
}

/**
 * What is wrong with the `showWhen` hints of a data schema (its nested objects included), one
 * line each: a hint of the wrong shape, a condition on a field the object does not have or on
 * the field itself, a value the field cannot hold, conditions that read each other in a circle.
 * The registry refuses a node type with any.
 */
export function showWhenProblems(schema: z.ZodType, prefix = ''): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const shape = schema.shape as Record<string, z.ZodType>;
  const problems: string[] = [];
  const hints = new Map<string, ShowWhen>();
  for (const [name, field] of Object.entries(shape)) {
    const { inner, showWhen } = unwrap(field);
    problems.push(...showWhenProblems(inner, `${prefix}${name}.`));
    if (showWhen === undefined) continue;
    const parsed = showWhenSchema.safeParse(showWhen);
    if (!parsed.success) {
      problems.push(
        `field "${prefix}${name}": showWhen must be { field, is } or { field, in: [...] }, or a list of them`,
      );
      continue;
    }
    hints.set(name, parsed.data);
    for (const c of conditionsOf(parsed.data)) {
      const target = shape[c.field];
      if (c.field === name || !target) {
        problems.push(
          `field "${prefix}${name}": showWhen names ${c.field === name ? 'the field itself' : `no field of its object ("${c.field}")`}`,
        );
        continue;
      }
      const options = choices(unwrap(target).inner);
      const odd = allowed(c).filter((v) => options && !options.includes(v));
      if (odd.length)
        problems.push(
          `field "${prefix}${name}": showWhen compares "${c.field}" with ${odd.map((v) => JSON.stringify(v)).join(', ')}, which it cannot hold (${options?.map((v) => JSON.stringify(v)).join(', ')})`,
        );
    }
  }
  // A circle of conditions would hide its fields for no value anyone could set.
  const reads = (name: string) => conditionsOf(hints.get(name) ?? []).map((c) => c.field);
  const circle = (path: string[]): string[] | undefined => {
    for (const next of reads(path.at(-1)!)) {
      // A field that reads itself is said above.
      if (next === path[0] && path.length > 1) return [...path, next];
      if (hints.has(next) && !path.includes(next)) {
        const found = circle([...path, next]);
        if (found) return found;
      }
    }
    return undefined;
  };
  for (const start of hints.keys()) {
    const found = circle([start]);
    if (found)
      problems.push(
        `field "${prefix}${start}": showWhen conditions read each other in a circle (${found.join(' → ')})`,
      );
  }
  return problems;
}
