/**
 * Taking in a run made in another store: a worker's, when an eval runs on a queue. The run's
 * record, its event log, its recorded calls and the bytes it refers to are written in one
 * transaction, so a crash mid-import leaves either the whole run or none of it, and every text
 * goes through the store's redactor like anything else the store writes.
 */

import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { type CassetteFile, canonicalJson } from '../../providers/cassette.ts';
import type { RunEvent } from '../../runtime/events.ts';
import type { BlobsTable } from './blobs.ts';
import type { RunRecord } from './run-record.ts';
import { type Clean, statementCache } from './sql.ts';

/** A finished run as another store holds it (the shape of a run export, `society export`). */
export interface ImportedRun {
  run: RunRecord;
  events: readonly RunEvent[];
  /** Its model and expert calls, as a cassette file. */
  calls: CassetteFile;
  /** Bytes its inputs, outputs and expert answers refer to, by sha256. */
  blobs: Readonly<Record<string, { mime: string; base64: string }>>;
}

/** What `importRun` did. */
export type ImportOutcome = 'imported' | 'replaced' | 'present';

export class RunImports {
  readonly #db: Database.Database;
  readonly #clean: Clean;
  readonly #blobs: BlobsTable;
  readonly #writing: ReadonlyMap<string, unknown>;
  /** A coordinator imports a run for every job of an eval: the statements are prepared once. */
  readonly #prepare: ReturnType<typeof statementCache>;

  constructor(
    db: Database.Database,
    clean: Clean,
    blobs: BlobsTable,
    writing: ReadonlyMap<string, unknown>,
  ) {
    this.#db = db;
    this.#prepare = statementCache(db);
    this.#clean = clean;
    this.#blobs = blobs;
    this.#writing = writing;
  }

  /**
   * Writes `data` under its own run id. A finished run already here under that id is kept as
   * it is ('present': importing the same result twice does nothing twice); an unfinished one
   * (cut off here, then finished elsewhere from its own log) is replaced by the finished one.
   */
  importRun(data: ImportedRun): ImportOutcome {
    const { run } = data;
    if (run.status === 'running' || run.status === 'interrupted')
      throw new Error(`run ${run.id} is ${run.status}; only a finished run can be imported`);
    if (this.#writing.has(run.id)) throw new Error(`run ${run.id} is being written in this store`);
    for (const [hash, blob] of Object.entries(data.blobs)) {
      const bytes = Buffer.from(blob.base64, 'base64');
      if (createHash('sha256').update(bytes).digest('hex') !== hash)
        throw new Error(`run ${run.id}: blob ${hash.slice(0, 12)}… does not match its bytes`);
    }
    for (const event of data.events)
      if (event.runId !== run.id)
        throw new Error(`run ${run.id}: event ${event.seq} belongs to run ${event.runId}`);
    return this.#db.transaction((): ImportOutcome => {
      const existing = this.#prepare<[string], string>('SELECT status FROM runs WHERE id = ?')
        .pluck()
        .get(run.id);
      if (existing !== undefined && existing !== 'running' && existing !== 'interrupted')
        return 'present';
      if (existing !== undefined) this.#db.prepare('DELETE FROM runs WHERE id = ?').run(run.id);
      this.#insertRun(run);
      const insertEvent = this.#prepare(
        'INSERT INTO events (run_id, seq, type, time, body) VALUES (?, ?, ?, ?, ?)',
      );
      for (const event of data.events)
        insertEvent.run(
          run.id,
          event.seq,
          event.type,
          event.time,
          this.#clean(JSON.stringify(event)),
        );
      const insertCall = this.#prepare(
        'INSERT INTO calls (run_id, key, request, responses) VALUES (?, ?, ?, ?)',
      );
      for (const entry of [...data.calls.entries, ...(data.calls.experts ?? [])])
        insertCall.run(
          run.id,
          entry.key,
          this.#clean(canonicalJson(entry.request)),
          this.#clean(JSON.stringify(entry.responses)),
        );
      for (const blob of Object.values(data.blobs))
        this.#blobs.putBlob(Buffer.from(blob.base64, 'base64'), blob.mime);
      return existing === undefined ? 'imported' : 'replaced';
    })();
  }

  #insertRun(run: RunRecord): void {
    this.#prepare(
      `INSERT INTO runs (id, graph_name, graph_hash, document, compiler_version, mode, inputs,
           status, started_at, finished_at, outputs, usage, cost_usd, error, parent_run_id,
           fork_seq, owner_pid, owner_host)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL)`,
    ).run(
      run.id,
      run.graphName,
      run.graphHash,
      this.#clean(run.documentText),
      run.compilerVersion,
      run.mode,
      this.#clean(JSON.stringify(run.inputs)),
      run.status,
      run.startedAt,
      run.finishedAt ?? null,
      run.outputs === undefined ? null : this.#clean(JSON.stringify(run.outputs)),
      run.usage === undefined ? null : JSON.stringify(run.usage),
      run.costUsd ?? null,
      run.error === undefined ? null : this.#clean(run.error),
    );
  }
}
