/**
 * Retries for model calls. Providers make exactly one attempt; the engine wraps each call in
 * `callWithRetry`, which owns the per-attempt timeout, the backoff and the give-up message.
 */
import { abortError, isAbortError, ProviderError } from './types.ts';

/** How hard to try a model call. */
export interface RetryPolicy {
  /** Total tries, the first one included (so 1 means no retry). */
  attempts: number;
  /** Backoff base: the jitter ceiling before the second attempt. */
  baseMs: number;
  /**
   * Longest wait between two attempts: the jitter ceiling never grows past this, and a server
   * that asks for a longer wait (Retry-After) ends the call at once rather than holding it.
   * So a call lasts at most `attempts × timeoutMs + (attempts − 1) × maxMs`.
   */
  maxMs: number;
  /** Per-attempt timeout; a timed-out attempt is retried like a network error. */
  timeoutMs: number;
}

/** The policy used when a society does not set its own. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  attempts: 4,
  baseMs: 500,
  maxMs: 30_000,
  timeoutMs: 120_000,
});

/** What `onRetry` is told before the wait that precedes the next attempt. */
export interface RetryInfo {
  /** The attempt that just failed, counting from 1. */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  error: Error;
}

export interface RetryOptions {
  /** The run's signal: once it aborts nothing is retried and the call rejects with AbortError. */
  signal: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /** Source of jitter in [0, 1); injectable so tests are deterministic. */
  random?: () => number;
  /** Abortable wait; injectable so tests need not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * A model call that did not answer within the per-attempt timeout. It is a retryable
 * ProviderError named 'TimeoutError' so that it reads as a timeout, not a cancellation.
 */
export class CallTimeoutError extends ProviderError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, cause?: unknown) {
    super(`model call timed out after ${timeoutMs} ms`, {
      retryable: true,
      code: 'timeout',
      cause,
    });
    this.name = 'TimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** Thrown when every allowed attempt failed with a retryable error; `cause` is the last one. */
export class RetryExhaustedError extends Error {
  /** How many attempts were made. */
  readonly attempts: number;
  /** HTTP status of the last failure, when there was one. */
  readonly status: number | undefined;
  constructor(attempts: number, lastError: Error) {
    const noun = attempts === 1 ? 'attempt' : 'attempts';
    super(`gave up after ${attempts} ${noun}: ${lastError.message}`, { cause: lastError });
    this.name = 'RetryExhaustedError';
    this.attempts = attempts;
    this.status = lastError instanceof ProviderError ? lastError.status : undefined;
  }
}

/**
 * Thrown when the server asked to wait longer before the next attempt (Retry-After,
 * retry-after-ms, a loading model's estimate) than the policy's `maxMs` allows. Waiting less
 * would only be refused again, and waiting that long is what the run's owner ruled out, so the
 * call ends at once and says which setting to raise.
 */
export class RetryAfterTooLongError extends Error {
  /** The wait the server asked for. */
  readonly retryAfterMs: number;
  /** The longest wait the policy allows. */
  readonly maxMs: number;
  /** HTTP status of the failure, when there was one. */
  readonly status: number | undefined;
  constructor(lastError: Error, retryAfterMs: number, maxMs: number) {
    super(
      `${lastError.message}; the server asked to wait ${formatWait(retryAfterMs)} before trying again, longer than settings.retry.maxMs (${formatWait(maxMs)})`,
      { cause: lastError },
    );
    this.name = 'RetryAfterTooLongError';
    this.retryAfterMs = retryAfterMs;
    this.maxMs = maxMs;
    this.status = lastError instanceof ProviderError ? lastError.status : undefined;
  }
}

/** `120 s` or `200 ms`: a wait as a person reads it. */
function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}

