/**
 * A queue worker (`society worker --queue URL`): takes eval jobs from Redis, runs each into a
 * store of its own exactly as a local eval would (executeJob), and hands back the finished run
 * (record, events, calls, bytes) for the coordinator to import into its store. It also adds up
 * each eval's parent job once all its children are done.
 *
 * A worker killed mid-job stops renewing the job's lock; another worker's stalled-job check then
 * puts the job back in the queue (see connection.ts for how soon), and it runs again there.
 */
import { hostname } from 'node:os';
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { exportRun } from '../../cli/export.ts';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import type { ProfileOverride } from '../../providers/profiles.ts';
import type { RunStore } from '../../store/index.ts';
import { executeJob } from '../job.ts';
import {
  bullConnection,
  connectRedis,
  EVALS_QUEUE,
  JOBS_QUEUE,
  MAX_TAKEOVERS,
  QUEUE_PREFIX,
  type QueueAddress,
  queueTimings,
} from './connection.ts';
import { type RateLimit, RedisRateLimiter, rateLimitedProviders, stricter } from './rate-limit.ts';
import { type JobResult, parseQueuedJob } from './wire.ts';

export interface EvalWorkerOptions {
  address: QueueAddress;
  /** Jobs run at once in this process. */
  concurrency: number;
  /** Where this worker's runs are made (its own store, or a temporary one). */
  store: RunStore;
  /** Provider redirects of this machine (its stored profiles), under each job's own. */
  providerOverrides?: Record<string, ProfileOverride>;
  /** This worker's own `--rate` limits; a job's limits apply too (the stricter wins). */
  rates?: Record<string, RateLimit>;
  /** One line per job started, finished or failed. */
  log?: (line: string) => void;
  /** A connection already made (`connectRedis`); made here otherwise. */
  redis?: Redis;
}

/** A running worker. */
export interface EvalWorker {
  readonly name: string;
  /** Jobs running now. */
  running(): number;
  /** Stops taking jobs; resolves once running ones finish (or at once with `force`). */
  close(force?: boolean): Promise<void>;
}

/** Connects to the queue and starts taking jobs. Throws one line when Redis cannot be reached. */
export async function startEvalWorker(options: EvalWorkerOptions): Promise<EvalWorker> {
  const redis: Redis = options.redis ?? (await connectRedis(options.address));
  // Loaded before the first job: loading blocks the event loop for a moment, and a job whose
  // lock is not renewed in time would be handed to another worker while this one runs it.
  await loadNodeRegistry();
  const limiter = new RedisRateLimiter(redis);
  const log = options.log ?? (() => {});
  const name = `${hostname()}:${process.pid}`;
  const timings = queueTimings();
  const common = {
    connection: bullConnection(options.address),
    prefix: QUEUE_PREFIX,
    lockDuration: timings.lockMs,
    stalledInterval: timings.stalledCheckMs,
    maxStalledCount: MAX_TAKEOVERS,
    name,
  };
  let running = 0;

  const runJob = async (job: Job): Promise<JobResult> => {
    const data = parseQueuedJob(job.data);
    const what = `item ${data.item + 1} · ${data.variant} · eval ${data.evalId.slice(0, 8)}`;
    log(
      `run   ${what}${job.attemptsStarted > 1 ? ' (taken over from a worker that stopped)' : ''}`,
    );
    const rates: Record<string, RateLimit> = { ...options.rates };
    for (const [provider, limit] of Object.entries(data.rates ?? {}))
      rates[provider] = stricter(rates[provider], limit);
    const providerOverrides = { ...options.providerOverrides, ...data.providerOverrides };
    running++;
    try {
      const outcome = await executeJob(data, {
        store: options.store,
        providerOverrides,
        ...(Object.keys(rates).length
          ? { providerFor: rateLimitedProviders(rates, limiter, providerOverrides) }
          : {}),
      });
      const run = options.store.getRun(outcome.runId)!;
      log(
        `done  ${what} · ${outcome.result.status} in ${(outcome.latencyMs / 1000).toFixed(1)} s · run ${run.id}`,
      );
      return {
        exportText: JSON.stringify(exportRun(options.store, run)),
        latencyMs: outcome.latencyMs,
        worker: name,
      };
    } catch (error) {
      log(`fail  ${what}: ${(error as Error).message}`);
      throw error;
    } finally {
      running--;
    }
  };

  const jobs = new Worker(JOBS_QUEUE, runJob, { ...common, concurrency: options.concurrency });
  // The parent job of an eval: who ran how many of its jobs.
  const parents = new Worker(
    EVALS_QUEUE,
    async (job: Job) => {
      const byWorker: Record<string, number> = {};
      for (const value of Object.values(await job.getChildrenValues())) {
        const worker = (value as Partial<JobResult> | null)?.worker ?? 'unknown';
        byWorker[worker] = (byWorker[worker] ?? 0) + 1;
      }
      return { jobs: Object.values(byWorker).reduce((a, b) => a + b, 0), byWorker };
    },
    { ...common, concurrency: 1 },
  );
  let lastError = '';
  for (const worker of [jobs, parents])
    worker.on('error', (error) => {
      // A lost connection repeats its error on every retry: say it once.
      if (error.message !== lastError) log(`queue: ${error.message}`);
      lastError = error.message;
    });
  await Promise.all([jobs.waitUntilReady(), parents.waitUntilReady()]);

  return {
    name,
    running: () => running,
    async close(force = false) {
      await Promise.all([jobs.close(force), parents.close(force)]);
      redis.disconnect();
    },
  };
}
