import type { z } from 'zod';
import { boundsProblems } from './bounds.ts';
import { DOCUMENT_VERSION, DocumentSchema, type GraphDocument } from './document.ts';
import { MIGRATIONS, type Migration, migrateDocument } from './migrations.ts';
import { migrateNodeData, type NodeMigration, type NodeTypes } from './node-versions.ts';
import { formatPath, type Problem } from './problems.ts';

export type ParseResult =
  | { ok: true; doc: GraphDocument; migrated: Migration[]; migratedNodes: NodeMigration[] }
  | { ok: false; problems: Problem[] };

export interface ParseOptions {
  /**
   * Node types, to bring each node's data up to its type's version (a node registry, or the
   * editor's specs). Without them node data is read as it is stored.
   */
  nodes?: NodeTypes;
  /** Document migrations (default: this build's). */
  migrations?: readonly Migration[];
}

/**
 * Reads a document from JSON text or an already-parsed value: JSON syntax, document migrations,
 * the schema, then node data migrations. Never throws on bad input; every problem carries a
 * JSON path and, where it points into a node, that node's id.
 */
export function parseDocument(input: string | unknown, options: ParseOptions = {}): ParseResult {
  const { nodes, migrations = MIGRATIONS } = options;
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch (error) {
      return {
        ok: false,
        problems: [{ path: '(document)', message: `not valid JSON: ${(error as Error).message}` }],
      };
    }
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      problems: [{ path: '(document)', message: 'a society document must be a JSON object' }],
    };
  }
  // Before anything recursive (migrations, the schema, key ordering) touches the value.
  const outOfBounds = boundsProblems(raw as Record<string, unknown>);
  if (outOfBounds.length > 0) return { ok: false, problems: outOfBounds };
  const migrated = migrateDocument(raw as Record<string, unknown>, migrations, DOCUMENT_VERSION);
  if (!migrated.ok)
    return { ok: false, problems: [{ path: 'version', message: migrated.message }] };
  const result = DocumentSchema.safeParse(migrated.doc);
  if (!result.success) return { ok: false, problems: zodProblems(result.error, migrated.doc) };
  // zod lists an object's known keys first; keep the document's own order so saving an
  // unchanged document gives back the same text.
  const doc = inKeyOrderOf(result.data, migrated.doc) as GraphDocument;
  const upgraded = nodes ? migrateNodeData(doc, nodes) : { ok: true as const, doc, migrated: [] };
  if (!upgraded.ok) return upgraded;
  return {
    ok: true,
    doc: upgraded.doc,
    migrated: migrated.applied,
    migratedNodes: upgraded.migrated,
  };
}

/** Returns `value` with each object's keys in the order `original` has them (new keys last). */
function inKeyOrderOf(value: unknown, original: unknown): unknown {
  if (Array.isArray(value)) {
    return Array.isArray(original) ? value.map((v, i) => inKeyOrderOf(v, original[i])) : value;
  }
  if (!isPlainObject(value) || !isPlainObject(original)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(original)) {
    if (Object.hasOwn(value, key)) out[key] = inKeyOrderOf(value[key], original[key]);
  }
  for (const key of Object.keys(value)) if (!Object.hasOwn(out, key)) out[key] = value[key];
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Serializes a document the way the editor and CLI save it: two-space JSON with a trailing
 * newline, keys in the document's own order, so saving an unchanged document gives back the
 * same text.
 */
export function serializeDocument(doc: GraphDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Turns zod issues into problems, naming the node when the path goes through `nodes[i]`. */
export function zodProblems(
  error: z.ZodError,
  doc: unknown,
  prefix: PropertyKey[] = [],
): Problem[] {
  return error.issues.map((issue) => {
    const path = [...prefix, ...issue.path];
    return { path: formatPath(path), node: nodeIdAt(doc, path), message: issue.message };
  });
}

function nodeIdAt(doc: unknown, path: PropertyKey[]): string | undefined {
  if (path[0] !== 'nodes' || typeof path[1] !== 'number') return undefined;
  const nodes = (doc as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return undefined;
  const id = (nodes[path[1]] as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}
