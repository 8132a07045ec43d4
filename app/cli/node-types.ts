/**
 * What `society nodes` tells about each node type, read from the registry's specs: its ports (as
 * a newly dropped node has them: an agent's inputs follow its prompt's slots) and its data
 * fields with their types and defaults. Only zod's public API is read (schema classes, `.def`,
 * `.unwrap()`, `.shape`, `.options`, `.meta()`).
 */
import { z } from 'zod';
import { baseData } from '../node-sdk/common.ts';
import type { NodeSpec, PortSpec, PortsContext } from '../node-sdk/define.ts';
import { type ShowWhen, showWhenHints } from '../node-sdk/show-when.ts';

/** One port of a node type. */
export interface PortInfo {
  name: string;
  direction: 'in' | 'out';
  modality: string;
  required?: boolean;
  multiple?: boolean;
  description?: string;
}

/** One field of a node type's data. */
export interface FieldInfo {
  name: string;
  /** `string`, `integer`, `a|b|c`, `list<string>`, `record`, `object`, `any`… */
  type: string;
  /** Required: the node is invalid without it (it has no default and is not optional). */
  required: boolean;
  default?: unknown;
  /** Every node type takes it (label, replicate, stage). */
  shared?: boolean;
  /** When the field applies, by other fields' values (its `showWhen` hint). */
  showWhen?: ShowWhen;
}

export interface NodeTypeInfo {
  type: string;
  title: string;
  group: string;
  description: string;
  container?: 'loop' | 'group';
  ports: PortInfo[];
  fields: FieldInfo[];
}

/** The names of the fields every node type shares. */
export const SHARED_FIELDS: readonly string[] = Object.keys(baseData).filter(
  (name) => name !== 'ui',
);

/** Describes one node type from its spec. */
export function describeNodeType(spec: NodeSpec<unknown>): NodeTypeInfo {
  return {
    type: spec.type,
    title: spec.title,
    group: spec.group,
    description: spec.description,
    ...(spec.container ? { container: spec.container } : {}),
    ports: newNodePorts(spec),
    fields: describeFields(spec.data),
  };
}

const NO_LIBRARY: PortsContext = { subgraphPorts: () => undefined };

/** The ports of a node of this type as it is dropped: its initial data with defaults filled. */
function newNodePorts(spec: NodeSpec<unknown>): PortInfo[] {
  const start = spec.initialData?.({
    id: `${spec.type}1`,
    profile: 'default',
    profiles: ['default'],
    ids: new Set(),
  });
  const parsed = spec.data.safeParse(start ?? {});
  let ports: { inputs: PortSpec[]; outputs: PortSpec[] };
  try {
    // A dropped node is in no document yet: a node standing for a library graph has no ports.
    ports = spec.ports((parsed.success ? parsed.data : (start ?? {})) as never, NO_LIBRARY);
  } catch {
    ports = { inputs: [], outputs: [] };
  }
  const info = (port: PortSpec, direction: 'in' | 'out'): PortInfo => ({
    name: port.name,
    direction,
    modality: port.modality,
    ...(port.required ? { required: true } : {}),
    ...(port.multiple ? { multiple: true } : {}),
    ...(port.description ? { description: port.description } : {}),
  });
  return [...ports.inputs.map((p) => info(p, 'in')), ...ports.outputs.map((p) => info(p, 'out'))];
}

/** The fields of an object schema, in declaration order, leaving out editor-only ones. */
function describeFields(schema: z.ZodType): FieldInfo[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const fields: FieldInfo[] = [];
  const hints = showWhenHints(schema);
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    let current = field;
    let optional = false;
    let hasDefault = false;
    let defaultValue: unknown;
    let hidden = false;
    for (let i = 0; i < 10; i++) {
      if (current.meta()?.editor === 'hidden') hidden = true;
      if (current instanceof z.ZodOptional) optional = true;
      else if (current instanceof z.ZodDefault || current instanceof z.ZodPrefault) {
        hasDefault = true;
        defaultValue = current.def.defaultValue;
      } else if (!(current instanceof z.ZodNullable || current instanceof z.ZodReadonly)) break;
      current = current.unwrap() as z.ZodType;
    }
    if (hidden) continue;
    fields.push({
      name,
      type: typeName(current),
      required: !optional && !hasDefault,
      ...(hasDefault ? { default: defaultValue } : {}),
      ...(SHARED_FIELDS.includes(name) ? { shared: true } : {}),
      ...(hints.has(name) ? { showWhen: hints.get(name) } : {}),
    });
  }
  return fields;
}

/** A short name for a schema's type. */
function typeName(schema: z.ZodType): string {
  let current = schema;
  for (let i = 0; i < 10; i++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodReadonly ||
      current instanceof z.ZodCatch
    )
      current = current.unwrap() as z.ZodType;
    else if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else break;
  }
  if (current instanceof z.ZodString) return 'string';
  if (current instanceof z.ZodNumber) return current.isInt ? 'integer' : 'number';
  if (current instanceof z.ZodBoolean) return 'boolean';
  if (current instanceof z.ZodEnum) return current.options.map(String).join('|');
  if (current instanceof z.ZodLiteral)
    return [...current.values].map((v) => JSON.stringify(v)).join('|');
  if (current instanceof z.ZodUnion)
    return (current.options as z.ZodType[]).map(typeName).join('|');
  if (current instanceof z.ZodArray) return `list<${typeName(current.element as z.ZodType)}>`;
  if (current instanceof z.ZodRecord) return 'record';
  if (current instanceof z.ZodObject) return 'object';
  return 'any';
}
