/**
 * A made-up value valid against a JSON Schema, for simulated answers to structured-output
 * requests. It covers what response formats use (objects, arrays, strings, numbers, booleans,
 * null, enum and const, anyOf/oneOf/allOf, local `$ref`s, bounds); strings carry the simulated
 * label wherever the schema leaves them free, so the value still says it was made up.
 */
import type { Draw } from './simulated-shapes.ts';

type Schema = Record<string, unknown>;

/** How deep `$ref`s and nesting are followed before the generator settles for the simplest value. */
const MAX_DEPTH = 12;

export interface SchemaValueOptions {
  /** A labelled made-up phrase for a free string at `path`. */
  say: (path: string) => string;
  draw: Draw;
}

/** A value valid against `schema` (as far as the keywords above go). */
export function valueForSchema(schema: unknown, options: SchemaValueOptions): unknown {
  return generate(schema, asSchema(schema), options, '', 0);
}

function asSchema(value: unknown): Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Schema)
    : {};
}

/** Follows a local `#/…` reference in the root schema. */
function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) return {};
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'));
    node = asSchema(node)[key];
  }
  return asSchema(node);
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    return types.find((t) => t !== 'null') ?? types[0];
  }
  if (schema.properties || schema.required) return 'object';
  if (schema.items || schema.prefixItems) return 'array';
  return undefined;
}

function generate(
  input: unknown,
  root: Schema,
  options: SchemaValueOptions,
  path: string,
  depth: number,
): unknown {
  let schema = asSchema(input);
  if (typeof schema.$ref === 'string' && depth < MAX_DEPTH) {
    schema = { ...resolveRef(root, schema.$ref), ...withoutKey(schema, '$ref') };
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return schema.enum[options.draw(schema.enum.length)];
  }
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0 && depth < MAX_DEPTH) {
    // The first branch that is not just `null`, so the answer says something.
    const branch = branches.find((b) => asSchema(b).type !== 'null') ?? (branches[0] as unknown);
    return generate(
      { ...withoutKey(withoutKey(schema, 'anyOf'), 'oneOf'), ...asSchema(branch) },
      root,
      options,
      path,
      depth + 1,
    );
  }
  if (Array.isArray(schema.allOf) && depth < MAX_DEPTH) {
    const merged = mergeAll(schema.allOf.map(asSchema), withoutKey(schema, 'allOf'));
    return generate(merged, root, options, path, depth + 1);
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectValue(schema, root, options, path, depth);
    case 'array':
      return arrayValue(schema, root, options, path, depth);
    case 'string':
      return stringValue(schema, options, path);
    case 'integer':
      return numberValue(schema, true);
    case 'number':
      return numberValue(schema, false);
    case 'boolean':
      return options.draw(2) === 1;
    case 'null':
      return null;
    default:
      // No type said: a labelled string is valid against any schema that constrains nothing.
      return options.say(path);
  }
}

function withoutKey(schema: Schema, key: string): Schema {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}

/** `allOf` as one schema: properties and required lists joined, other keywords the last's. */
function mergeAll(parts: Schema[], base: Schema): Schema {
  const merged: Schema = { ...base };
  const properties: Schema = { ...asSchema(base.properties) };
  const required = new Set<string>(Array.isArray(base.required) ? (base.required as string[]) : []);
  for (const part of parts) {
    Object.assign(merged, withoutKey(withoutKey(part, 'properties'), 'required'));
    Object.assign(properties, asSchema(part.properties));
    if (Array.isArray(part.required)) for (const r of part.required) required.add(String(r));
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function objectValue(
  schema: Schema,
  root: Schema,
  options: SchemaValueOptions,
  path: string,
  depth: number,
): Record<string, unknown> {
  const properties = asSchema(schema.properties);
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const out: Record<string, unknown> = {};
  if (depth >= MAX_DEPTH) {
    for (const key of required) out[key] = null;
    return out;
  }
  // Every declared property, required or not: a fuller answer shows more of the shape.
  for (const key of new Set([...Object.keys(properties), ...required])) {
    out[key] = generate(properties[key] ?? {}, root, options, `${path}.${key}`, depth + 1);
  }
  return out;
}

function arrayValue(
  schema: Schema,
  root: Schema,
  options: SchemaValueOptions,
  path: string,
  depth: number,
): unknown[] {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const count = depth >= MAX_DEPTH ? min : Math.min(Math.max(min, 1), max);
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const items: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const itemSchema = prefix[i] ?? schema.items ?? {};
    let item = generate(itemSchema, root, options, `${path}[${i}]`, depth + 1);
    // Unique items: an enum draw may repeat; take the enum's values in order instead.
    const values = asSchema(itemSchema).enum;
    if (schema.uniqueItems === true && Array.isArray(values) && values.length > i) item = values[i];
    items.push(item);
  }
  return items;
}

const FORMATS: Record<string, string> = {
  date: '2000-01-01',
  'date-time': '2000-01-01T00:00:00Z',
  time: '00:00:00Z',
  email: 'simulated@example.com',
  uri: 'https://example.com/simulated',
  url: 'https://example.com/simulated',
  uuid: '00000000-0000-4000-8000-000000000000',
};

function stringValue(schema: Schema, options: SchemaValueOptions, path: string): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format !== undefined) return format;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  // A pattern cannot be met in general; its schema is the one place a string goes unlabelled.
  if (typeof schema.pattern === 'string') return 'x'.repeat(Math.max(min, 1));
  let text = options.say(path);
  if (text.length > max) text = text.slice(0, max).trimEnd();
  if (text.length < min) text = text.padEnd(min, '.');
  return text.length > max ? text.slice(0, max) : text;
}

function numberValue(schema: Schema, integer: boolean): number {
  const num = (key: string) =>
    typeof schema[key] === 'number' ? (schema[key] as number) : undefined;
  const exclusiveMin = num('exclusiveMinimum');
  const exclusiveMax = num('exclusiveMaximum');
  const step = integer ? 1 : 0.5;
  let low = num('minimum') ?? (exclusiveMin === undefined ? undefined : exclusiveMin + step);
  let high = num('maximum') ?? (exclusiveMax === undefined ? undefined : exclusiveMax - step);
  if (integer) {
    if (low !== undefined) low = Math.ceil(low);
    if (high !== undefined) high = Math.floor(high);
  }
  // Halfway between the bounds, or one step inside the one that is given, or zero.
  let value =
    low !== undefined && high !== undefined
      ? (low + high) / 2
      : (low ?? (high !== undefined ? Math.min(high, 0) : 0));
  if (integer) value = Math.floor(value);
  const multiple = num('multipleOf');
  if (multiple !== undefined && multiple > 0) value = Math.ceil(value / multiple) * multiple;
  return value;
}
