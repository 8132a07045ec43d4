/**
 * The durable run store: one SQLite file holding the graph library, every run with its event
 * log, the model calls a run made (so it can be replayed or resumed with no key), images,
 * settings, prices and provider profiles. Keys are never stored (see secrets.ts).
 *
 * One process writes a run at a time; the CLI and the desktop app may share the file, which
 * WAL mode and the busy timeout allow.
 *
 * `RunStore` is the one door to it; each table's queries live in tables/, one module a table.
 */

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ModelPrice, PriceTable } from '../costs/prices.ts';
import type { Rubric } from '../eval/rubrics.ts';
import type {
  EvalItemRecord,
  EvalRating,
  EvalRecord,
  EvalStatus,
  RatingRecord,
} from '../eval/types.ts';
import type {
  CassetteFile,
  NormalizedRequest,
  NormalizedToolRequest,
  RecordedResponse,
  RecordedToolResult,
} from '../providers/cassette.ts';
import type { ExpertRequest, ExpertResult } from '../providers/expert-types.ts';
import { Redactor } from '../providers/secrets.ts';
import type { ToolDefinition } from '../providers/tools.ts';
import type { ChatRequest, ChatResult, ProviderProfile } from '../providers/types.ts';
import type { RunEvent } from '../runtime/events.ts';
import type { GraphDocument } from '../schema/document.ts';
import { migrate } from './migrations.ts';
import { BlobsTable } from './tables/blobs.ts';
import { CallsTable } from './tables/calls.ts';
import { type EvalItemUpdate, EvalsTable, type NewEval } from './tables/evals.ts';
import { EventLog, type EventQuery } from './tables/events.ts';
import {
  type GraphSummary,
  GraphsTable,
  type GraphVersion,
  type SavedGraph,
} from './tables/graphs.ts';
import { type ImportedRun, type ImportOutcome, RunImports } from './tables/imports.ts';
import { InterviewsTable } from './tables/interviews.ts';
import { PricesTable, type StoredPrice } from './tables/prices.ts';
import { ProviderProfilesTable } from './tables/provider-profiles.ts';
import { type NewRatings, RatingsTable } from './tables/ratings.ts';
import {
  type ListRunsOptions,
  type NewRun,
  processAlive,
  type RunFinish,
  type RunOwner,
  type RunRecord,
  type RunSummary,
  thisProcess,
} from './tables/run-record.ts';
import { RunsTable } from './tables/runs.ts';
import { SettingsTable } from './tables/settings.ts';
import { SnapshotsTable } from './tables/snapshots.ts';
import type { BufferedEventWriter, EventWriter, EventWriterOptions } from './writer.ts';

export {
  AmbiguousEvalIdError,
  type EvalItemUpdate,
  type NewEval,
} from './tables/evals.ts';
export type { EventQuery } from './tables/events.ts';
export {
  type GraphSummary,
  type GraphVersion,
  graphHash,
  type SavedGraph,
} from './tables/graphs.ts';
export type { ImportedRun, ImportOutcome } from './tables/imports.ts';
export type { InterviewRecord, NewInterview } from './tables/interviews.ts';
export type { StoredPrice } from './tables/prices.ts';
export type { NewRatings } from './tables/ratings.ts';
export {
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
} from './tables/run-record.ts';

/**
 * A run store over one SQLite database. Synchronous, like better-sqlite3: every method returns
 * once its transaction has committed (and, with synchronous=FULL, reached the disk). Event
 * writers are the exception: they buffer, and their commits are shared (writer.ts).
 */
export class RunStore {
  /** The database file, or ':memory:'. */
  readonly path: string;
  readonly #db: Database.Database;
  readonly #runs: RunsTable;
  readonly #events: EventLog;
  readonly #snapshots: SnapshotsTable;
  readonly #blobs: BlobsTable;
  readonly #calls: CallsTable;
  readonly #graphs: GraphsTable;
  readonly #settings: SettingsTable;
  readonly #prices: PricesTable;
  readonly #profiles: ProviderProfilesTable;
  readonly #evals: EvalsTable;
  readonly #ratings: RatingsTable;
  readonly #imports: RunImports;
  /** Questions put to a run's members after the fact: side calls, apart from the run's record. */
  readonly interviews: InterviewsTable;

  /**
   * Scrubs every text the store writes of the key values it knows: events, run records,
   * recorded calls, snapshots and saved documents. Whoever learns of a key (a run's start, a
   * key entered in settings) tells it, so nothing written to the database or its WAL holds one.
   */
  readonly redactor: Redactor;

