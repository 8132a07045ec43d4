/**
 * Where an eval's queue lives: a Redis server named by `--queue redis://HOST:PORT`, the names
 * of its two BullMQ queues, and the timings that decide how soon a dead worker's job is taken
 * over. Reaching Redis is checked once, up front, so a wrong address ends the command with one
 * line instead of a client retrying forever.
 */
import type { Redis } from 'ioredis';

/** Every key this project puts in Redis starts with it. */
export const QUEUE_PREFIX = 'society';
/** One job per item × variant; workers run them. */
export const JOBS_QUEUE = 'eval-jobs';
/**
 * One job per served run (`society serve --queue`). A queue of its own: a served run, which a
 * client waits for, never waits behind an eval's hundreds of jobs.
 */
export const SERVED_QUEUE = 'served-runs';
/** One parent job per eval, released when its children finish; it adds up who ran what. */
export const EVALS_QUEUE = 'evals';

/**
 * A worker holds a lock on each job it runs and renews it every LOCK_MS / 2. A worker killed
 * mid-job stops renewing; once the lock has expired, the next stalled-job check (every
 * STALLED_CHECK_MS, run by every worker) puts the job back in the queue for another worker.
 * So a dead worker's job is taken over within LOCK_MS + STALLED_CHECK_MS (15 s by default).
 */
export const LOCK_MS = 10_000;
export const STALLED_CHECK_MS = 5_000;
/** How often one job may be taken over from a dead worker before it counts as failed. */
export const MAX_TAKEOVERS = 3;

/** Timings a worker runs with; tests shorten them through SOCIETY_QUEUE_LOCK_MS. */
export function queueTimings(env: NodeJS.ProcessEnv = process.env): {
  lockMs: number;
  stalledCheckMs: number;
} {
  const lock = Number(env.SOCIETY_QUEUE_LOCK_MS);
  if (Number.isInteger(lock) && lock >= 500)
    return { lockMs: lock, stalledCheckMs: Math.max(250, Math.round(lock / 2)) };
  return { lockMs: LOCK_MS, stalledCheckMs: STALLED_CHECK_MS };
}

/** A parsed `--queue` URL. */
export interface QueueAddress {
  url: string;
  /** The URL without a user name or password, for messages. */
  shown: string;
}

/** Reads `--queue`; the message names what is wrong. */
export function parseQueueUrl(text: string): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--queue ${text}: not a URL; give redis://HOST:PORT`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(`--queue ${text}: give a redis:// or rediss:// URL (redis://HOST:PORT)`);
  if (!url.hostname) throw new Error(`--queue ${text}: the URL names no host`);
  const shown = `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  return { url: text, shown };
}

/** Options for BullMQ's own connections (blocking ones need maxRetriesPerRequest null). */
export function bullConnection(address: QueueAddress) {
  return { url: address.url, maxRetriesPerRequest: null };
}

/**
 * Connects once, or throws `cannot reach Redis at …: ECONNREFUSED` (the cause in a word).
 * The client comes back open: the rate limiter uses it.
 */
export async function connectRedis(address: QueueAddress, timeoutMs = 3000): Promise<Redis> {
  let failure: Error | undefined;
  // Loaded here, so a command that never uses a queue does not load a Redis client.
  const { Redis } = await import('ioredis');
  const client = new Redis(address.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    // No reconnecting while we probe: a dead address fails at once.
    retryStrategy: () => null,
  });
  client.on('error', (error: Error) => {
    failure ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const cause = failure ?? (error as Error);
    const code = (cause as NodeJS.ErrnoException).code;
    throw new Error(`cannot reach Redis at ${address.shown}: ${code ?? cause.message}`);
  }
  // From here on, a lost connection is retried (a Redis restart should not end an eval).
  client.options.retryStrategy = (times: number) => Math.min(times * 200, 2000);
  return client;
}
