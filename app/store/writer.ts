/**
 * Batched event writing. better-sqlite3 is synchronous and every commit under
 * `synchronous=FULL` waits for an fsync, so writing each event in its own transaction would
 * stall the engine on the disk dozens of times per model call. Events are buffered and written
 * together once the engine yields (setImmediate), and no sooner than `minIntervalMs` after the
 * write before (an engine that yields after every event would otherwise still commit each one);
 * only the few events that record something paid for or irreplaceable are written before `push`
 * returns.
 */
import type { RunEvent, RunEventType } from '../runtime/events.ts';
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
 * Event types written before `push` returns by default: a model answer (paid for) and a
 * person's answer (cannot be asked again for free), so a crash never loses them. A simulated
 * answer or one replayed from a cassette costs nothing to give again and waits for the next
 * batch (a 975-call simulated run would otherwise wait on the disk 975 times). The run's
 * end (`run.finished`) is held instead and written by `close`, in the same transaction as the
 * run's final record: a log never ends with a run.finished the store does not know of.
 */
export const DURABLE_EVENT_TYPES: ReadonlySet<RunEventType> = new Set<RunEventType>([
  'model.response',
  'human.response',
]);

/** True for the event types in DURABLE_EVENT_TYPES, model answers only when live. */
export function isDurableByDefault(event: RunEvent): boolean {
  if (event.type === 'model.response') return event.source === 'live';
  return DURABLE_EVENT_TYPES.has(event.type);
}

export interface EventWriterOptions {
  /** Events to write before `push` returns. Defaults to `isDurableByDefault`. */
  durable?: (event: RunEvent) => boolean;
  /**
   * Told at once when a background (setImmediate) write fails. Either way the failure is
   * thrown again by the next `push`, `flush` or `close`.
   */
  onError?: (error: Error) => void;
  /**
   * Buffered events that force a synchronous write. Default 100: a run that never yields (every
   * answer simulated) writes in batches of this size, and larger ones only cost memory.
   */
  maxBuffered?: number;
  /**
   * The least time between two background writes, in ms: what a crash can lose at most of the
   * events that are not durable. Default 25.
   */
  minIntervalMs?: number;
}

/** Appends one run's events to the store. Get one from `RunStore.eventWriter`. */
export interface EventWriter {
  readonly runId: string;
  /**
   * Buffers the event and schedules a write, or writes at once (with everything buffered
   * before it) when the event is durable or the buffer is full. Throws if the event belongs
   * to another run, the writer is closed, or an earlier write failed.
   */
  push(event: RunEvent): void;
  /** Writes everything buffered except a held run.finished, in one transaction. */
  flush(): void;
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
  /** Transactions committed so far (one per non-empty flush). */
  readonly batches: number;
}

/**
 * The writer behind `RunStore.eventWriter`. A failed write keeps its events buffered (a busy
 * database may succeed on retry; a duplicate seq fails again, loudly), and `push` refuses new
 * events until a `flush` succeeds, so the log never gets a gap.
 */
export class BufferedEventWriter implements EventWriter {
  readonly runId: string;
  readonly #write: BatchWrite;
  readonly #durable: (event: RunEvent) => boolean;
  readonly #onError: ((error: Error) => void) | undefined;
  readonly #maxBuffered: number;
  readonly #minInterval: number;
  readonly #onClose: () => void;
  #buffer: EventRow[] = [];
  /** The run.finished event, held for `close`. */
  #final: EventRow | undefined;
  /** Cancels the scheduled background write. */
  #scheduled: (() => void) | undefined;
  /** When the last write was committed (performance.now()). */
  #lastCommit = Number.NEGATIVE_INFINITY;
  #failure: Error | undefined;
  #closed = false;
  #written = 0;
  #batches = 0;

  constructor(runId: string, write: BatchWrite, options: EventWriterOptions, onClose: () => void) {
    this.runId = runId;
    this.#write = write;
    this.#durable = options.durable ?? isDurableByDefault;
    this.#onError = options.onError;
    this.#maxBuffered = Math.max(1, options.maxBuffered ?? 100);
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
    if (this.#durable(event) || this.#buffer.length >= this.#maxBuffered) this.flush();
    else this.#scheduled ??= this.#schedule();
  }

  /** A background write once the engine yields, or once the interval since the last is over. */
  #schedule(): () => void {
    const wait = this.#lastCommit + this.#minInterval - performance.now();
    if (wait <= 0) {
      const immediate = setImmediate(this.#flushInBackground);
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(this.#flushInBackground, wait);
    return () => clearTimeout(timer);
  }

  flush(): void {
    this.#commit(false);
  }

  close(finish?: RunFinish): void {
    if (this.#closed) return;
    try {
      this.#commit(true, finish);
    } finally {
      this.#closed = true;
      this.#onClose();
    }
  }

  /** Writes the buffer (and, when closing, the held run.finished and the finish). */
  #commit(closing: boolean, finish?: RunFinish): void {
    this.#scheduled?.();
    this.#scheduled = undefined;
    const rows = closing && this.#final ? [...this.#buffer, this.#final] : this.#buffer;
    if (rows.length === 0 && !finish) {
      this.#failure = undefined;
      return;
    }
    try {
      this.#write(rows, finish);
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      throw this.#failure;
    }
    this.#buffer = [];
    if (closing) this.#final = undefined;
    this.#failure = undefined;
    this.#written += rows.length;
    if (rows.length > 0) {
      this.#batches++;
      this.#lastCommit = performance.now();
    }
  }

  readonly #flushInBackground = (): void => {
    this.#scheduled = undefined;
    try {
      this.flush();
    } catch (error) {
      // Thrown from a setImmediate callback it would crash the process; the caller hears of it
      // through onError now and from its next push, flush or close.
      this.#onError?.(error as Error);
    }
  };
}