  /** Use `openRunStore`. */
  constructor(
    db: Database.Database,
    file: string,
    redactor: Redactor = new Redactor(),
    options: { groupCommitMs?: number } = {},
  ) {
    this.#db = db;
    this.path = file;
    this.redactor = redactor;
    // Every table that stores text a run or a user produced writes it through `clean`.
    const clean = (text: string) => this.redactor.text(text);
    const writers = new Map<string, BufferedEventWriter>();
    this.#runs = new RunsTable(db, clean, writers);
    this.#events = new EventLog(db, clean, this.#runs, writers, options.groupCommitMs);
    this.#snapshots = new SnapshotsTable(db, clean);
    this.#blobs = new BlobsTable(db);
    this.#calls = new CallsTable(db, clean, this.#blobs);
    this.#graphs = new GraphsTable(db, clean);
    this.#settings = new SettingsTable(db);
    this.#prices = new PricesTable(db);
    this.#profiles = new ProviderProfilesTable(db);
    this.#evals = new EvalsTable(db, clean);
    this.#ratings = new RatingsTable(db, clean);
    this.interviews = new InterviewsTable(db, clean);
    this.#imports = new RunImports(db, clean, this.#blobs, writers);
  }

  /** Runs `fn` in one transaction: everything it writes commits together, or nothing does. */
  atomically<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /**
   * `atomically` without stopping for the disk: the transaction commits at once (a killed
   * process loses nothing of it), and the promise resolves once an fsync off the event loop
   * has made it survive a power cut too, as the event writers' background commits do.
   */
  atomicallySoon(fn: () => void): Promise<void> {
    return this.#events.group.commitSoon(fn);
  }

  /** Records a new run as 'running' and returns it. */
  createRun(run: NewRun): RunRecord {
    return this.#runs.createRun(run);
  }

  /**
   * Records how a run ended. Only a 'running' or 'interrupted' run can be finished. A run
   * with an event writer is finished by `writer.close(finish)` instead, which stores its
   * run.finished event in the same transaction.
   */
  finishRun(id: string, finish: RunFinish): RunRecord {
    return this.#runs.finishRun(id, finish);
  }

  /**
   * Marks 'running' runs whose process is gone as 'interrupted' (a crash, a kill -9, a power
   * cut) and returns their ids; the finish time is the time of the run's last stored event.
   * A run owned by a live process, or by a process on another host (which cannot be checked
   * from here), is left alone, as is a run with an open writer in this store.
   */
  markInterrupted(isAlive: (pid: number) => boolean = processAlive): string[] {
    return this.#runs.markInterrupted(isAlive);
  }

  /** Takes an interrupted run up again in this process (`society resume`). */
  reopenRun(id: string, owner: RunOwner = thisProcess()): RunRecord {
    return this.#runs.reopenRun(id, owner);
  }

  /**
   * Takes in a finished run made in another store (a queue worker's): record, events, calls
   * and bytes in one transaction, scrubbed on the way in. The same run again does nothing; a
   * run cut off here is replaced by its finished version.
   */
  importRun(data: ImportedRun): ImportOutcome {
    return this.#imports.importRun(data);
  }

  /** Runs, newest first. */
  listRuns(options: ListRunsOptions = {}): RunSummary[] {
    return this.#runs.listRuns(options);
  }

  /**
   * A run by its id or by a unique prefix of it (like git). Undefined when nothing matches;
   * AmbiguousRunIdError when several runs do and none has exactly this id.
   */
  getRun(idOrPrefix: string): RunRecord | undefined {
    return this.#runs.getRun(idOrPrefix);
  }

  /** Deletes a run (exact id) with its events, snapshots and calls. Forks keep their events. */
  deleteRun(id: string): boolean {
    return this.#runs.deleteRun(id);
  }

  /**
   * The writer that appends a run's events. One writer per run at a time; the run must exist.
   * Readers (`events`, `lastSeq`) see only what has been flushed. `close(finish)` records
   * the run's end together with its last events and its run.finished.
   */
  eventWriter(runId: string, options: EventWriterOptions = {}): EventWriter {
    return this.#events.eventWriter(runId, options);
  }

  /**
   * Commits what every open event writer has buffered, in one transaction (one fsync), before
   * returning; held run.finished events wait for their writer's close.
   */
  flushEvents(): void {
    this.#events.flushWriters();
  }

  /** Transactions the event writers have committed, each shared by all of them, so far. */
  get eventCommits(): number {
    return this.#events.group.commits;
  }

  /** A run's events in seq order, exactly as they were pushed. */
  events(runId: string, query: EventQuery = {}): RunEvent[] {
    return this.#events.events(runId, query);
  }

