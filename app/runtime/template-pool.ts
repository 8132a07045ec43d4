/**
 * Renders a run's templates on worker threads. liquidjs renders synchronously, and its async
 * render never yields to the event loop either (each step is a microtask), so a slow template
 * rendered here would hold up everything else in the process: the studio's other clients, Stop,
 * every timer. A worker renders it instead. liquidjs checks the clock at every block and stops a
 * render at its time limit; a render that outlives its limit anyway (one slow step, such as a
 * sort of a large list) fails at the limit all the same, and its thread is terminated.
 *
 * Most renders never come here: `renderNodeTemplate` first renders on the caller's thread within
 * small limits, and only a template that goes past them is rendered on a thread. A few threads
 * are kept and reused: a render costs a message each way, a small fraction of a millisecond for
 * a short prompt (bench/template-render.ts), and the threads hold the process open only while
 * they work. Where a worker cannot start, renders happen on this thread,
 * bounded by liquidjs's own checks.
 */
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import {
  CALLER_LIMITS,
  renderTemplate,
  TemplateError,
  TemplateLimitError,
  type TemplateLimits,
  templateFailure,
} from '../node-sdk/template.ts';
import { timeLimitError } from '../node-sdk/template-bounds.ts';
import { DEFAULT_LIMITS } from '../schema/limits.ts';

/** How many renders may run at once, each on a thread of its own. */
export const TEMPLATE_THREADS = 2;

/**
 * How long past its time limit a render may go before it fails anyway and its thread is
 * stopped. liquidjs answers at the limit itself unless one step of the render is slow.
 */
export const STOP_GRACE_MS = 250;

/**
 * A terminated thread finishes the step it is in (V8 stops a thread between steps, not inside a
 * sort), so for a moment it still uses a core. New threads wait while this many are stopping.
 */
const MAX_STOPPING = TEMPLATE_THREADS;

/** The heap a rendering thread may use; past it the thread dies and the render fails. */
const HEAP_MB = 512;

const WORKER_URL = new URL('./template-worker.ts', import.meta.url);

const RenderReplySchema = z.object({
  id: z.number(),
  text: z.string().optional(),
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
/** What a rendering thread answers for one render. */
export type RenderReply = z.infer<typeof RenderReplySchema>;

interface Job {
  id: number;
  template: string;
  vars: Record<string, unknown>;
  limits: TemplateLimits;
  resolve: (text: string) => void;
  reject: (error: unknown) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  job?: Job;
  timer?: ReturnType<typeof setTimeout>;
}

const threads: Thread[] = [];
const queue: Job[] = [];
let stopping = 0;
let nextId = 1;
/** Set once a worker failed to start: renders then happen on this thread. */
let unavailable = false;

/**
 * Renders a template within `limits` off the event loop; rejects with a TemplateError (a
 * TemplateLimitError when the render went past a limit, time included), or with the signal's
 * reason when it is aborted first.
 */
export function renderOffThread(
  template: string,
  vars: Record<string, unknown>,
  limits: TemplateLimits = DEFAULT_LIMITS,
  signal?: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => cancel(job, signal?.reason);
    const job: Job = {
      id: nextId++,
      template,
      vars,
      limits,
      resolve: (text) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(text);
      },
      reject: (error) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    queue.push(job);
    pump();
  });
}

/**
 * A node's template rendered for a run, within the run's limits; a failure becomes one line that
 * names the field ("its prompt template went past the 2,000 ms render limit (…)"). It is first
 * tried on this thread within CALLER_LIMITS (or the run's own, where smaller); only a template
 * that goes past them — a long transcript, a large loop, a hostile document — is rendered again
 * on a rendering thread, within the run's limits.
 */
export async function renderNodeTemplate(
  template: string,
  vars: Record<string, unknown>,
  field: string,
  limits: TemplateLimits,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const quick = quickLimits(limits);
    try {
      if (signal?.aborted) throw signal.reason;
      return renderTemplate(template, vars, quick);
    } catch (error) {
      // Past a quick limit that is smaller than the run's: the run allows more, off this thread.
      if (!(error instanceof TemplateLimitError) || quick[error.limit] >= limits[error.limit]) {
        throw error;
      }
    }
    return await renderOffThread(template, vars, limits, signal);
  } catch (error) {
    if (error instanceof TemplateError) throw new TemplateError(templateFailure(field, error));
    throw error;
  }
}

function quickLimits(limits: TemplateLimits): TemplateLimits {
  return {
    templateMs: Math.min(CALLER_LIMITS.templateMs, limits.templateMs),
    templateBytes: Math.min(CALLER_LIMITS.templateBytes, limits.templateBytes),
    templateIterations: Math.min(CALLER_LIMITS.templateIterations, limits.templateIterations),
  };
}

function pump(): void {
  if (unavailable) {
    for (const job of queue.splice(0)) renderHere(job);
    return;
  }
  for (const thread of threads) {
    if (thread.ready && !thread.job && queue.length > 0) send(thread, queue.shift()!);
  }
  let starting = threads.filter((t) => !t.ready).length;
  while (
    queue.length > starting &&
    threads.length < TEMPLATE_THREADS &&
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
    worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
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

function send(thread: Thread, job: Job): void {
  thread.job = job;
  thread.worker.ref();
  try {
    thread.worker.postMessage({
      id: job.id,
      template: job.template,
      vars: job.vars,
      limits: job.limits,
    });
  } catch {
    // Values that cannot be copied to a thread (a graph's never are): render them here.
    idle(thread);
    renderHere(job);
    return;
  }
  thread.timer = setTimeout(() => {
    stop(thread);
    job.reject(timeLimitError(job.limits.templateMs));
    pump();
  }, job.limits.templateMs + STOP_GRACE_MS);
}

function onMessage(thread: Thread, message: unknown): void {
  if ((message as { ready?: unknown } | null)?.ready === true) {
    thread.ready = true;
    thread.worker.unref();
    pump();
    return;
  }
  const reply = RenderReplySchema.safeParse(message);
  const job = thread.job;
  if (!reply.success || !job || reply.data.id !== job.id) return;
  idle(thread);
  const { text, error } = reply.data;
  if (error) job.reject(replyError(error));
  else job.resolve(text ?? '');
  pump();
}

/** A thread that failed or exited by itself: its render fails; one that never started ends the pool. */
function onGone(thread: Thread, error?: Error): void {
  const at = threads.indexOf(thread);
  if (at < 0) return;
  threads.splice(at, 1);
  clearTimeout(thread.timer);
  if (!thread.ready) unavailable = true;
  const out = (error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
  thread.job?.reject(
    new TemplateError(
      out
        ? `ran out of memory while rendering (a render may use ${HEAP_MB} MB)`
        : 'could not be rendered: the rendering thread stopped',
    ),
  );
  pump();
}

/** A render nobody waits for any more (the run was stopped): dropped, or its thread stopped. */
function cancel(job: Job, reason: unknown): void {
  const waiting = queue.indexOf(job);
  if (waiting >= 0) queue.splice(waiting, 1);
  const thread = threads.find((t) => t.job === job);
  if (thread) stop(thread);
  job.reject(reason ?? new DOMException('render cancelled', 'AbortError'));
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

function renderHere(job: Job): void {
  try {
    job.resolve(renderTemplate(job.template, job.vars, job.limits));
  } catch (error) {
    job.reject(error);
  }
}

function replyError(error: NonNullable<RenderReply['error']>): Error {
  if (error.limit && error.value !== undefined && error.what !== undefined) {
    return new TemplateLimitError(error.limit, error.value, error.what);
  }
  return error.internal ? new Error(error.message) : new TemplateError(error.message);
}
