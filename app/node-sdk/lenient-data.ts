/**
 * Reading a node's data that may not be valid yet (half typed in the editor, a work in progress
 * being exported): field by field, so what is valid still counts.
 */
import { z } from 'zod';
import type { NodeSpec } from './define.ts';

/**
 * The data with each valid field parsed (defaults filled) and each bad field at its default,
 * or as stored when it has none; data of a type whose schema is not an object stays as stored.
 */
export function lenientData(
  spec: NodeSpec<unknown>,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const shape = objectShape(spec.data);
  if (!shape) return data;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(shape)) {
    const own = field.safeParse(data[key]);
    if (own.success) {
      if (own.data !== undefined) out[key] = own.data;
      continue;
    }
    const fallback = field.safeParse(undefined);
    if (fallback.success && fallback.data !== undefined) out[key] = fallback.data;
    else if (data[key] !== undefined) out[key] = data[key];
  }
  return out;
}

/** The parsed data when valid, else the lenient reading. */
export function readNodeData(
  spec: NodeSpec<unknown>,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const result = spec.data.safeParse(data);
  return result.success ? (result.data as Record<string, unknown>) : lenientData(spec, data);
}

/** The fields of an object schema, or undefined when the schema is not an object. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined;
}