  /** The highest stored seq of a run, or 0 when it has no events. */
  lastSeq(runId: string): number {
    return this.#events.lastSeq(runId);
  }

  /** Stores the engine state as of event `seq`; a second snapshot at the same seq throws. */
  saveSnapshot(runId: string, seq: number, state: unknown): void {
    this.#snapshots.saveSnapshot(runId, seq, state);
  }

  /** The latest snapshot at or before `atSeq` (default: the latest). */
  snapshot(runId: string, atSeq?: number): { seq: number; state: unknown } | undefined {
    return this.#snapshots.snapshot(runId, atSeq);
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
    this.#calls.recordCall(runId, key, request, response);
  }

  /**
   * Appends an expert model's answer to the run's record of calls under `expertKey(request)`.
   * Bytes the expert returned (a painted image) are kept once in the blobs table.
   */
  recordExpertCall(
    runId: string,
    request: ExpertRequest,
    result: ExpertResult,
    key?: string,
  ): void {
    this.#calls.recordExpertCall(runId, request, result, key);
  }

  /**
   * Appends a tool call's result to the run's record under `toolKey` (source, tool, canonical
   * arguments): resume, fork and replay serve it instead of calling the tool again.
   */
  recordToolCall(
    runId: string,
    request: Omit<NormalizedToolRequest, 'kind'>,
    result: RecordedToolResult,
  ): void {
    this.#calls.recordToolCall(runId, request, result);
  }

  /** Keeps the tools a source offered in the run, so a replay of the record opens no source. */
  recordToolList(runId: string, source: string, tools: ToolDefinition[]): void {
    this.#calls.recordToolList(runId, source, tools);
  }

  /**
   * The run's model and expert calls as a cassette file (the format `Cassette.toJSON` writes
   * and `Cassette.fromJSON` reads), with the bytes expert answers returned, so the run replays
   * with no key.
   */
  callRecord(runId: string): CassetteFile {
    return this.#calls.callRecord(runId);
  }

  /**
   * Saves a graph under its document name. A new version is added only when the content hash
   * (`graphHash`) differs from the latest version's; a change of formatting alone keeps the
   * latest version and its text.
   */
  saveGraph(document: GraphDocument, text: string): SavedGraph {
    return this.#graphs.saveGraph(document, text);
  }

  /** The library, by name. */
  listGraphs(): GraphSummary[] {
    return this.#graphs.listGraphs();
  }

  /** A graph by name or id: the given version, or the latest. */
  getGraph(nameOrId: string, version?: number): GraphVersion | undefined {
    return this.#graphs.getGraph(nameOrId, version);
  }

  /** Every version of a graph (by name or id), oldest first. */
  graphVersions(nameOrId: string): GraphVersion[] {
    return this.#graphs.graphVersions(nameOrId);
  }

  /** Removes a graph and all its versions from the library. Runs of it are kept. */
  deleteGraph(nameOrId: string): boolean {
    return this.#graphs.deleteGraph(nameOrId);
  }

  /** Stores bytes once under their sha256 hex, which it returns. */
  putBlob(bytes: Uint8Array, mime: string): string {
    return this.#blobs.putBlob(bytes, mime);
  }

  getBlob(sha256: string): { bytes: Uint8Array; mime: string } | undefined {
    return this.#blobs.getBlob(sha256);
  }

  /** A setting's value, or undefined. */
  getSetting(key: string): unknown {
    return this.#settings.getSetting(key);
  }

  /** Stores a JSON value. Refuses secret-looking names and values: keys do not go here. */
  setSetting(key: string, value: unknown): void {
    this.#settings.setSetting(key, value);
  }

  deleteSetting(key: string): boolean {
    return this.#settings.deleteSetting(key);
  }

  /** Every setting, by key. */
  listSettings(): Record<string, unknown> {
    return this.#settings.listSettings();
  }

  /** Sets a model's price in US dollars per million input and output tokens. */
  setPrice(model: string, price: ModelPrice): void {
    this.#prices.setPrice(model, price);
  }

  getPrice(model: string): StoredPrice | undefined {
    return this.#prices.getPrice(model);
  }

  /** Every price, by model (or just `model`'s). */
  listPrices(model?: string): StoredPrice[] {
    return this.#prices.listPrices(model);
  }

  /** The stored prices as a table for `priceFor` and `callCost` (app/costs/prices.ts). */
  priceTable(): PriceTable {
    return this.#prices.priceTable();
  }

  deletePrice(model: string): boolean {
    return this.#prices.deletePrice(model);
  }

