/**
 * The `runs` table: one row per run, from `createRun` to its finish, with the process that
 * owns it so a crashed run can be told from a live one.
 */

import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import type { RunMode, Usage } from '../../runtime/events.ts';
import { graphHash } from './graphs.ts';
import {
  AmbiguousRunIdError,
  type ListRunsOptions,
  type NewRun,
  newRunId,
  processAlive,
  type RunFinish,
  type RunOwner,
  type RunRecord,
  type RunSummary,
  type StoredRunStatus,
  thisProcess,
} from './run-record.ts';
import {
  type Clean,
  parseJson,
  SQLITE_DUPLICATE,
  sqliteCode,
  statementCache,
  withDefined,
} from './sql.ts';

interface RunRow {
  id: string;
  graph_name: string;
  graph_hash: string;
  document: string;
  compiler_version: number;
  mode: string;
  inputs: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  outputs: string | null;
  usage: string | null;
  cost_usd: number | null;
  error: string | null;
  parent_run_id: string | null;
  fork_seq: number | null;
}

interface SummaryRow {
  id: string;
  graph_name: string;
  status: string;
  mode: string;
  started_at: number;
  finished_at: number | null;
  cost_usd: number | null;
  usage: string | null;
  parent_run_id: string | null;
  event_calls: number | null;
  event_tokens: number | null;
  event_cost: number | null;
}

/** Highest code point: `prefix + MAX_CHAR` sorts after every id that starts with `prefix`. */
const MAX_CHAR = '\u{10FFFF}';

/**
 * The run records. `writing` holds the runs with an open event writer in this store (see
 * events.ts): those are never marked interrupted nor deleted.
 */
export class RunsTable {
  readonly #db: Database.Database;
  readonly #prepare: ReturnType<typeof statementCache>;
  readonly #clean: Clean;
  readonly #writing: ReadonlyMap<string, unknown>;

  constructor(db: Database.Database, clean: Clean, writing: ReadonlyMap<string, unknown>) {
    this.#db = db;
    this.#prepare = statementCache(db);
    this.#clean = clean;
    this.#writing = writing;
  }

