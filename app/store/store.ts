/**
 * The durable run store: one SQLite file holding the graph library, every run with its event
 * log, the model calls a run made (so it can be replayed or resumed with no key), images,
 * settings, prices and provider profiles. Keys are never stored (see secrets.ts).
 *
 * One process writes a run at a time; the CLI and the desktop app may share the file, which
 * WAL mode and the busy timeout allow.
 */

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ModelPrice, PriceTable } from '../costs/prices.ts';
import {
  expertKey,
  isExpertRequest,
  type NormalizedExpertRequest,
  normalizeExpertRequest,
  type RecordedExpertResponse,
  toRecordedExpert,
} from '../experts/record.ts';
import type { ExpertRequest, ExpertResult } from '../experts/types.ts';
import {
  Cassette,
  type CassetteFile,
  canonicalJson,
  type NormalizedRequest,
  normalizeRequest,
  type RecordedResponse,
} from '../providers/cassette.ts';
import { Redactor } from '../providers/secrets.ts';
import type { ChatRequest, ChatResult, ProviderProfile } from '../providers/types.ts';
import type { RunEvent, RunEventType, RunMode, RunStatus, Usage } from '../runtime/events.ts';
import type { GraphDocument } from '../schema/document.ts';
import { migrate } from './migrations.ts';
import {
  findSecret,
  isSecretFieldName,
  parseProviderProfile,
  SecretRefusedError,
} from './secrets.ts';
import {
  BufferedEventWriter,
  type EventRow,
  type EventWriter,
  type EventWriterOptions,
} from './writer.ts';

/** A run's status in the store: the engine's final statuses, plus the two it cannot report. */
export type StoredRunStatus = 'running' | RunStatus | 'interrupted';

/** What `createRun` needs to know about a run before its first event. */
export interface NewRun {
  /** Defaults to `newRunId()`. Pass the engine's run id when it already has one. */
  id?: string;
  /** The parsed document: its name and content hash are stored with the run. */
  document: GraphDocument;
  /** The exact text that was run, so the run can be recompiled as it was. */
  documentText: string;
  compilerVersion: number;
  mode: RunMode;
  inputs: Record<string, unknown>;
  /** For a fork: the run it continues, and the last event of that run it keeps. */
  parentRunId?: string;
  forkSeq?: number;
  /** Milliseconds since the epoch; defaults to now. */
  startedAt?: number;
  /** The process running it; defaults to this one. Lets a crashed run be told from a live one. */
  owner?: RunOwner;
}

/** Which process runs a run. */
export interface RunOwner {
  pid: number;
  host: string;
}

/** This process. */
export function thisProcess(): RunOwner {
  return { pid: process.pid, host: hostname() };
}

/** Whether a process of this host is alive (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A stored run. */
export interface RunRecord {
  id: string;
  graphName: string;
  graphHash: string;
  documentText: string;
  compilerVersion: number;
  mode: RunMode;
  inputs: Record<string, unknown>;
  status: StoredRunStatus;
  startedAt: number;
  finishedAt?: number;
  outputs?: Record<string, unknown>;
  usage?: Usage;
  costUsd?: number;
  error?: string;
  parentRunId?: string;
  forkSeq?: number;
}

/** How a run ended. */
export interface RunFinish {
  status: RunStatus;
  outputs?: Record<string, unknown>;
  usage?: Usage;
  /** Defaults to `usage.costUsd`. */
  costUsd?: number;
  error?: string;
  /** Milliseconds since the epoch; defaults to now. */
  finishedAt?: number;
}

/** One line of a run list. */
export interface RunSummary {
  id: string;
  graph: string;
  status: StoredRunStatus;
  mode: RunMode;
  startedAt: number;
  finishedAt?: number;
  /** Absent when no call had a price. */
  costUsd?: number;
  /** From the final usage; for unfinished runs, summed from the model.response events. */
  calls: number;
  tokens: number;
  parentRunId?: string;
}

export interface ListRunsOptions {
  /** Default 50. */
  limit?: number;
  /** Only runs of the graph with this name. */
  graph?: string;
  status?: StoredRunStatus;
}

/** Which events to read; bounds are inclusive. */
export interface EventQuery {
  fromSeq?: number;
  toSeq?: number;
  types?: readonly RunEventType[];
}

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

/** A stored model price (US dollars per million tokens) and when it was set. */
export interface StoredPrice extends ModelPrice {
  model: string;
  updatedAt: number;
}

