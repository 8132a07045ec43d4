/**
 * Batched event writing. better-sqlite3 is synchronous and every commit under
 * `synchronous=FULL` waits for an fsync, so writing each event in its own transaction would
 * stall the engine on the disk dozens of times per model call. Events are buffered and written
 * together once the engine yields (setImmediate), and no sooner than `minIntervalMs` after the
 * commit before (an engine that yields after every event would otherwise still commit each one).
 * A paid answer is committed within the store's bounded wait, and a person's answer before
 * `push` returns. Every commit is shared by all the store's writers (group-commit.ts): runs
 * appending at the same time pay for one fsync together.
 */
import type { RunEvent, RunEventType } from '../runtime/events.ts';
import { GroupCommit, type GroupMember } from './group-commit.ts';
import type { RunFinish } from './store.ts';

/** One event as it is written: the whole event serialized once, when it was pushed. */
export interface EventRow {
  seq: number;
  type: RunEventType;
  time: number;
  body: string;
}

/**
 * Writes a batch in one transaction, with the run's final record when `finish` is given;
 * throws (writing nothing) if any row or the finish fails.
 */
export type BatchWrite = (rows: readonly EventRow[], finish?: RunFinish) => void;

/**
 * Event types written before `push` returns by default: a person's answer, which cannot be
 * asked again for free and is kept nowhere else. The run's end (`run.finished`) is held instead
 * and written by `close`, in the same transaction as the run's final record: a log never ends
 * with a run.finished the store does not know of.
 */
export const DURABLE_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'human.response',
]);

/** True for the event types in DURABLE_EVENT_TYPES. */
export function isDurableByDefault(event: RunEvent): boolean {
  return DURABLE_EVENT_TYPES.has(event.type);
}

/**
 * True for a live model answer (paid for): it is committed within the store's bounded wait
 * (`GroupCommit.maxWaitMs`), sharing one fsync with whatever the store's other writers pushed
 * meanwhile. Its call is already in the run's record of calls (written before the event, see
 * app/runtime/calls.ts), so a crash inside the wait loses no payment: resuming serves the call
 * from the record and writes the event again. A simulated answer or one replayed from a
 * cassette costs nothing to give again and waits for the next batch.
 */
export function isSoonByDefault(event: RunEvent): boolean {
  return event.type === 'model.response' && event.source === 'live';
}

export interface EventWriterOptions {
  /** Events to write before `push` returns. Defaults to `isDurableByDefault`. */
  durable?: (event: RunEvent) => boolean;
  /**
   * Events to commit within the store's bounded wait (a few ms), in a commit shared with every
   * writer of the store. Defaults to `isSoonByDefault`. `durable()` says when they are on disk.
   */
  soon?: (event: RunEvent) => boolean;
  /**
   * Told at once when a write this writer did not ask for at that moment (a background commit,
   * or one another writer of the store made) fails. Either way the failure is thrown again by
   * the next `push`, `flush` or `close`.
   */
  onError?: (error: Error) => void;
  /**
   * Buffered events that force a synchronous write. Default 1,000: a run that never yields
   * (every answer simulated) writes in batches of this size; each commit waits for an fsync, so
   * smaller batches cost the run that time more often, and larger ones only cost memory.
   */
  maxBuffered?: number;
  /**
   * Buffered text (the events' JSON, in UTF-16 code units) that forces a synchronous write
   * however few the events, so long prompts do not pile up in memory. Default 1 MiB.
   */
  maxBufferedChars?: number;
  /**
   * The least time between two background writes, in ms: what a crash can lose at most of the
   * events that are neither durable nor soon. Default 25.
   */
  minIntervalMs?: number;
}

