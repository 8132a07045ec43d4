/**
 * The `events` table: each run's append-only event log, written in batches through one
 * `BufferedEventWriter` per run (../writer.ts), whose commits the store's writers share
 * (../group-commit.ts), and read back exactly as it was pushed.
 */

import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { RunEvent, RunEventType } from '../../runtime/events.ts';
import { LEGACY_REPORT_TYPES, upgradeEvent } from '../../runtime/legacy-events.ts';
import { type DeferredSync, GroupCommit } from '../group-commit.ts';
import {
  BufferedEventWriter,
  type EventRow,
  type EventWriter,
  type EventWriterOptions,
} from '../writer.ts';
import type { RunFinish } from './run-record.ts';
import type { RunsTable } from './runs.ts';
import { type Clean, SQLITE_DUPLICATE, sqliteCode } from './sql.ts';

/** Rows per multi-row INSERT. */
const CHUNK = 25;

/** Which events to read; bounds are inclusive. */
export interface EventQuery {
  fromSeq?: number;
  toSeq?: number;
  types?: readonly RunEventType[];
}

/** The event log, and the open writers that append to it. */
export class EventLog {
  readonly #db: Database.Database;
  readonly #runs: RunsTable;
  readonly #writers: Map<string, BufferedEventWriter>;
  /** The commits every writer of this store shares. */
  readonly group: GroupCommit;
  readonly #writeBatch: (runId: string, rows: readonly EventRow[], finish?: RunFinish) => void;
  readonly #readEvents: Database.Statement<
    [string, number, number, string | null, string | null],
    string
  >;

  /**
   * `writers` is the store's map of open writers by run id, which this log fills and empties;
   * the runs table reads it (a run being written is live and cannot be deleted).
   */
  constructor(
    db: Database.Database,
    clean: Clean,
    runs: RunsTable,
    writers: Map<string, BufferedEventWriter>,
    maxWaitMs?: number,
  ) {
    this.#db = db;
    this.#runs = runs;
    this.#writers = writers;
    const insertEvent = db.prepare<[string, number, string, number, string]>(
      'INSERT INTO events (run_id, seq, type, time, body) VALUES (?, ?, ?, ?, ?)',
    );
    // Rows go in CHUNK at a time: one statement for 25 rows costs about half as much per row as
    // 25 statements (each call crosses into SQLite and back).
    const insertChunk = db.prepare<unknown[]>(
      `INSERT INTO events (run_id, seq, type, time, body) VALUES ${Array(CHUNK).fill('(?, ?, ?, ?, ?)').join(', ')}`,
    );
    const insertOne = (runId: string, row: EventRow) => {
      try {
        insertEvent.run(runId, row.seq, row.type, row.time, clean(row.body));
      } catch (error) {
        throw eventWriteError(runId, row, error);
      }
    };
    const insertRows = db.transaction(
      (runId: string, rows: readonly EventRow[], finish?: RunFinish) => {
        let at = 0;
        for (; at + CHUNK <= rows.length; at += CHUNK) {
          const chunk = rows.slice(at, at + CHUNK);
          const values: unknown[] = [];
          for (const row of chunk) values.push(runId, row.seq, row.type, row.time, clean(row.body));
          try {
            insertChunk.run(values);
          } catch {
            // The failed statement wrote nothing; row by row finds (and names) the row refused.
            for (const row of chunk) insertOne(runId, row);
          }
        }
        for (; at < rows.length; at++) insertOne(runId, rows[at]!);
        if (finish) runs.recordFinish(runId, finish);
      },
    );
    this.#writeBatch = (runId, rows, finish) => insertRows(runId, rows, finish);
    // Each writer's insertRows, called inside this transaction, becomes a savepoint of its own.
    const together = db.transaction((fn: () => void) => fn());
    this.group = new GroupCommit((fn) => together(fn), maxWaitMs, deferredSync(db));
    this.#readEvents = db
      .prepare<[string, number, number, string | null, string | null], string>(
        `SELECT body FROM events
         WHERE run_id = ? AND seq >= ? AND seq <= ?
           AND (? IS NULL OR type IN (SELECT value FROM json_each(?)))
         ORDER BY seq`,
      )
      .pluck();
  }