  /**
   * Validates and stores (or replaces) a provider profile. Refuses any field that could hold
   * a secret (`key`, `apiKey`, `api_key`, `token`, `secret`, `password`, …): a profile names the
   * environment variable holding the key (`apiKeyEnv`), never the key.
   */
  saveProviderProfile(input: unknown): ProviderProfile {
    return this.#profiles.saveProviderProfile(input);
  }

  getProviderProfile(name: string): ProviderProfile | undefined {
    return this.#profiles.getProviderProfile(name);
  }

  /** Every stored profile, by name (or just `name`'s). */
  listProviderProfiles(name?: string): ProviderProfile[] {
    return this.#profiles.listProviderProfiles(name);
  }

  deleteProviderProfile(name: string): boolean {
    return this.#profiles.deleteProviderProfile(name);
  }

  /** Creates an eval, or reopens the one with its id (a rerun resumes it). */
  openEval(input: NewEval): EvalRecord {
    return this.#evals.openEval(input);
  }

  /** An eval by id or unique prefix (AmbiguousEvalIdError for several). */
  getEval(idOrPrefix: string): EvalRecord | undefined {
    return this.#evals.getEval(idOrPrefix);
  }

  /** Evals, newest first. */
  listEvals(limit?: number): EvalRecord[] {
    return this.#evals.listEvals(limit);
  }

  setEvalStatus(id: string, status: EvalStatus): void {
    this.#evals.setEvalStatus(id, status);
  }

  /** Records an item × variant: its run, score and cost. */
  putEvalItem(item: EvalItemUpdate): void {
    this.#evals.putEvalItem(item);
  }

  /** An eval's item records, by item then variant. */
  evalItems(evalId: string): EvalItemRecord[] {
    return this.#evals.evalItems(evalId);
  }

  /** The eval item a run answered, if it answered one. */
  evalItemOfRun(runId: string): EvalItemRecord | undefined {
    return this.#evals.evalItemOfRun(runId);
  }

  /** Forgets one item × variant's record, so the eval runs it again. */
  deleteEvalItem(evalId: string, item: number, variant: string, repeat = 0): boolean {
    return this.#evals.deleteEvalItem(evalId, item, variant, repeat);
  }

  /** Deletes an eval's records; its runs stay, with their ratings. */
  deleteEval(id: string): boolean {
    return this.#evals.deleteEval(id);
  }

  /** Attaches a rubric to an eval (or replaces its own), keeping everything it recorded. */
  setEvalRubric(id: string, rubric: Rubric): void {
    this.#evals.setEvalRubric(id, rubric);
  }

  /**
   * Stores one rater's scores of a run (by scale), replacing what the rater gave those scales
   * before; returns the run's ratings. The caller checks them against the rubric first.
   */
  putRatings(input: NewRatings): RatingRecord[] {
    return this.#ratings.putRatings(input);
  }

  /** A run's ratings, by rater then scale. */
  ratingsOfRun(runId: string): RatingRecord[] {
    return this.#ratings.ratingsOfRun(runId);
  }

  /** The ratings of an eval's items' runs, each with its item and variant. */
  evalRatings(evalId: string): EvalRating[] {
    return this.#ratings.evalRatings(evalId);
  }

  /** Deletes a run's ratings (one rater's, one scale's, or all); returns how many went. */
  deleteRatings(runId: string, which?: { rater?: string; scale?: string; agent?: string }): number {
    return this.#ratings.deleteRatings(runId, which);
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
    this.#events.flushWriters();
    this.#db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Flushes and closes every open event writer, then the database. */
  close(): void {
    if (!this.#db.open) return;
    let failure: unknown;
    try {
      this.#events.closeWriters();
    } catch (error) {
      failure = error;
    }
    this.#db.close();
    if (failure) throw failure;
  }
}

/**
 * Opens (creating if needed) the run store at `file`, or an in-memory one for ':memory:'.
 * Creates the file's directory (private to the user: runs hold prompts and answers), sets
 * WAL, synchronous=FULL, foreign keys and a 5 s busy timeout, and migrates the schema.
 * `groupCommitMs` bounds how long a paid answer waits for the commit it shares with the
 * store's other writers (default 2 ms; see group-commit.ts).
 * Throws NewerSchemaError for a database written by a newer build.
 */
export function openRunStore(
  file: string,
  options: { redactor?: Redactor; groupCommitMs?: number } = {},
): RunStore {
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
    return new RunStore(db, file, options.redactor, { groupCommitMs: options.groupCommitMs });
  } catch (error) {
    db.close();
    throw error;
  }
}
