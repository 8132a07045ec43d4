/**
 * Node data versions. Beside the document's own version, each node records the version of its
 * `data` (`node.version`, absent = 1), and its type (`nodes/<type>/spec.ts`) carries the current
 * version with the steps up to it, as tldraw versions each shape's props. Reading a document
 * runs the steps for every node behind its type, so the CLI, the studio and the editor all see
 * today's shape; saving then writes the current version. The library's graphs are read alike.
 */
import type { GraphDocument, GraphNode } from './document.ts';
import { formatPath, type Problem } from './problems.ts';

/** What reading a document needs of a node type: a NodeSpec has both. */
export interface NodeDataVersioning {
  /** The current version of the type's data; default 1. */
  version?: number;
  /** Steps by the version they start from: `{ 1: (data) => … }` turns version 1 into 2. */
  migrations?: Readonly<Record<number, (data: Record<string, unknown>) => Record<string, unknown>>>;
  /**
   * For a type split in two: stored data of this type that now belongs to another type (or
   * holds fields this type no longer has), as the type and data it becomes; `undefined` when
   * the data is this type's as it is. Runs before the data versions, on the data as stored.
   */
  retype?(data: Readonly<Record<string, unknown>>): Retyped | undefined;
}

/** What `retype` turns a node into: its type (perhaps the same one) and its data. */
export interface Retyped {
  type: string;
  data: Record<string, unknown>;
}

/** Node types by name (a node registry, or the editor's map of specs). */
export interface NodeTypes {
  get(type: string): NodeDataVersioning | undefined;
}

/** A node whose data was brought up to date. */
export interface NodeMigration {
  node: string;
  type: string;
  from: number;
  to: number;
  /** The type it had when stored, when it became another (`retype`). */
  was?: string;
}

export type NodeMigrationResult =
  | { ok: true; doc: GraphDocument; migrated: NodeMigration[] }
  | { ok: false; problems: Problem[] };

/**
 * Brings every node's data up to its type's current version. Nodes of unknown types are left
 * as they are (analysis reports the type). The document given is not changed.
 */
export function migrateNodeData(doc: GraphDocument, types: NodeTypes): NodeMigrationResult {
  const problems: Problem[] = [];
  const migrated: NodeMigration[] = [];
  const nodes = migrateNodes(doc.nodes, [], types, problems, migrated);
  // The library's graphs are documents' nodes too: read in today's shape like the rest.
  let graphs: GraphDocument['graphs'];
  for (const [name, graph] of Object.entries(doc.graphs ?? {})) {
    const upgraded = migrateNodes(graph.nodes, ['graphs', name], types, problems, migrated);
    if (upgraded === graph.nodes) continue;
    graphs ??= { ...doc.graphs };
    graphs[name] = { ...graph, nodes: upgraded };
  }
  if (problems.length > 0) return { ok: false, problems };
  if (migrated.length === 0) return { ok: true, doc, migrated };
  return { ok: true, doc: { ...doc, nodes, ...(graphs ? { graphs } : {}) }, migrated };
}

/** `nodes` with each node's data brought up to date; the same array when none changed. */
function migrateNodes(
  list: GraphNode[],
  at: PropertyKey[],
  types: NodeTypes,
  problems: Problem[],
  migrated: NodeMigration[],
): GraphNode[] {
  let changed = false;
  const nodes = list.map((stored, index) => {
    const retyped = retype(stored, types);
    const node = retyped?.node ?? stored;
    if (retyped) changed = true;
    const spec = types.get(node.type);
    const current = spec?.version ?? 1;
    const from = node.version ?? 1;
    if (!spec || from === current) {
      if (retyped)
        migrated.push({ node: node.id, type: node.type, from, to: from, ...retyped.was });
      return node;
    }
    const problem = (message: string) => {
      problems.push({
        path: formatPath([...at, 'nodes', index, 'version']),
        node: node.id,
        message,
      });
      return node;
    };
    if (from > current) {
      return problem(
        `its data is version ${from}, but this build's "${node.type}" node type reads up to version ${current}`,
      );
    }
    let data: Record<string, unknown> = structuredClone(node.data);
    for (let v = from; v < current; v++) {
      const step = spec.migrations?.[v];
      if (!step) return problem(`the "${node.type}" node type has no migration from version ${v}`);
      try {
        const next: unknown = step(data);
        if (typeof next !== 'object' || next === null || Array.isArray(next)) {
          return problem(`migrating its data from version ${v} to ${v + 1} gave no object`);
        }
        data = next as Record<string, unknown>;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return problem(`migrating its data from version ${v} to ${v + 1} failed: ${reason}`);
      }
    }
    migrated.push({ node: node.id, type: node.type, from, to: current, ...retyped?.was });
    changed = true;
    return { ...node, data, version: current };
  });
  return changed ? nodes : list;
}

/**
 * The node as its stored type's `retype` says it is now, or undefined when it says nothing
 * (or names a type this build does not know, which analysis then reports as it stands).
 */
function retype(node: GraphDocument['nodes'][number], types: NodeTypes) {
  const result = types.get(node.type)?.retype?.(node.data);
  if (!result || (result.type !== node.type && !types.get(result.type))) return undefined;
  return {
    node: { ...node, type: result.type, data: result.data },
    was: result.type === node.type ? {} : { was: node.type },
  };
}
