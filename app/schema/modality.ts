/**
 * Port modalities: what kind of value travels along an edge. A modality is a string so it
 * reads naturally in documents and errors: `text`, `image`, `list<text>`, `list<list<json>>`.
 */

/**
 * The scalar modalities. Adding one here is enough for the schema, compiler and UI to know it.
 * - `image`, `audio` and `asset3d` (a 3D model file) are binary: they travel as references to
 *   content-addressed blobs with a MIME type, never as base64 inside values or events;
 * - `label` is a class with its score (`{ label, score }`), as classifiers return them.
 */
export const SCALAR_MODALITIES = [
  'text',
  'image',
  'audio',
  'asset3d',
  'json',
  'number',
  'boolean',
  'label',
  'any',
] as const;
export type ScalarModality = (typeof SCALAR_MODALITIES)[number];

/**
 * The modality of a port that takes tools, not values (an agent's `tools`): any node's output
 * wired into it offers that node to the receiving node as a tool. No value travels on such a
 * wire, so no value has this modality: it is not a scalar, and `isModality` refuses it.
 */
export const TOOL_MODALITY = 'tool';

export type Modality = ScalarModality | typeof TOOL_MODALITY | `list<${string}>`;

export type ParsedModality =
  | { kind: 'scalar'; name: ScalarModality }
  | { kind: 'list'; of: ParsedModality };

/** Parses a modality string, or returns undefined if it is not one. */
export function parseModality(text: string): ParsedModality | undefined {
  const trimmed = text.trim();
  const list = /^list<(.+)>$/.exec(trimmed);
  if (list) {
    const inner = parseModality(list[1]!);
    return inner && { kind: 'list', of: inner };
  }
  return (SCALAR_MODALITIES as readonly string[]).includes(trimmed)
    ? { kind: 'scalar', name: trimmed as ScalarModality }
    : undefined;
}

export function isModality(text: string): text is Modality {
  return parseModality(text) !== undefined;
}

export function formatModality(m: ParsedModality): Modality {
  return m.kind === 'scalar' ? m.name : `list<${formatModality(m.of)}>`;
}

/** Wraps a modality in a list: what a consumer sees of a replicated or multi-edge source. */
export function listOf(m: Modality): Modality {
  return `list<${m}>`;
}

/**
 * Whether a value of modality `from` may flow into a port of modality `to`.
 * - `any` on either side fits (it is checked at run time instead);
 * - numbers, booleans and labels fit text ports (they print naturally; a label as its class);
 * - everything except binary values (images, audio, 3D assets) fits `json`;
 * - lists fit lists element-wise; a list never silently becomes a scalar, nor the reverse;
 * - every output fits a `tool` port (it offers its node as a tool).
 */
export function modalityFits(from: Modality, to: Modality): boolean {
  // Any node's output may be offered as a tool; a tools port feeds nothing.
  if (to === TOOL_MODALITY) return from !== TOOL_MODALITY;
  if (from === TOOL_MODALITY) return false;
  const a = parseModality(from);
  const b = parseModality(to);
  if (!a || !b) return false;
  return fits(a, b);
}

function fits(a: ParsedModality, b: ParsedModality): boolean {
  if (a.kind === 'scalar' && a.name === 'any') return true;
  if (b.kind === 'scalar' && b.name === 'any') return true;
  if (b.kind === 'scalar' && b.name === 'json') return !containsBinary(a);
  if (a.kind === 'list' || b.kind === 'list') {
    return a.kind === 'list' && b.kind === 'list' && fits(a.of, b.of);
  }
  if (a.name === b.name) return true;
  return b.name === 'text' && (a.name === 'number' || a.name === 'boolean' || a.name === 'label');
}

/** The modalities whose values are blobs. */
export const BINARY_MODALITIES: ReadonlySet<ScalarModality> = new Set([
  'image',
  'audio',
  'asset3d',
]);

function containsBinary(m: ParsedModality): boolean {
  return m.kind === 'list' ? containsBinary(m.of) : BINARY_MODALITIES.has(m.name);
}
