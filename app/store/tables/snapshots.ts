/** The `snapshots` table: engine states saved along a run, so it can resume or fork from one. */

import type Database from 'better-sqlite3';
import type { Clean } from './sql.ts';

export class SnapshotsTable {
  readonly #db: Database.Database;
  readonly #clean: Clean;

  constructor(db: Database.Database, clean: Clean) {
    this.#db = db;
    this.#clean = clean;
  }

  /** Stores the engine state as of event `seq`; a second snapshot at the same seq throws. */
  saveSnapshot(runId: string, seq: number, state: unknown): void {
    this.#db
      .prepare('INSERT INTO snapshots (run_id, seq, state) VALUES (?, ?, ?)')
      .run(runId, seq, this.#clean(JSON.stringify(state)));
  }

  /** The latest snapshot at or before `atSeq` (default: the latest). */
  snapshot(runId: string, atSeq?: number): { seq: number; state: unknown } | undefined {
    const row = this.#db
      .prepare<[string, number], { seq: number; state: string }>(
        'SELECT seq, state FROM snapshots WHERE run_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1',
      )
      .get(runId, atSeq ?? Number.MAX_SAFE_INTEGER);
    return row && { seq: row.seq, state: JSON.parse(row.state) };
  }
}