/**
 * Whether a failed attempt is worth repeating. ProviderErrors say so themselves; anything
 * else a provider throws is, by the provider contract, treated as a network error.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ProviderError) return error.retryable;
  return true;
}

/**
 * The wait before the attempt after `attempt` failed: the server's own suggestion when it
 * gave one (it knows its rate limits better than we do), otherwise "full jitter" exponential
 * backoff, which spreads concurrent callers out instead of having them retry in lockstep.
 * Never more than `policy.maxMs` (callWithRetry gives up rather than wait less than asked).
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  error: unknown,
  random: () => number = Math.random,
): number {
  if (error instanceof ProviderError && error.retryAfterMs !== undefined) {
    return Math.min(policy.maxMs, Math.max(0, error.retryAfterMs));
  }
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Wait `ms`, rejecting with AbortError as soon as `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal.reason));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal.reason));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settle with `promise`, or reject with AbortError (or what `toError` makes of the signal's
 * reason) as soon as `signal` aborts. This keeps a
 * provider that ignores its signal from holding the engine past a timeout or a cancel.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  toError: (reason: unknown) => unknown = abortError,
): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(toError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(toError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** One attempt's signal, whether it timed out, and how to let go of the run's signal. */
interface AttemptDeadline {
  readonly signal: AbortSignal;
  readonly timedOut: boolean;
  dispose(): void;
}

/**
 * The signal of one attempt: it aborts with the run's reason when the run is cancelled, or with
 * a TimeoutError after `timeoutMs`. Made by hand rather than with `AbortSignal.any` and
 * `AbortSignal.timeout`, which tie every attempt to the run's signal through weak references
 * and finalizers that only the garbage collector clears: with many calls in flight that cost
 * showed on every call. Disposing clears the timer and the listener at once.
 */
function attemptDeadline(runSignal: AbortSignal, timeoutMs: number): AttemptDeadline {
  const controller = new AbortController();
  let timedOut = false;
  const onRunAbort = () => controller.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // Like AbortSignal.timeout's: a pending deadline alone does not keep the process alive.
  timer.unref?.();
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAbort);
    },
  };
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Run `attempt` until it succeeds, fails with a non-retryable error, or `policy.attempts`
 * tries are used up. Each try gets its own signal that aborts on run cancel or after
 * `policy.timeoutMs`.
 *
 * Rejects with: an AbortError once the run signal aborts (never retried); the error itself
 * when it is not retryable; a `RetryAfterTooLongError` when the server asked to wait longer
 * than `policy.maxMs`; a `RetryExhaustedError` (message "gave up after N attempts: …", last
 * error as `cause`) when every attempt failed.
 */
export async function callWithRetry<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  policy: RetryPolicy,
  opts: RetryOptions,
): Promise<T> {
  const runSignal = opts.signal;
  const attempts = Math.max(1, Math.floor(policy.attempts));
  const random = opts.random ?? Math.random;
  const sleep = opts.sleep ?? abortableSleep;

  for (let n = 1; ; n++) {
    if (runSignal.aborted) throw abortError(runSignal.reason);
    const deadline = attemptDeadline(runSignal, policy.timeoutMs);
    let error: Error;
    try {
      return await raceAbort(attempt(deadline.signal), deadline.signal);
    } catch (caught) {
      // The run's cancel wins over everything: whatever the attempt threw, it was cancelled.
      if (runSignal.aborted) throw isAbortError(caught) ? caught : abortError(runSignal.reason);
      error = deadline.timedOut ? new CallTimeoutError(policy.timeoutMs, caught) : toError(caught);
    } finally {
      deadline.dispose();
    }
    if (!isRetryable(error)) throw error;
    if (n >= attempts) throw new RetryExhaustedError(n, error);
    const asked = error instanceof ProviderError ? error.retryAfterMs : undefined;
    if (asked !== undefined && asked > policy.maxMs) {
      throw new RetryAfterTooLongError(error, asked, policy.maxMs);
    }

    const delayMs = retryDelayMs(n, policy, error, random);
    opts.onRetry?.({ attempt: n, delayMs, error });
    try {
      await sleep(delayMs, runSignal);
    } catch (caught) {
      if (runSignal.aborted) throw isAbortError(caught) ? caught : abortError(runSignal.reason);
      throw caught;
    }
  }
}

/**
 * Parse a server's wait hint: `retry-after-ms` (OpenAI's precise header) first, then the
 * standard `Retry-After`, which is either delay-seconds or an HTTP date.
 */
export function parseRetryAfterMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}
