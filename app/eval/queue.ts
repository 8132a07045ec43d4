/**
 * Running an eval's jobs on workers through BullMQ and Redis (`society eval --queue URL`).
 *
 * The coordinator adds one flow per eval: a parent job with a child per item × variant, each
 * child's id derived from its job key (wire.ts), so adding the same eval again, or resuming it
 * after a crash, queues nothing twice. Workers (`society worker`, queue/worker.ts) run the
 * children and send back each finished run; the coordinator imports it into its own store, so
 * the eval's runs read exactly as a local eval's (the debugger opens them, `society show` too),
 * and scores it there. A result that arrived while no coordinator was waiting stays in Redis
 * until the next session imports it; Redis is cleared of the eval once every job is imported.
 *
 * Jobs and results are signed with the queue's secret (queue/trust.ts). A result is small (ids,
 * status, where the run's export waits); the export is fetched once and deleted. Jobs awaited
 * are looked at again every few seconds, so one that vanished (Redis restarted empty) is queued
 * again under the same id, and the eval finishes in the same session.
 */
import { FlowProducer, type Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { parseExport } from '../runs/export.ts';
import { loadImages } from '../runs/record.ts';
import { BlobStore } from '../runtime/blobs.ts';
import type { RunStore } from '../store/index.ts';
import { commitTogether } from './commit.ts';
import type { EvalJob, JobOutcome } from './job.ts';
import {
  bullConnection,
  connectRedis,
  EVALS_QUEUE,
  JOBS_QUEUE,
  QUEUE_PREFIX,
  type QueueAddress,
  queueTimings,
} from './queue/connection.ts';
import type { RateLimit } from './queue/rate-limit.ts';
import {
  cassetteKey,
  exportKeys,
  type JobResult,
  parentJobId,
  parseJobResult,
  queuedJob,
  queueJobId,
  sha256,
} from './queue/wire.ts';
import type { Executor } from './runner.ts';

/** Results awaited at once: how many run on workers is each worker's `--concurrency`. */
const AWAITED_AT_ONCE = 16;

export interface QueueExecutorOptions {
  address: QueueAddress;
  /** The coordinating store: finished runs are imported into it. */
  store: RunStore;
  evalId: string;
  /** The jobs this session may run (those not finished in the store). */
  jobs: readonly EvalJob[];
  /** `--rate` limits every worker applies to these jobs. */
  rates?: Record<string, RateLimit>;
  /** Lines for the user: no worker connected, who ran what. */
  log?: (line: string) => void;
  /** The secret shared with the workers: jobs are signed with it, results checked. */
  secret: string;
}

/** An executor whose jobs run on queue workers; resolves once Redis answers. */
export async function queueExecutor(options: QueueExecutorOptions): Promise<Executor> {
  const { address, store, evalId } = options;
  const log = options.log ?? (() => {});
  // One readable line when Redis is not there, before any BullMQ client starts retrying. The
  // client stays: cassettes are stored and exports fetched with it.
  const redis: Redis = await connectRedis(address);
  const common = { connection: bullConnection(address), prefix: QUEUE_PREFIX };
  const jobsQueue = new Queue(JOBS_QUEUE, common);
  const evalsQueue = new Queue(EVALS_QUEUE, common);
  const flows = new FlowProducer(common);
  const events = new QueueEvents(JOBS_QUEUE, common);
  let lastError = '';
  const onError = (error: Error) => {
    // A lost connection repeats its error on every retry: say it once.
    if (error.message !== lastError) log(`queue: ${error.message}`);
    lastError = error.message;
  };
  jobsQueue.on('error', onError);
  evalsQueue.on('error', onError);
  flows.on('error', onError);
  events.on('error', onError);
  await events.waitUntilReady();

  const waiting = new Map<
    string,
    { job: EvalJob; resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  const ids = new Set(options.jobs.map(queueJobId));
  const imported = new Set<string>();
  /**
   * Results heard before their job was awaited: workers run ahead of the jobs awaited here, so
   * most results come in first and are taken from here, with no second read of the job.
   */
  const heard = new Map<string, unknown>();
  events.on('completed', ({ jobId, returnvalue }) => {
    const entry = waiting.get(jobId);
    if (entry) entry.resolve(returnvalue);
    else if (ids.has(jobId) && !imported.has(jobId)) heard.set(jobId, returnvalue);
  });
  /** Failures heard before their job was awaited, kept as results are. */
  const failedEarly = new Map<string, Error>();
  events.on('failed', ({ jobId, failedReason }) => {
    const error = new Error(failedReason || 'the job failed on its worker');
    const entry = waiting.get(jobId);
    if (entry) entry.reject(error);
    else if (ids.has(jobId) && !imported.has(jobId)) failedEarly.set(jobId, error);
  });
  let enqueued: Promise<void> | undefined;
  /**
   * Jobs this session added, with the events already heard: their results arrive as events,
   * so awaiting one needs no read of the job (the periodic look still covers a lost event).
   */
  const addedHere = new Set<string>();

  const queued = (job: EvalJob) => ({
    name: `item ${job.item + 1} · ${job.variant}`,
    queueName: JOBS_QUEUE,
    data: queuedJob(job, options.secret, options.rates ? { rates: options.rates } : {}),
    // A job that fails on its worker is reported as a failed item; the eval goes on.
    opts: { jobId: queueJobId(job), ignoreDependencyOnFailure: true },
  });

  /** The eval's cassette (replay), stored once for all its jobs; the jobs name its hash. */
  const cassetteText = options.jobs.find((job) => job.cassetteText !== undefined)?.cassetteText;
  const storeCassette = async () => {
    if (cassetteText === undefined) return;
    if ((await redis.get(cassetteKey(evalId))) !== cassetteText)
      await redis.set(cassetteKey(evalId), cassetteText);
  };

  /** Adds the eval's flow: jobs already in Redis are left as they are (failed ones retried). */
  const enqueue = async () => {
    const parentId = parentJobId(evalId);
    await storeCassette();
    const parent = await evalsQueue.getJob(parentId);
    // A parent from an earlier session that has already finished cannot take new children;
    // its children (results not yet imported among them) stay.
    if (parent && !(await parent.isWaitingChildren()))
      await parent.remove({ removeChildren: false }).catch(() => {});
    const existing = await Promise.all(
      options.jobs.map((job) => jobsQueue.getJobState(queueJobId(job))),
    );
    const fresh = options.jobs.filter((_, i) => existing[i] === 'unknown');
    for (const [i, state] of existing.entries())
      if (state === 'failed')
        await (await jobsQueue.getJob(queueJobId(options.jobs[i]!)))
          ?.retry('failed')
          .catch(() => {});
    for (const job of fresh) addedHere.add(queueJobId(job));
    if (fresh.length > 0)
      await flows.add({
        name: `eval ${evalId}`,
        queueName: EVALS_QUEUE,
        data: { evalId },
        opts: { jobId: parentId },
        children: fresh.map(queued),
      });
    if ((await jobsQueue.getWorkersCount()) === 0)
      log(
        `no worker is connected to ${address.shown} yet: the jobs wait in the queue (start one with society worker --queue ${address.shown})`,
      );
  };

  /**
   * Looks at the job `id` in Redis: its result when it has finished (or its failure), and a
   * job missing from Redis (removed, or Redis emptied by a restart) is queued again, alone,
   * under the same id, its cassette stored again first.
   */
  const look = async (id: string): Promise<void> => {
    const entry = waiting.get(id);
    if (!entry) return;
    const found: Job | undefined = await jobsQueue.getJob(id);
    if (!found) {
      await storeCassette();
      const { name, data, opts } = queued(entry.job);
      await jobsQueue.add(name, data, { jobId: opts.jobId });
    } else if (found.finishedOn && found.returnvalue) waiting.get(id)?.resolve(found.returnvalue);
    else if (await found.isFailed()) waiting.get(id)?.reject(new Error(found.failedReason));
  };

  // Not once but every few seconds: Redis may restart empty at any time, and a result whose
  // event was lost with it would otherwise be waited for forever.
  const { stalledCheckMs } = queueTimings();
  let looking = false;
  const recheck = setInterval(() => {
    if (looking) return;
    looking = true;
    Promise.allSettled([...waiting.keys()].map(look)).finally(() => {
      looking = false;
    });
  }, stalledCheckMs);
  recheck.unref();

  /** The job's result, whether it finished before we asked or finishes later. */
  const resultOf = (job: EvalJob): Promise<unknown> => {
    const id = queueJobId(job);
    return new Promise((resolve, reject) => {
      waiting.set(id, {
        job,
        resolve: (value) => {
          waiting.delete(id);
          resolve(value);
        },
        reject: (error) => {
          waiting.delete(id);
          reject(error);
        },
      });
      const early = heard.get(id);
      const failure = failedEarly.get(id);
      heard.delete(id);
      failedEarly.delete(id);
      if (early !== undefined) waiting.get(id)?.resolve(early);
      else if (failure) waiting.get(id)?.reject(failure);
      // Listening before looking: a result that lands in between is heard either way. A job
      // queued by an earlier session may have finished before anyone listened: looked at now.
      else if (!addedHere.has(id)) look(id).catch(reject);
    });
  };

  /**
   * The run export a result points to, checked against the hash the worker signed; undefined
   * when it is gone (Redis emptied since), and the job is then run again.
   */
  const exportOf = async (result: JobResult): Promise<string | undefined> => {
    const text = await redis.get(result.exportKey);
    if (text === null) return undefined;
    if (sha256(text) !== result.exportSha256)
      throw new Error('the run export in the queue is not the one its worker signed');
    return text;
  };

  const commit = commitTogether(store);
  const byWorker = new Map<string, number>();
  /** Jobs whose result `run` is waiting for. */
  const awaited = new Set<string>();
  // Ctrl-C: no new job starts here (runEval), so none should start on a worker either. The
  // jobs awaited now stay queued: their results are imported as they come.
  const onInterrupt = () => {
    void forget(false, awaited).catch(() => {});
  };
  process.on('SIGINT', onInterrupt);
  return {
    concurrency: AWAITED_AT_ONCE,
    async run(job, runOptions): Promise<JobOutcome> {
      enqueued ??= enqueue();
      await enqueued;
      const id = queueJobId(job);
      awaited.add(id);
      let result!: JobResult;
      let text: string | undefined;
      let importedBefore = false;
      try {
        for (let tries = 0; ; tries++) {
          result = parseJobResult(await resultOf(job), options.secret);
          text = await exportOf(result);
          if (text !== undefined || tries === 3) break;
          // No export, but this store already holds the run: a coordinator stopped after
          // importing it and before recording the item. It is not run again.
          importedBefore = endedRunIn(store, result.runId);
          if (importedBefore) break;
          // Finished, but its export went with a Redis restart: run it again (queued anew by
          // the next look, which happens at once).
          await jobsQueue.remove(id).catch(() => {});
          addedHere.delete(id);
        }
      } finally {
        awaited.delete(id);
      }
      if (text === undefined && !importedBefore)
        throw new Error('the run came back without its export');
      const blobs = new BlobStore();
      const data =
        text === undefined
          ? undefined
          : parseExport(text, `the run of item ${job.item + 1} · ${job.variant}`);
      for (const blob of Object.values(data?.blobs ?? {}))
        blobs.put(Buffer.from(blob.base64, 'base64'), blob.mime);
      // The run and the eval's link to it commit together (idempotent), in one transaction
      // with the other results that came in meanwhile: one sync to disk for all of them.
      await commit(() => {
        if (data) store.importRun(data);
        runOptions.onStart?.(result.runId);
      });
      // Imported: only now may the export go.
      await redis.del(result.exportKey);
      imported.add(id);
      byWorker.set(result.worker, (byWorker.get(result.worker) ?? 0) + 1);
      const run = store.getRun(result.runId)!;
      if (importedBefore) {
        // Its files are in the store already.
        loadImages(store, blobs, run.inputs);
        loadImages(store, blobs, run.outputs ?? {});
      }
      return {
        runId: run.id,
        result: {
          runId: run.id,
          status: run.status as JobOutcome['result']['status'],
          outputs: run.outputs ?? {},
          usage: run.usage ?? {
            calls: 0,
            promptTokens: 0,
            completionTokens: 0,
            totalTokens: 0,
            costUsd: 0,
          },
          ...(run.error !== undefined ? { error: run.error } : {}),
          simulated: run.mode === 'simulated',
        },
        latencyMs: result.latencyMs,
        blobs,
      };
    },
    async close() {
      process.off('SIGINT', onInterrupt);
      clearInterval(recheck);
      try {
        if (byWorker.size > 0)
          log(
            `queue: ${imported.size} run${imported.size === 1 ? '' : 's'} came back from ${[...byWorker].map(([w, n]) => `${w} (${n})`).join(', ')}`,
          );
        if (enqueued) await forget(imported.size === ids.size);
      } finally {
        await Promise.allSettled([
          events.close(),
          flows.close(),
          jobsQueue.close(),
          evalsQueue.close(),
        ]);
        redis.disconnect();
      }
    },
  };

  /**
   * Clears Redis of what this session leaves behind. Every job imported: the whole flow goes.
   * Stopped early (Ctrl-C, the budget): jobs no worker has started are taken out of the queue,
   * so workers stop spending; running and finished ones stay, for the next session to import.
   */
  async function forget(
    allImported: boolean,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    if (allImported) {
      const parent = await evalsQueue.getJob(parentJobId(evalId));
      // Its worker may be adding it up right now; it is removed once that is done.
      for (let i = 0; parent && i < 20 && (await parent.isActive()); i++)
        await new Promise((r) => setTimeout(r, 100));
      await parent?.remove({ removeChildren: true }).catch(() => {});
      // Sent together, not one round trip after another: an eval's exit waits for them.
      await Promise.all([...ids].map((id) => jobsQueue.remove(id).catch(() => {})));
      // A job run twice (a worker thought dead) left a second export nobody will fetch.
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', exportKeys('*'), 'COUNT', 1000);
        const stray = keys.filter((key) => ids.has(key.split(':')[2] ?? ''));
        if (stray.length) await redis.del(...stray);
        cursor = next;
      } while (cursor !== '0');
      await redis.del(cassetteKey(evalId));
      return;
    }
    for (const id of ids) {
      if (keep.has(id) || imported.has(id)) continue;
      if ((await jobsQueue.getJobState(id)) === 'waiting')
        await jobsQueue.remove(id).catch(() => {});
    }
  }
}

/**
 * The jobs of `plan` a queue should run this session: as `runEval` decides, those with no
 * finished item in the store, no finished run waiting to be scored, and nothing missing.
 */
export function jobsToQueue(
  store: RunStore,
  evalId: string,
  plan: readonly { job: EvalJob; error?: string }[],
): EvalJob[] {
  const slot = (of: { item: number; variant: string; repeat?: number }) =>
    `${of.item}\u0000${of.variant}\u0000${of.repeat ?? 0}`;
  const items = new Map(store.evalItems(evalId).map((i) => [slot(i), i]));
  return plan
    .filter((planned) => {
      if (planned.error !== undefined) return false;
      const before = items.get(slot(planned.job));
      if (before && before.status !== 'running') return false;
      const run = before?.runId ? store.getRun(before.runId) : undefined;
      return !run || run.status === 'running' || run.status === 'interrupted';
    })
    .map((planned) => planned.job);
}

/** True when `store` holds run `runId` as it ended (imported whole, never half). */
function endedRunIn(store: RunStore, runId: string): boolean {
  const run = store.getRun(runId);
  return run !== undefined && run.status !== 'running' && run.status !== 'interrupted';
}