/** A run id prefix matched more than one run. */
export class AmbiguousRunIdError extends Error {
  readonly prefix: string;
  /** Some of the matching ids (at most 5). */
  readonly matches: readonly string[];
  constructor(prefix: string, matches: readonly string[]) {
    const shown = matches.slice(0, 5);
    super(
      `run id prefix "${prefix}" is ambiguous: it matches ${shown.join(', ')}${matches.length > 5 ? ', …' : ''}; type more of the id`,
    );
    this.name = 'AmbiguousRunIdError';
    this.prefix = prefix;
    this.matches = shown;
  }
}

/** A new run id: 16 random hex digits, so a few leading characters tell runs apart (like git). */
export function newRunId(): string {
  return randomBytes(8).toString('hex');
}

/** The content hash of a graph: sha256 hex of its canonical JSON (key order and spacing ignored). */
export function graphHash(document: GraphDocument): string {
  return createHash('sha256').update(canonicalJson(document)).digest('hex');
}

const SQLITE_DUPLICATE = new Set(['SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']);

function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** JSON.parse for nullable columns. */
function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

/** Copies the defined entries of `optional` onto `base`, so records have no undefined fields. */
function withDefined<T extends object>(base: T, optional: Partial<T>): T {
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== null) (base as Record<string, unknown>)[key] = value;
  }
  return base;
}

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

/** Highest code point: `prefix + MAX_CHAR` sorts after every id that starts with `prefix`. */
const MAX_CHAR = '\u{10FFFF}';

/**
 * A run store over one SQLite database. Synchronous, like better-sqlite3: every method returns
 * once its transaction has committed (and, with synchronous=FULL, reached the disk).
 */
export class RunStore {
  /** The database file, or ':memory:'. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #writers = new Map<string, BufferedEventWriter>();
  readonly #insertEvent: Database.Statement<[string, number, string, number, string]>;
  readonly #writeBatch: (runId: string, rows: readonly EventRow[], finish?: RunFinish) => void;
  readonly #readEvents: Database.Statement<
    [string, number, number, string | null, string | null],
    string
  >;

  /**
   * Scrubs every text the store writes of the key values it knows: events, run records,
   * recorded calls, snapshots and saved documents. Whoever learns of a key (a run's start, a
   * key entered in settings) tells it, so nothing written to the database or its WAL holds one.
   */
  readonly redactor: Redactor;