  /** The writer that appends a run's events (see `RunStore.eventWriter`). */
  eventWriter(runId: string, options: EventWriterOptions = {}): EventWriter {
    if (!this.#runs.runById(runId)) {
      throw new Error(`run ${runId} is not in the store; create it first`);
    }
    if (this.#writers.has(runId)) throw new Error(`run ${runId} already has an open event writer`);
    const writer = new BufferedEventWriter(
      runId,
      (rows, finish) => this.#writeBatch(runId, rows, finish),
      options,
      () => this.#writers.delete(runId),
      this.group,
    );
    this.#writers.set(runId, writer);
    return writer;
  }

  /**
   * A run's events in seq order, as they were pushed; events older builds stored under types of
   * their own (a `vote`) read as the `report` they are now (../../runtime/legacy-events.ts).
   */
  events(runId: string, query: EventQuery = {}): RunEvent[] {
    const wanted = query.types?.includes('report')
      ? [...query.types, ...LEGACY_REPORT_TYPES]
      : query.types;
    const types = wanted ? JSON.stringify(wanted) : null;
    const bodies = this.#readEvents.all(
      runId,
      query.fromSeq ?? 0,
      query.toSeq ?? Number.MAX_SAFE_INTEGER,
      types,
      types,
    );
    return bodies.map((body) => upgradeEvent(JSON.parse(body) as RunEvent));
  }

  /** The highest stored seq of a run, or 0 when it has no events. */
  lastSeq(runId: string): number {
    return (
      this.#db
        .prepare<[string], number | null>('SELECT max(seq) FROM events WHERE run_id = ?')
        .pluck()
        .get(runId) ?? 0
    );
  }

  /** Commits what every open writer has buffered (but held run.finished events), together. */
  flushWriters(): void {
    this.group.commit();
  }

  /** Flushes and closes every open writer; throws the first failure once all were tried. */
  closeWriters(): void {
    // One commit for everything buffered, then each close writes only its run's end.
    this.group.commit();
    let failure: unknown;
    for (const writer of [...this.#writers.values()]) {
      try {
        writer.close();
      } catch (error) {
        failure ??= error;
      }
    }
    this.group.dispose();
    if (failure) throw failure;
  }
}

/**
 * Background commits without their fsync, and the WAL flushed on the thread pool after them
 * (../group-commit.ts). Only for a file in WAL mode with synchronous=FULL: an in-memory store
 * has nothing to flush, and a connection set otherwise keeps its own setting.
 */
function deferredSync(db: Database.Database): DeferredSync | undefined {
  if (db.memory || db.name.startsWith('file:')) return undefined;
  if (String(db.pragma('journal_mode', { simple: true })) !== 'wal') return undefined;
  if (Number(db.pragma('synchronous', { simple: true })) !== 2) return undefined;
  const wal = `${path.resolve(db.name)}-wal`;
  let handle: Promise<FileHandle> | undefined;
  return {
    relaxed(fn) {
      // Inside a caller's transaction (a push from `atomically`) the commit is the caller's.
      if (db.inTransaction) return fn();
      db.pragma('synchronous = NORMAL');
      try {
        fn();
      } finally {
        db.pragma('synchronous = FULL');
      }
    },
    async fsync() {
      // The WAL lives as long as the connection does, so one handle serves every flush.
      handle ??= open(wal, 'r+');
      try {
        await (await handle).sync();
      } catch (error) {
        handle = undefined;
        throw error;
      }
    },
    close() {
      handle?.then((h) => h.close()).catch(() => {});
      handle = undefined;
    },
  };
}

function eventWriteError(runId: string, row: EventRow, error: unknown): Error {
  const code = sqliteCode(error);
  if (code && SQLITE_DUPLICATE.has(code)) {
    return new Error(
      `event ${row.seq} (${row.type}) of run ${runId} is already stored; the event log is append-only`,
      { cause: error },
    );
  }
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new Error(`run ${runId} is not in the store (was it deleted?)`, { cause: error });
  }
  return new Error(
    `cannot store event ${row.seq} (${row.type}) of run ${runId}: ${(error as Error).message}`,
    { cause: error },
  );
}