  /** Records a new run as 'running' and returns it. */
  createRun(run: NewRun): RunRecord {
    const id = run.id ?? newRunId();
    if (id === '') throw new Error('a run id cannot be empty');
    const startedAt = run.startedAt ?? Date.now();
    try {
      this.#prepare(
        `INSERT INTO runs (id, graph_name, graph_hash, document, compiler_version, mode, inputs,
             status, started_at, parent_run_id, fork_seq, owner_pid, owner_host)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
      ).run(
        id,
        run.document.name,
        graphHash(run.document),
        this.#clean(run.documentText),
        run.compilerVersion,
        run.mode,
        this.#clean(JSON.stringify(run.inputs)),
        startedAt,
        run.parentRunId ?? null,
        run.forkSeq ?? null,
        (run.owner ?? thisProcess()).pid,
        (run.owner ?? thisProcess()).host,
      );
    } catch (error) {
      const code = sqliteCode(error);
      if (code && SQLITE_DUPLICATE.has(code)) {
        throw new Error(`a run with id ${id} already exists`, { cause: error });
      }
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new Error(`parent run ${run.parentRunId} is not in the store`, { cause: error });
      }
      throw error;
    }
    return this.runById(id)!;
  }

  /** Records how a run ended (see `RunStore.finishRun`). */
  finishRun(id: string, finish: RunFinish): RunRecord {
    this.recordFinish(id, finish);
    return this.runById(id)!;
  }

  /**
   * Stores a run's end; throws when the run is unknown or not 'running' or 'interrupted'.
   * Also called inside an event batch's transaction, so the run.finished event and the
   * run's final record are written together.
   */
  recordFinish(id: string, finish: RunFinish): void {
    const result = this.#prepare(
      `UPDATE runs SET status = ?, finished_at = ?, outputs = ?, usage = ?, cost_usd = ?, error = ?,
         mode = COALESCE(?, mode)
         WHERE id = ? AND status IN ('running', 'interrupted')`,
    ).run(
      finish.status,
      finish.finishedAt ?? Date.now(),
      finish.outputs === undefined ? null : this.#clean(JSON.stringify(finish.outputs)),
      finish.usage === undefined ? null : JSON.stringify(finish.usage),
      finish.costUsd ?? finish.usage?.costUsd ?? null,
      finish.error === undefined ? null : this.#clean(finish.error),
      finish.mode ?? null,
      id,
    );
    if (result.changes === 0) {
      const run = this.runById(id);
      if (!run) throw new Error(`run ${id} is not in the store`);
      throw new Error(`run ${id} has already finished (${run.status})`);
    }
  }

  /** Marks 'running' runs of dead processes as 'interrupted' (see `RunStore.markInterrupted`). */
  markInterrupted(isAlive: (pid: number) => boolean = processAlive): string[] {
    const here = hostname();
    const writing = new Set(this.#writing.keys());
    const stale = this.#prepare<
      [],
      { id: string; owner_pid: number | null; owner_host: string | null }
    >(`SELECT id, owner_pid, owner_host FROM runs WHERE status = 'running'`)
      .all()
      .filter((r) => !writing.has(r.id))
      .filter((r) => r.owner_pid === null || (r.owner_host === here && !isAlive(r.owner_pid)))
      .map((r) => r.id);
    const mark = this.#prepare(
      `UPDATE runs SET status = 'interrupted',
         finished_at = coalesce((SELECT max(time) FROM events WHERE run_id = runs.id), started_at)
       WHERE id = ? AND status = 'running'`,
    );
    this.#db.transaction(() => {
      for (const id of stale) mark.run(id);
    })();
    return stale;
  }

  /** Takes an interrupted run up again in this process (`society resume`). */
  reopenRun(id: string, owner: RunOwner = thisProcess()): RunRecord {
    const result = this.#prepare(
      `UPDATE runs SET status = 'running', finished_at = NULL, owner_pid = ?, owner_host = ?
         WHERE id = ? AND status = 'interrupted'`,
    ).run(owner.pid, owner.host, id);
    if (result.changes === 0) {
      const run = this.runById(id);
      if (!run) throw new Error(`run ${id} is not in the store`);
      throw new Error(`run ${id} is ${run.status}; only an interrupted run can be resumed`);
    }
    return this.runById(id)!;
  }

  /** Runs, newest first. */
  listRuns(options: ListRunsOptions = {}): RunSummary[] {
    const limit = Math.max(0, Math.floor(options.limit ?? 50));
    const rows = this.#prepare<
      [string | null, string | null, string | null, string | null, number],
      SummaryRow
    >(
      `SELECT r.id, r.graph_name, r.status, r.mode, r.started_at, r.finished_at, r.cost_usd,
           r.usage, r.parent_run_id,
           CASE WHEN r.usage IS NULL THEN
             (SELECT count(*) FROM events e WHERE e.run_id = r.id AND e.type = 'model.response')
           END AS event_calls,
           CASE WHEN r.usage IS NULL THEN
             (SELECT total(e.body ->> '$.promptTokens') + total(e.body ->> '$.completionTokens')
              FROM events e WHERE e.run_id = r.id AND e.type = 'model.response')
           END AS event_tokens,
           CASE WHEN r.cost_usd IS NULL AND r.usage IS NULL THEN
             (SELECT sum(e.body ->> '$.costUsd')
              FROM events e WHERE e.run_id = r.id AND e.type = 'model.response')
           END AS event_cost
         FROM runs r
         WHERE (? IS NULL OR r.graph_name = ?) AND (? IS NULL OR r.status = ?)
         ORDER BY r.started_at DESC, r.rowid DESC
         LIMIT ?`,
    ).all(
      options.graph ?? null,
      options.graph ?? null,
      options.status ?? null,
      options.status ?? null,
      limit,
    );
    return rows.map((row) => {
      const usage = parseJson<Usage>(row.usage);
      return withDefined<RunSummary>(
        {
          id: row.id,
          graph: row.graph_name,
          status: row.status as StoredRunStatus,
          mode: row.mode as RunMode,
          startedAt: row.started_at,
          calls: usage ? usage.calls : (row.event_calls ?? 0),
          tokens: usage ? usage.totalTokens : (row.event_tokens ?? 0),
        },
        {
          finishedAt: row.finished_at ?? undefined,
          costUsd: row.cost_usd ?? row.event_cost ?? undefined,
          parentRunId: row.parent_run_id ?? undefined,
        },
      );
    });
  }

  /** A run by its id or a unique prefix of it (see `RunStore.getRun`). */
  getRun(idOrPrefix: string): RunRecord | undefined {
    if (idOrPrefix === '') throw new Error('give a run id (or the first few characters of one)');
    const exact = this.runById(idOrPrefix);
    if (exact) return exact;
    const matches = this.#prepare<[string, string], string>(
      'SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 6',
    )
      .pluck()
      .all(idOrPrefix, idOrPrefix + MAX_CHAR);
    if (matches.length > 1) throw new AmbiguousRunIdError(idOrPrefix, matches);
    return matches[0] === undefined ? undefined : this.runById(matches[0]);
  }

  /** Deletes a run (exact id) with its events, snapshots and calls. Forks keep their events. */
  deleteRun(id: string): boolean {
    if (this.#writing.has(id))
      throw new Error(`run ${id} has an open event writer; close it first`);
    return this.#prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /** A run by its exact id. */
  runById(id: string): RunRecord | undefined {
    const row = this.#prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?').get(id);
    return row && toRunRecord(row);
  }
}

function toRunRecord(row: RunRow): RunRecord {
  return withDefined<RunRecord>(
    {
      id: row.id,
      graphName: row.graph_name,
      graphHash: row.graph_hash,
      documentText: row.document,
      compilerVersion: row.compiler_version,
      mode: row.mode as RunMode,
      inputs: JSON.parse(row.inputs) as Record<string, unknown>,
      status: row.status as StoredRunStatus,
      startedAt: row.started_at,
    },
    {
      finishedAt: row.finished_at ?? undefined,
      outputs: parseJson<Record<string, unknown>>(row.outputs),
      usage: parseJson<Usage>(row.usage),
      costUsd: row.cost_usd ?? undefined,
      error: row.error ?? undefined,
      parentRunId: row.parent_run_id ?? undefined,
      forkSeq: row.fork_seq ?? undefined,
    },
  );
}