/** Appends one run's events to the store. Get one from `RunStore.eventWriter`. */
export interface EventWriter {
  readonly runId: string;
  /**
   * Buffers the event and schedules a write: at once (with everything buffered before it, and
   * what the store's other writers buffered) when the event is durable or the buffer is full,
   * within the store's bounded wait when it is soon, else in the next background batch. Throws
   * if the event belongs to another run, the writer is closed, or an earlier write failed.
   */
  push(event: RunEvent): void;
  /** Writes everything buffered except a held run.finished, in one transaction. */
  flush(): void;
  /**
   * Resolves once every event pushed so far (but a held run.finished) is on disk, within the
   * store's bounded wait; rejects if their write fails. For a caller that must not go on before
   * its events are stored, without waiting for a flush of its own.
   */
  durable(): Promise<void>;
  /**
   * Writes everything buffered, the held run.finished included, and records `finish` as the
   * run's end in the same transaction; then releases the writer. Further pushes throw.
   * Closing twice is a no-op.
   */
  close(finish?: RunFinish): void;
  /** Events buffered and not yet written. */
  readonly pending: number;
  /** Events written so far. */
  readonly written: number;
  /** Transactions that carried this writer's events so far. */
  readonly batches: number;
}

/**
 * The writer behind `RunStore.eventWriter`, one member of the store's `GroupCommit`. A failed
 * write keeps its events buffered (a busy database may succeed on retry; a duplicate seq fails
 * again, loudly), and `push` refuses new events until a `flush` succeeds, so the log never gets
 * a gap. Rows are written in push order, so what is on disk is always a prefix of the log.
 */
export class BufferedEventWriter implements EventWriter, GroupMember {
  readonly runId: string;
  readonly #write: BatchWrite;
  readonly #group: GroupCommit;
  readonly #durable: (event: RunEvent) => boolean;
  readonly #soon: (event: RunEvent) => boolean;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #maxBuffered: number;
  readonly #maxBufferedChars: number;
  readonly #minInterval: number;
  readonly #onClose: () => void;
  #buffer: EventRow[] = [];
  /** The length of the buffered rows' bodies. */
  #bufferedChars = 0;
  /** The run.finished event, held for `close`. */
  #final: EventRow | undefined;
  /** Set by `close`: the next write includes the held run.finished and this finish. */
  #closing: { finish: RunFinish | undefined } | undefined;
  /** True while this writer's own synchronous commit runs (its failure is thrown, not told). */
  #committing = false;
  /** Callers of `durable()` waiting for `written` to reach their count. */
  #waiters: { count: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  #failure: Error | undefined;
  #closed = false;
  #written = 0;
  /** Rows known to be on disk (their commit's fsync done). */
  #synced = 0;
  #batches = 0;

  /**
   * `group` is the store's; a writer made alone (tests) gets a group of its own, whose
   * transaction is the batch write's.
   */
  constructor(
    runId: string,
    write: BatchWrite,
    options: EventWriterOptions,
    onClose: () => void,
    group: GroupCommit = new GroupCommit((fn) => fn()),
  ) {
    this.runId = runId;
    this.#write = write;
    this.#group = group;
    this.#durable = options.durable ?? isDurableByDefault;
    this.#soon = options.soon ?? isSoonByDefault;
    this.#onError = options.onError;
    this.#maxBuffered = Math.max(1, options.maxBuffered ?? 1000);
    this.#maxBufferedChars = Math.max(1, options.maxBufferedChars ?? 1024 * 1024);
    this.#minInterval = Math.max(0, options.minIntervalMs ?? 25);
    this.#onClose = onClose;
  }

  get pending(): number {
    return this.#buffer.length + (this.#final ? 1 : 0);
  }

  get written(): number {
    return this.#written;
  }

  get batches(): number {
    return this.#batches;
  }

