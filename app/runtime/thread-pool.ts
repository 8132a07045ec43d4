/**
 * A few worker threads for the document-supplied computations of a run that may take more than
 * a moment: template renders (template-pool.ts) and the pure tasks nodes hand the engine
 * (compute.ts). Such work runs synchronously, so done on the main thread it would hold up
 * everything else in the process: the studio's other clients, Stop, SIGTERM, every timer. On a
 * thread, the main thread stays free; each job has a time limit past which it fails and its
 * thread is terminated, and a heap limit past which the thread dies and the job fails. A job
 * nobody waits for any more (the run was stopped) has its thread terminated at once.
 *
 * A few threads are kept and reused: a job costs a message each way, a small fraction of a
 * millisecond for a short prompt (bench/template-render.ts), and the threads hold the process
 * open only while they work. Where a worker cannot start, jobs run on this thread.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';

/** How many jobs may run at once, each on a thread of its own. */
export const POOL_THREADS = 2;

/**
 * A terminated thread finishes the step it is in (V8 stops a thread between steps, not inside a
 * sort), so for a moment it still uses a core. New threads wait while this many are stopping.
 */
const MAX_STOPPING = POOL_THREADS;

/** The heap a thread may use; past it the thread dies and its job fails. */
export const POOL_HEAP_MB = 512;

const WORKER_URL = new URL('./pool-worker.ts', import.meta.url);

/** What a job asks a thread to do: render a template, or run a node's task (pool-worker.ts). */
export type PoolRequest =
  | { kind: 'render'; template: string; vars: Record<string, unknown>; limits: unknown }
  | { kind: 'task'; module: string; name: string; input: unknown };

const PoolReplySchema = z.object({
  id: z.number(),
  value: z.unknown().optional(),
  error: z
    .object({
      message: z.string(),
      limit: z.enum(['templateMs', 'templateBytes', 'templateIterations']).optional(),
      value: z.number().optional(),
      what: z.string().optional(),
      internal: z.boolean().optional(),
    })
    .optional(),
});
/** What a thread answers for one job. */
export type PoolReply = z.infer<typeof PoolReplySchema>;
/** A failure as a thread reports it. */
export type PoolFailure = NonNullable<PoolReply['error']>;

/** One job for the pool: what to send, how long it may take, and how its answers read. */
export interface PoolJob {
  request: PoolRequest;
  /** After this long the job fails with `timeout()` and its thread is terminated. */
  ms: number;
  timeout: () => Error;
  /** The error for a failure the thread reported. */
  failure: (error: PoolFailure) => Error;
  /** The error when the thread died under the job (`outOfMemory` when past its heap). */
  gone: (outOfMemory: boolean) => Error;
  /** Does the job on this thread instead, when no thread can be used. */
  here: () => unknown;
}

interface Pending extends PoolJob {
  id: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job?: Pending;
  timer?: ReturnType<typeof setTimeout>;
}

const threads: Thread[] = [];
const queue: Pending[] = [];
let stopping = 0;
let nextId = 1;
/** Set once a worker failed to start: jobs then run on this thread. */
let unavailable = false;

/**
 * Runs a job on a pool thread; resolves with what the thread answered, rejects with the job's
 * own errors, or with the signal's reason when it is aborted first.
 */
export function runOnThread(job: PoolJob, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => cancel(pending, signal?.reason);
    const pending: Pending = {
      ...job,
      id: nextId++,
      resolve: (value) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      },
      reject: (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(pending);
    pump();
  });
}

function pump(): void {
  if (unavailable) {
    for (const job of queue.splice(0)) doHere(job);
    return;
  }
  for (const thread of threads) {
    if (thread.ready && !thread.job && queue.length > 0) send(thread, queue.shift()!);
  }
  let starting = threads.filter((t) => !t.ready).length;
  while (
    queue.length > starting &&
    threads.length < POOL_THREADS &&
    stopping < MAX_STOPPING &&
    !unavailable
  ) {
    start();
    starting++;
  }
}

function start(): void {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: POOL_HEAP_MB } });
  } catch {
    unavailable = true;
    return;
  }
  const thread: Thread = { worker, ready: false };
  threads.push(thread);
  worker.on('message', (message: unknown) => onMessage(thread, message));
  worker.on('error', (error) => onGone(thread, error));
  worker.on('exit', () => onGone(thread));
}

function send(thread: Thread, job: Pending): void {
  thread.job = job;
  thread.worker.ref();
  try {
    thread.worker.postMessage({ id: job.id, ...job.request });
  } catch {
    // Values that cannot be copied to a thread (a graph's never are): the job runs here.
    idle(thread);
    doHere(job);
    return;
  }
  thread.timer = setTimeout(() => {
    stop(thread);
    job.reject(job.timeout());
    pump();
  }, job.ms);
}

function onMessage(thread: Thread, message: unknown): void {
  if ((message as { ready?: unknown } | null)?.ready === true) {
    thread.ready = true;
    thread.worker.unref();
    pump();
    return;
  }
  const reply = PoolReplySchema.safeParse(message);
  const job = thread.job;
  if (!reply.success || !job || reply.data.id !== job.id) return;
  idle(thread);
  const { value, error } = reply.data;
  if (error) job.reject(job.failure(error));
  else job.resolve(value);
  pump();
}

/** A thread that failed or exited by itself: its job fails; one that never started ends the pool. */
function onGone(thread: Thread, error?: Error): void {
  const at = threads.indexOf(thread);
  if (at < 0) return;
  threads.splice(at, 1);
  clearTimeout(thread.timer);
  if (!thread.ready) unavailable = true;
  const out = (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
  thread.job?.reject(thread.job.gone(out));
  pump();
}

/** A job nobody waits for any more (the run was stopped): dropped, or its thread stopped. */
function cancel(job: Pending, reason: unknown): void {
  const waiting = queue.indexOf(job);
  if (waiting >= 0) queue.splice(waiting, 1);
  const thread = threads.find((t) => t.job === job);
  if (thread) stop(thread);
  job.reject(reason ?? new DOMException('cancelled', 'AbortError'));
  pump();
}

/** Takes a thread out of the pool and terminates it; it counts as stopping until it has exited. */
function stop(thread: Thread): void {
  const at = threads.indexOf(thread);
  if (at >= 0) threads.splice(at, 1);
  clearTimeout(thread.timer);
  stopping++;
  void thread.worker.terminate().finally(() => {
    stopping--;
    pump();
  });
}

function idle(thread: Thread): void {
  clearTimeout(thread.timer);
  thread.job = undefined;
  thread.worker.unref();
}

function doHere(job: Pending): void {
  try {
    job.resolve(job.here());
  } catch (error) {
    job.reject(error);
  }
}