  /** Use `openRunStore`. */
  constructor(db: Database.Database, file: string, redactor: Redactor = new Redactor()) {
    this.#db = db;
    this.path = file;
    this.redactor = redactor;
    this.#insertEvent = db.prepare(
      'INSERT INTO events (run_id, seq, type, time, body) VALUES (?, ?, ?, ?, ?)',
    );
    const insertRows = db.transaction(
      (runId: string, rows: readonly EventRow[], finish?: RunFinish) => {
        for (const row of rows) {
          try {
            this.#insertEvent.run(runId, row.seq, row.type, row.time, this.#clean(row.body));
          } catch (error) {
            throw eventWriteError(runId, row, error);
          }
        }
        if (finish) this.#recordFinish(runId, finish);
      },
    );
    this.#writeBatch = (runId, rows, finish) => insertRows(runId, rows, finish);
    this.#readEvents = db
      .prepare<[string, number, number, string | null, string | null], string>(
        `SELECT body FROM events
         WHERE run_id = ? AND seq >= ? AND seq <= ?
           AND (? IS NULL OR type IN (SELECT value FROM json_each(?)))
         ORDER BY seq`,
      )
      .pluck();
  }

  /** `text` with every known key value replaced (see `redactor`). */
  #clean(text: string): string {
    return this.redactor.text(text);
  }

  /** Records a new run as 'running' and returns it. */
  createRun(run: NewRun): RunRecord {
    const id = run.id ?? newRunId();
    if (id === '') throw new Error('a run id cannot be empty');
    const startedAt = run.startedAt ?? Date.now();
    try {
      this.#db
        .prepare(
          `INSERT INTO runs (id, graph_name, graph_hash, document, compiler_version, mode, inputs,
             status, started_at, parent_run_id, fork_seq, owner_pid, owner_host)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
        )
        .run(
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
    return this.#runById(id)!;
  }

  /**
   * Records how a run ended. Only a 'running' or 'interrupted' run can be finished. A run
   * with an event writer is finished by `writer.close(finish)` instead, which stores its
   * run.finished event in the same transaction.
   */
  finishRun(id: string, finish: RunFinish): RunRecord {
    this.#recordFinish(id, finish);
    return this.#runById(id)!;
  }

  #recordFinish(id: string, finish: RunFinish): void {
    const result = this.#db
      .prepare(
        `UPDATE runs SET status = ?, finished_at = ?, outputs = ?, usage = ?, cost_usd = ?, error = ?
         WHERE id = ? AND status IN ('running', 'interrupted')`,
      )
      .run(
        finish.status,
        finish.finishedAt ?? Date.now(),
        finish.outputs === undefined ? null : this.#clean(JSON.stringify(finish.outputs)),
        finish.usage === undefined ? null : JSON.stringify(finish.usage),
        finish.costUsd ?? finish.usage?.costUsd ?? null,
        finish.error === undefined ? null : this.#clean(finish.error),
        id,
      );
    if (result.changes === 0) {
      const run = this.#runById(id);
      if (!run) throw new Error(`run ${id} is not in the store`);
      throw new Error(`run ${id} has already finished (${run.status})`);
    }
  }

  /**
   * Marks 'running' runs whose process is gone as 'interrupted' (a crash, a kill -9, a power
   * cut) and returns their ids; the finish time is the time of the run's last stored event.
   * A run owned by a live process, or by a process on another host (which cannot be checked
   * from here), is left alone, as is a run with an open writer in this store.
   */
  markInterrupted(isAlive: (pid: number) => boolean = processAlive): string[] {
    const here = hostname();
    const writing = new Set(this.#writers.keys());
    const stale = this.#db
      .prepare<[], { id: string; owner_pid: number | null; owner_host: string | null }>(
        `SELECT id, owner_pid, owner_host FROM runs WHERE status = 'running'`,
      )
      .all()
      .filter((r) => !writing.has(r.id))
      .filter((r) => r.owner_pid === null || (r.owner_host === here && !isAlive(r.owner_pid)))
      .map((r) => r.id);
    const mark = this.#db.prepare(
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
    const result = this.#db
      .prepare(
        `UPDATE runs SET status = 'running', finished_at = NULL, owner_pid = ?, owner_host = ?
         WHERE id = ? AND status = 'interrupted'`,
      )
      .run(owner.pid, owner.host, id);
    if (result.changes === 0) {
      const run = this.#runById(id);
      if (!run) throw new Error(`run ${id} is not in the store`);
      throw new Error(`run ${id} is ${run.status}; only an interrupted run can be resumed`);
    }
    return this.#runById(id)!;
  }

  /** Runs, newest first. */
  listRuns(options: ListRunsOptions = {}): RunSummary[] {
    const limit = Math.max(0, Math.floor(options.limit ?? 50));
    const rows = this.#db
      .prepare<[string | null, string | null, string | null, string | null, number], SummaryRow>(
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
      )
      .all(
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

  /**
   * A run by its id or by a unique prefix of it (like git). Undefined when nothing matches;
   * AmbiguousRunIdError when several runs do and none has exactly this id.
   */
  getRun(idOrPrefix: string): RunRecord | undefined {
    if (idOrPrefix === '') throw new Error('give a run id (or the first few characters of one)');
    const exact = this.#runById(idOrPrefix);
    if (exact) return exact;
    const matches = this.#db
      .prepare<[string, string], string>(
        'SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT 6',
      )
      .pluck()
      .all(idOrPrefix, idOrPrefix + MAX_CHAR);
    if (matches.length > 1) throw new AmbiguousRunIdError(idOrPrefix, matches);
    return matches[0] === undefined ? undefined : this.#runById(matches[0]);
  }

  /** Deletes a run (exact id) with its events, snapshots and calls. Forks keep their events. */
  deleteRun(id: string): boolean {
    if (this.#writers.has(id))
      throw new Error(`run ${id} has an open event writer; close it first`);
    return this.#db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  #runById(id: string): RunRecord | undefined {
    const row = this.#db.prepare<[string], RunRow>('SELECT * FROM runs WHERE id = ?').get(id);
    return row && toRunRecord(row);
  }

  /**
   * The writer that appends a run's events. One writer per run at a time; the run must exist.
   * Readers (`events`, `lastSeq`) see only what has been flushed. `close(finish)` records
   * the run's end together with its last events and its run.finished.
   */
  eventWriter(runId: string, options: EventWriterOptions = {}): EventWriter {
    if (!this.#runById(runId)) throw new Error(`run ${runId} is not in the store; create it first`);
    if (this.#writers.has(runId)) throw new Error(`run ${runId} already has an open event writer`);
    const writer = new BufferedEventWriter(
      runId,
      (rows, finish) => this.#writeBatch(runId, rows, finish),
      options,
      () => this.#writers.delete(runId),
    );
    this.#writers.set(runId, writer);
    return writer;
  }

  /** A run's events in seq order, exactly as they were pushed. */
  events(runId: string, query: EventQuery = {}): RunEvent[] {
    const types = query.types ? JSON.stringify(query.types) : null;
    const bodies = this.#readEvents.all(
      runId,
      query.fromSeq ?? 0,
      query.toSeq ?? Number.MAX_SAFE_INTEGER,
      types,
      types,
    );
    return bodies.map((body) => JSON.parse(body) as RunEvent);
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

  /**
   * Appends a model answer to the run's record of calls under the request's cassette key
   * (`requestKey(request)`). The request is stored normalized (images as hashes), the answer
   * with only the fields a cassette keeps.
   */
  recordCall(
    runId: string,
    key: string,
    request: NormalizedRequest | ChatRequest,
    response: RecordedResponse | ChatResult,
  ): void {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      throw new Error(`call key must be a sha256 hex string (requestKey), got "${key}"`);
    }
    const recorded: RecordedResponse = {
      text: response.text,
      usage: {
        promptTokens: response.usage.promptTokens,
        completionTokens: response.usage.completionTokens,
      },
      model: response.model,
    };
    if (response.finishReason !== undefined) recorded.finishReason = response.finishReason;
    if (response.simulated) recorded.simulated = true;
    this.#db
      .transaction(() =>
        this.#appendCall(runId, key, canonicalJson(normalizeRequest(request)), recorded),
      )
      .immediate();
  }

  /** Adds an answer to a request's row of the record, creating the row on its first answer. */
  #appendCall(runId: string, key: string, requestJson: string, recorded: unknown): void {
    const existing = this.#db
      .prepare<[string, string], string>('SELECT responses FROM calls WHERE run_id = ? AND key = ?')
      .pluck()
      .get(runId, key);
    if (existing === undefined) {
      this.#db
        .prepare('INSERT INTO calls (run_id, key, request, responses) VALUES (?, ?, ?, ?)')
        .run(runId, key, this.#clean(requestJson), this.#clean(JSON.stringify([recorded])));
    } else {
      this.#db
        .prepare('UPDATE calls SET responses = ? WHERE run_id = ? AND key = ?')
        .run(
          this.#clean(JSON.stringify([...(JSON.parse(existing) as unknown[]), recorded])),
          runId,
          key,
        );
    }
  }

  /**
   * Appends an expert model's answer to the run's record of calls under `expertKey(request)`.
   * Bytes the expert returned (a painted image) are kept once in the blobs table.
   */
  recordExpertCall(
    runId: string,
    request: ExpertRequest,
    result: ExpertResult,
    key: string = expertKey(request),
  ): void {
    this.#db
      .transaction(() => {
        const recorded = toRecordedExpert(result, (blob) => this.putBlob(blob.bytes, blob.mime));
        this.#appendCall(runId, key, canonicalJson(normalizeExpertRequest(request)), recorded);
      })
      .immediate();
  }

  /**
   * The run's model and expert calls as a cassette file (the format `Cassette.toJSON` writes
   * and `Cassette.fromJSON` reads), with the bytes expert answers returned, so the run replays
   * with no key.
   */
  callRecord(runId: string): CassetteFile {
    const rows = this.#db
      .prepare<[string], { key: string; request: string; responses: string }>(
        'SELECT key, request, responses FROM calls WHERE run_id = ? ORDER BY key',
      )
      .all(runId)
      .map((row) => ({ key: row.key, request: JSON.parse(row.request), responses: row.responses }));
    const experts = rows.filter((row) => isExpertRequest(row.request));
    const file: CassetteFile = {
      format: 'society-cassette',
      version: 1,
      entries: rows
        .filter((row) => !isExpertRequest(row.request))
        .map((row) => ({
          key: row.key,
          request: row.request as NormalizedRequest,
          responses: JSON.parse(row.responses) as RecordedResponse[],
        })),
    };
    if (experts.length > 0) {
      file.experts = experts.map((row) => ({
        key: row.key,
        request: row.request as NormalizedExpertRequest,
        responses: JSON.parse(row.responses) as RecordedExpertResponse[],
      }));
      file.blobs = {};
      for (const entry of file.experts) {
        for (const response of entry.responses) {
          const output = response.output;
          if (typeof output !== 'object' || Array.isArray(output)) continue;
          const blob = this.getBlob(output.$blob);
          if (blob)
            file.blobs[output.$blob] = {
              mime: blob.mime,
              base64: Buffer.from(blob.bytes).toString('base64'),
            };
        }
      }
    }
    // Through Cassette, so the result is validated and laid out exactly as a cassette file.
    return Cassette.fromJSON(file, `the calls of run ${runId}`).toJSON();
  }

  /**
   * Saves a graph under its document name. A new version is added only when the content hash
   * (`graphHash`) differs from the latest version's; a change of formatting alone keeps the
   * latest version and its text.
   */
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

  /** Stores bytes once under their sha256 hex, which it returns. */
  putBlob(bytes: Uint8Array, mime: string): string {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    this.#db
      .prepare('INSERT OR IGNORE INTO blobs (sha256, mime, bytes) VALUES (?, ?, ?)')
      .run(sha256, mime, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return sha256;
  }

  getBlob(sha256: string): { bytes: Uint8Array; mime: string } | undefined {
    const row = this.#db
      .prepare<[string], { mime: string; bytes: Buffer }>(
        'SELECT mime, bytes FROM blobs WHERE sha256 = ?',
      )
      .get(sha256);
    return row && { bytes: new Uint8Array(row.bytes), mime: row.mime };
  }

  /** A setting's value, or undefined. */
  getSetting(key: string): unknown {
    const value = this.#db
      .prepare<[string], string>('SELECT value FROM settings WHERE key = ?')
      .pluck()
      .get(key);
    return value === undefined ? undefined : JSON.parse(value);
  }

  /** Stores a JSON value. Refuses secret-looking names and values: keys do not go here. */
  setSetting(key: string, value: unknown): void {
    const hint = 'Keys live in environment variables or the OS keychain, never in settings.';
    if (isSecretFieldName(key)) throw new SecretRefusedError('setting', key, hint);
    const secret = findSecret(value);
    if (secret) throw new SecretRefusedError(`setting "${key}"`, secret, hint);
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`setting "${key}" must be a JSON value`);
    this.#db
      .prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, text);
  }

  deleteSetting(key: string): boolean {
    return this.#db.prepare('DELETE FROM settings WHERE key = ?').run(key).changes > 0;
  }

  /** Every setting, by key. */
  listSettings(): Record<string, unknown> {
    const settings: Record<string, unknown> = {};
    const rows = this.#db
      .prepare<[], { key: string; value: string }>('SELECT key, value FROM settings ORDER BY key')
      .all();
    for (const row of rows) settings[row.key] = JSON.parse(row.value);
    return settings;
  }

  /** Sets a model's price in US dollars per million input and output tokens. */
  setPrice(model: string, price: ModelPrice): void {
    for (const [name, value] of Object.entries(price)) {
      if (!Number.isFinite(value) || value < 0) {
        throw new Error(`price ${name} of ${model} must be a non-negative number, got ${value}`);
      }
    }
    this.#db
      .prepare(
        `INSERT INTO prices (model, input_per_million, output_per_million, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (model) DO UPDATE SET input_per_million = excluded.input_per_million,
           output_per_million = excluded.output_per_million, updated_at = excluded.updated_at`,
      )
      .run(model, price.inputPerMillion, price.outputPerMillion, Date.now());
  }

  getPrice(model: string): StoredPrice | undefined {
    return this.listPrices(model)[0];
  }

  /** Every price, by model (or just `model`'s). */
  listPrices(model?: string): StoredPrice[] {
    return this.#db
      .prepare<
        [string | null, string | null],
        {
          model: string;
          input_per_million: number;
          output_per_million: number;
          updated_at: number;
        }
      >('SELECT * FROM prices WHERE ? IS NULL OR model = ? ORDER BY model')
      .all(model ?? null, model ?? null)
      .map((row) => ({
        model: row.model,
        inputPerMillion: row.input_per_million,
        outputPerMillion: row.output_per_million,
        updatedAt: row.updated_at,
      }));
  }

  /** The stored prices as a table for `priceFor` and `callCost` (app/costs/prices.ts). */
  priceTable(): PriceTable {
    const table: PriceTable = {};
    for (const price of this.listPrices()) {
      table[price.model] = {
        inputPerMillion: price.inputPerMillion,
        outputPerMillion: price.outputPerMillion,
      };
    }
    return table;
  }

  deletePrice(model: string): boolean {
    return this.#db.prepare('DELETE FROM prices WHERE model = ?').run(model).changes > 0;
  }

  /**
   * Validates and stores (or replaces) a provider profile. Refuses any field that could hold
   * a secret (`key`, `apiKey`, `api_key`, `token`, `secret`, `password`, …): a profile names the
   * environment variable holding the key (`apiKeyEnv`), never the key.
   */
  saveProviderProfile(input: unknown): ProviderProfile {
    const profile = parseProviderProfile(input);
    this.#db
      .prepare(
        `INSERT INTO provider_profiles (name, kind, base_url, api_key_env, concurrency) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
           api_key_env = excluded.api_key_env, concurrency = excluded.concurrency`,
      )
      .run(
        profile.name,
        profile.kind,
        profile.baseUrl ?? null,
        profile.apiKeyEnv ?? null,
        profile.concurrency ?? null,
      );
    return profile;
  }

  getProviderProfile(name: string): ProviderProfile | undefined {
    return this.listProviderProfiles(name)[0];
  }

  /** Every stored profile, by name (or just `name`'s). */
  listProviderProfiles(name?: string): ProviderProfile[] {
    return this.#db
      .prepare<
        [string | null, string | null],
        {
          name: string;
          kind: ProviderProfile['kind'];
          base_url: string | null;
          api_key_env: string | null;
          concurrency: number | null;
        }
      >('SELECT * FROM provider_profiles WHERE ? IS NULL OR name = ? ORDER BY name')
      .all(name ?? null, name ?? null)
      .map((row) =>
        withDefined<ProviderProfile>(
          { name: row.name, kind: row.kind },
          {
            baseUrl: row.base_url ?? undefined,
            apiKeyEnv: row.api_key_env ?? undefined,
            concurrency: row.concurrency ?? undefined,
          },
        ),
      );
  }

  deleteProviderProfile(name: string): boolean {
    return this.#db.prepare('DELETE FROM provider_profiles WHERE name = ?').run(name).changes > 0;
  }

  /** How the connection is set up, for `society doctor`-style checks and tests. */
  diagnostics(): {
    journalMode: string;
    synchronous: 'off' | 'normal' | 'full' | 'extra';
    foreignKeys: boolean;
    busyTimeoutMs: number;
    schemaVersion: number;
  } {
    const pragma = (name: string) => this.#db.pragma(name, { simple: true });
    const synchronous = ['off', 'normal', 'full', 'extra'] as const;
    return {
      journalMode: String(pragma('journal_mode')),
      synchronous: synchronous[Number(pragma('synchronous'))] ?? 'off',
      foreignKeys: pragma('foreign_keys') === 1,
      busyTimeoutMs: Number(pragma('busy_timeout')),
      schemaVersion: Number(pragma('user_version')),
    };
  }

  /**
   * Copies the WAL into the database file without blocking readers or writers. Call it after
   * a run, so the WAL does not grow across many runs while another process keeps reading.
   */
  checkpoint(): void {
    this.#db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Flushes and closes every open event writer, then the database. */
  close(): void {
    if (!this.#db.open) return;
    let failure: unknown;
    for (const writer of [...this.#writers.values()]) {
      try {
        writer.close();
      } catch (error) {
        failure ??= error;
      }
    }
    this.#db.close();
    if (failure) throw failure;
  }
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

/**
 * Opens (creating if needed) the run store at `file`, or an in-memory one for ':memory:'.
 * Creates the file's directory (private to the user: runs hold prompts and answers), sets
 * WAL, synchronous=FULL, foreign keys and a 5 s busy timeout, and migrates the schema.
 * Throws NewerSchemaError for a database written by a newer build.
 */
export function openRunStore(file: string, options: { redactor?: Redactor } = {}): RunStore {
  const memory = file === ':memory:';
  if (!memory && !file.startsWith('file:')) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  }
  const db = new Database(file, { timeout: 5000 });
  try {
    if (!memory) db.pragma('journal_mode = WAL');
    // better-sqlite3 builds SQLite so that WAL defaults to NORMAL, which can lose the last
    // commits on power loss; FULL syncs the WAL on every commit (checklist R6).
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, memory ? 'the in-memory run store' : file);
    return new RunStore(db, file, options.redactor);
  } catch (error) {
    db.close();
    throw error;
  }
}