  push(event: RunEvent): void {
    if (this.#closed) throw new Error(`the event writer of run ${this.runId} is closed`);
    if (this.#failure) throw this.#failure;
    if (event.runId !== this.runId) {
      throw new Error(
        `event ${event.seq} (${event.type}) belongs to run ${event.runId}, not ${this.runId}`,
      );
    }
    // Serialized now, so the stored event is the one pushed even if the caller mutates it later.
    const row = { seq: event.seq, type: event.type, time: event.time, body: JSON.stringify(event) };
    if (event.type === 'run.finished') {
      this.#final = row;
      return;
    }
    this.#buffer.push(row);
    this.#bufferedChars += row.body.length;
    this.#group.enlist(this);
    if (
      this.#durable(event) ||
      this.#buffer.length >= this.#maxBuffered ||
      this.#bufferedChars >= this.#maxBufferedChars
    )
      // A full buffer is a batch like any other: committed now, its fsync shared and later.
      this.#commitNow(this.#durable(event));
    else if (this.#soon(event)) this.#group.commitBy(performance.now() + this.#group.maxWaitMs);
    // Background batches: once the engine yields, and no sooner than the interval after the
    // last commit (an engine that yields after every event would otherwise commit each one).
    else this.#group.commitBy(this.#group.lastCommit + this.#minInterval);
  }

  flush(): void {
    if (this.#buffer.length === 0) {
      this.#failure = undefined;
      return;
    }
    this.#group.enlist(this);
    this.#commitNow(true);
  }

  durable(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    const count = this.#written + this.#buffer.length;
    if (this.#synced >= count) return Promise.resolve();
    this.#group.commitBy(performance.now() + this.#group.maxWaitMs);
    return new Promise((resolve, reject) => this.#waiters.push({ count, resolve, reject }));
  }

  close(finish?: RunFinish): void {
    if (this.#closed) return;
    try {
      if (this.#buffer.length === 0 && !this.#final && !finish) this.#failure = undefined;
      else {
        this.#closing = { finish };
        this.#group.enlist(this);
        this.#commitNow(true);
      }
    } finally {
      this.#closed = true;
      this.#group.leave(this);
      this.#rejectWaiters(new Error(`the event writer of run ${this.runId} is closed`));
      this.#onClose();
    }
  }

  /**
   * Commits the store's pending rows, this writer's among them (fsynced before returning when
   * `fsync`); throws this writer's failure.
   */
  #commitNow(fsync: boolean): void {
    this.#committing = true;
    try {
      this.#group.commit(fsync);
    } finally {
      this.#committing = false;
    }
    if (this.#failure) throw this.#failure;
  }

  /** Part of the group's commit: writes the buffer (and, when closing, the end). */
  writeBuffered(): number {
    const closing = this.#closing;
    const rows = closing && this.#final ? [...this.#buffer, this.#final] : this.#buffer;
    if (rows.length === 0 && !closing?.finish) return 0;
    this.#write(rows, closing?.finish);
    return rows.length;
  }

  /** Told by the group how its commit went for this writer. */
  settle(outcome: { written: number; synced: boolean } | { error: Error }): void {
    if ('error' in outcome) {
      this.#fail(outcome.error);
      return;
    }
    this.#buffer = [];
    this.#bufferedChars = 0;
    if (this.#closing) this.#final = undefined;
    this.#failure = undefined;
    this.#written += outcome.written;
    if (outcome.written > 0) this.#batches++;
    if (outcome.synced) this.synced({ written: this.#written });
  }

  /** Told by the group when an fsync made its commits up to `written` rows durable. */
  synced(outcome: { written: number } | { error: Error }): void {
    if ('error' in outcome) {
      this.#fail(outcome.error);
      return;
    }
    this.#synced = Math.max(this.#synced, outcome.written);
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (waiter.count <= this.#synced) waiter.resolve();
      else this.#waiters.push(waiter);
    }
  }

  #fail(error: Error): void {
    this.#failure = error;
    this.#rejectWaiters(error);
    // The caller of a synchronous commit hears of it by the throw; anyone else is told now.
    if (!this.#committing) this.#onError?.(error);
  }

  #rejectWaiters(error: Error): void {
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) waiter.reject(error);
  }
}
