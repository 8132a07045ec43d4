/** Values as events show them (clipped, images as references) and errors as one line. */
import { isBlobValue, isImageValue } from '../schema/blob-refs.ts';

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Keeps events small: long strings are clipped, images become references. */
export function previewValues(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, preview(v, 0)]));
}

/** Longer runs of numbers (embeddings) are described in events, not copied. */
const MAX_NUMBERS = 32;

function preview(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > 4000 ? `${value.slice(0, 4000)}…` : value;
  if (isImageValue(value) || isBlobValue(value)) return value;
  const shape = numericShape(value);
  if (shape && shape.reduce((a, b) => a * b, 1) > MAX_NUMBERS) {
    return { $numbers: shape.join('×') };
  }
  if (depth > 4) return '…';
  if (Array.isArray(value)) return value.map((v) => preview(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, preview(v, depth + 1)]));
  }
  return value;
}

/** The dimensions of a vector or matrix of numbers ([n] or [rows, cols]); else undefined. */
function numericShape(value: unknown): number[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.every((v) => typeof v === 'number')) return [value.length];
  const inner = numericShape(value[0]);
  if (inner?.length !== 1) return undefined;
  const width = inner[0]!;
  return value.every(
    (row) => Array.isArray(row) && row.length === width && row.every((v) => typeof v === 'number'),
  )
    ? [value.length, width]
    : undefined;
}
