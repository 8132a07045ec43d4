/**
 * The graph library: the `graphs` table (one row per document name) and `graph_versions`
 * (one row per distinct content, by `graphHash`).
 */

import { createHash, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { canonicalJson } from '../../providers/cassette.ts';
import type { GraphDocument } from '../../schema/document.ts';
import type { Clean } from './sql.ts';

/** The result of saving a graph into the library. */
export interface SavedGraph {
  id: string;
  name: string;
  version: number;
  hash: string;
  /** False when the content was unchanged and no version was added. */
  changed: boolean;
}

/** A graph in the library, described by its latest version. */
export interface GraphSummary {
  id: string;
  name: string;
  version: number;
  hash: string;
  createdAt: number;
  updatedAt: number;
}

/** One stored version of a graph. */
export interface GraphVersion {
  id: string;
  name: string;
  version: number;
  hash: string;
  documentText: string;
  savedAt: number;
}

/** The content hash of a graph: sha256 hex of its canonical JSON (key order and spacing ignored). */
export function graphHash(document: GraphDocument): string {
  return createHash('sha256').update(canonicalJson(document)).digest('hex');
}

interface GraphVersionRow {
  id: string;
  name: string;
  version: number;
  hash: string;
  document: string;
  saved_at: number;
}

/** The id of the graph named or identified by @graph; a name wins over an equal id. */
const GRAPH_ID_OF =
  'SELECT id FROM graphs WHERE name = @graph OR id = @graph ORDER BY name = @graph DESC LIMIT 1';

export class GraphsTable {
  readonly #db: Database.Database;
  readonly #clean: Clean;

  constructor(db: Database.Database, clean: Clean) {
    this.#db = db;
    this.#clean = clean;
  }

  /** Saves a graph under its document name (see `RunStore.saveGraph`). */
  saveGraph(document: GraphDocument, text: string): SavedGraph {
    const hash = graphHash(document);
    const now = Date.now();
    const save = this.#db.transaction((): SavedGraph => {
      let id = this.#db
        .prepare<[string], string>('SELECT id FROM graphs WHERE name = ?')
        .pluck()
        .get(document.name);
      if (id === undefined) {
        id = randomUUID();
        this.#db
          .prepare('INSERT INTO graphs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)')
          .run(id, document.name, now, now);
      }
      const latest = this.#db
        .prepare<[string], { version: number; hash: string }>(
          'SELECT version, hash FROM graph_versions WHERE graph_id = ? ORDER BY version DESC LIMIT 1',
        )
        .get(id);
      if (latest?.hash === hash) {
        return { id, name: document.name, version: latest.version, hash, changed: false };
      }
      const version = (latest?.version ?? 0) + 1;
      this.#db
        .prepare(
          'INSERT INTO graph_versions (graph_id, version, hash, document, saved_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(id, version, hash, this.#clean(text), now);
      this.#db.prepare('UPDATE graphs SET updated_at = ? WHERE id = ?').run(now, id);
      return { id, name: document.name, version, hash, changed: true };
    });
    return save.immediate();
  }

  /** The library, by name. */
  listGraphs(): GraphSummary[] {
    return this.#db
      .prepare<
        [],
        {
          id: string;
          name: string;
          version: number;
          hash: string;
          created_at: number;
          updated_at: number;
        }
      >(
        `SELECT g.id, g.name, v.version, v.hash, g.created_at, g.updated_at
         FROM graphs g JOIN graph_versions v ON v.graph_id = g.id
         WHERE v.version = (SELECT max(version) FROM graph_versions WHERE graph_id = g.id)
         ORDER BY g.name`,
      )
      .all()
      .map((row) => ({
        id: row.id,
        name: row.name,
        version: row.version,
        hash: row.hash,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      }));
  }

  /** A graph by name or id: the given version, or the latest. */
  getGraph(nameOrId: string, version?: number): GraphVersion | undefined {
    const row = this.#db
      .prepare<{ graph: string; version: number | null }, GraphVersionRow>(
        `SELECT g.id, g.name, v.version, v.hash, v.document, v.saved_at
         FROM graphs g JOIN graph_versions v ON v.graph_id = g.id
         WHERE g.id = (${GRAPH_ID_OF})
           AND (@version IS NULL OR v.version = @version)
         ORDER BY v.version DESC LIMIT 1`,
      )
      .get({ graph: nameOrId, version: version ?? null });
    return row && toGraphVersion(row);
  }

  /** Every version of a graph (by name or id), oldest first. */
  graphVersions(nameOrId: string): GraphVersion[] {
    return this.#db
      .prepare<{ graph: string }, GraphVersionRow>(
        `SELECT g.id, g.name, v.version, v.hash, v.document, v.saved_at
         FROM graphs g JOIN graph_versions v ON v.graph_id = g.id
         WHERE g.id = (${GRAPH_ID_OF})
         ORDER BY v.version`,
      )
      .all({ graph: nameOrId })
      .map(toGraphVersion);
  }

  /** Removes a graph and all its versions from the library. Runs of it are kept. */
  deleteGraph(nameOrId: string): boolean {
    return (
      this.#db.prepare(`DELETE FROM graphs WHERE id = (${GRAPH_ID_OF})`).run({ graph: nameOrId })
        .changes > 0
    );
  }
}

function toGraphVersion(row: GraphVersionRow): GraphVersion {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    hash: row.hash,
    documentText: row.document,
    savedAt: row.saved_at,
  };
}
