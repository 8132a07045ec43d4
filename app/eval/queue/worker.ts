/**
 * A queue worker (`society worker --queue URL`): takes eval jobs from Redis, runs each into a
 * store of its own exactly as a local eval would (executeJob), and hands back the finished run
 * (record, events, calls, bytes) for the coordinator to import into its store. It also adds up
 * each eval's parent job once all its children are done, and runs the runs `society serve
 * --queue` hands it the same way (served-run.ts), up to `concurrency` of those too.
 *
 * It trusts its own configuration, not the job: a job must be signed with the queue's secret,
 * and it only names provider profiles, which must be this worker's own (its store's, or given
 * with `society worker --provider`). Anything else is refused, logged, and fails with nothing
 * sent anywhere.
 *
 * A worker killed mid-job stops renewing the job's lock; another worker's stalled-job check then
 * puts the job back in the queue (see connection.ts for how soon), and it runs again there.
 */
import { hostname } from 'node:os';
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { loadNodeRegistry } from '../../node-sdk/registry.ts';
import { loadOpenAiSdk } from '../../providers/openai.ts';
import type { ProfileOverride } from '../../providers/profiles.ts';
import { exportRun } from '../../runs/export.ts';
import type { RunStore } from '../../store/index.ts';
import { type EvalJob, executeJob } from '../job.ts';
import {
  bullConnection,
  connectRedis,
  EVALS_QUEUE,
  JOBS_QUEUE,
  MAX_TAKEOVERS,
  QUEUE_PREFIX,
  type QueueAddress,
  queueTimings,
  SERVED_QUEUE,
} from './connection.ts';
import { type RateLimit, RedisRateLimiter, rateLimitedProviders, stricter } from './rate-limit.ts';
import { CANCEL_CHANNEL, parseCancel, runServedJob } from './served-run.ts';
import { warmUp } from './warm-up.ts';
import {
  cassetteKey,
  exportKey,
  type JobResult,
  parseQueuedJob,
  type QueuedJob,
  RefusedJobError,
  sha256,
  signedResult,
} from './wire.ts';

export interface EvalWorkerOptions {
  address: QueueAddress;
  /** Jobs run at once in this process. */
  concurrency: number;
  /** Where this worker's runs are made (its own store, or a temporary one). */
  store: RunStore;
  /**
   * This worker's own provider profiles (its store's, and `--provider` at start). A job naming
   * a profile not among them is refused; the built-in profiles need not be listed.
   */
  providerOverrides?: Record<string, ProfileOverride>;
  /** The secret shared with the coordinator: jobs not signed with it are refused. */
  secret: string;
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
  await Promise.all([loadNodeRegistry(), loadOpenAiSdk()]);
  // And runs a job of its own before taking any: its first jobs then run as fast as the rest.
  await warmUp();
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

  const own = options.providerOverrides ?? {};
  /** Cassettes by hash: fetched once per eval, not once per job. */
  const cassettes = new Map<string, string>();

  const cassetteFor = async (data: QueuedJob): Promise<string | undefined> => {
    if (data.cassette === undefined) return undefined;
    const cached = cassettes.get(data.cassette);
    if (cached !== undefined) return cached;
    const text = await redis.get(cassetteKey(data.evalId));
    if (text === null) throw new Error("the eval's cassette is no longer in the queue");
    // The job's signature covers the hash: a cassette swapped in Redis is refused.
    if (sha256(text) !== data.cassette)
      throw new RefusedJobError("the eval's cassette in the queue is not the one the job names");
    if (cassettes.size >= 4) cassettes.delete(cassettes.keys().next().value!);
    cassettes.set(data.cassette, text);
    return text;
  };

  /** The job as this worker runs it: provider profiles are its own, every one of them. */
  const resolve = async (data: QueuedJob): Promise<EvalJob> => {
    const lacking = (data.profiles ?? []).filter((name) => !Object.hasOwn(own, name));
    if (lacking.length)
      throw new RefusedJobError(
        `the job names provider profile${lacking.length === 1 ? '' : 's'} ${lacking.join(', ')}, which this worker does not have (start it with --provider ${lacking[0]}=URL[,key=VAR] as the eval was, or society providers --add)`,
      );
    const cassetteText = await cassetteFor(data);
    const { profiles: _profiles, cassette: _cassette, rates: _rates, ...job } = data;
    return { ...job, ...(cassetteText !== undefined ? { cassetteText } : {}) };
  };

  const runJob = async (job: Job): Promise<JobResult> => {
    let data: QueuedJob;
    try {
      data = parseQueuedJob(job.data, options.secret);
    } catch (error) {
      log(`refuse job ${job.id}: ${(error as Error).message}`);
      throw error;
    }
    const what = `item ${data.item + 1} · ${data.variant} · eval ${data.evalId.slice(0, 8)}`;
    let evalJob: EvalJob;
    try {
      evalJob = await resolve(data);
    } catch (error) {
      log(`refuse ${what}: ${(error as Error).message}`);
      throw error;
    }
    log(
      `run   ${what}${job.attemptsStarted > 1 ? ' (taken over from a worker that stopped)' : ''}`,
    );
    const rates: Record<string, RateLimit> = { ...options.rates };
    for (const [provider, limit] of Object.entries(data.rates ?? {}))
      rates[provider] = stricter(rates[provider], limit);
    running++;
    try {
      const outcome = await executeJob(evalJob, {
        store: options.store,
        providerOverrides: own,
        ...(Object.keys(rates).length
          ? { providerFor: rateLimitedProviders(rates, limiter, own) }
          : {}),
      });
      const run = options.store.getRun(outcome.runId)!;
      log(
        `done  ${what} · ${outcome.result.status} in ${(outcome.latencyMs / 1000).toFixed(1)} s · run ${run.id}`,
      );
      // The export waits under a key of its own until the coordinator imports it; the job's
      // result (kept by Redis in its event stream too) only says where, and what it hashes to.
      // Written through the store's redactor already; scrubbed again on the way out all the same.
      const text = options.store.redactor.text(JSON.stringify(exportRun(options.store, run)));
      const key = exportKey(String(job.id), run.id);
      await redis.set(key, text);
      return signedResult(
        {
          runId: run.id,
          status: outcome.result.status,
          exportKey: key,
          exportSha256: sha256(text),
          latencyMs: outcome.latencyMs,
          worker: name,
        },
        options.secret,
      );
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
  // Served runs: the worker's own limits apply (a server sends none); a cancel request from
  // the server, heard on a connection of its own, aborts the run it names.
  const servedRunning = new Map<string, AbortController>();
  const served = new Worker(
    SERVED_QUEUE,
    (job: Job) =>
      runServedJob(job, {
        store: options.store,
        secret: options.secret,
        providerOverrides: own,
        ...(Object.keys(options.rates ?? {}).length
          ? { providerFor: rateLimitedProviders(options.rates!, limiter, own) }
          : {}),
        redis,
        running: servedRunning,
        worker: name,
        log,
      }),
    { ...common, concurrency: options.concurrency },
  );
  const cancels = redis.duplicate();
  cancels.on('message', (_channel: string, text: string) => {
    const runId = parseCancel(text, options.secret);
    if (runId) servedRunning.get(runId)?.abort();
  });
  await cancels.subscribe(CANCEL_CHANNEL);
  let lastError = '';
  for (const worker of [jobs, parents, served])
    worker.on('error', (error) => {
      // A lost connection repeats its error on every retry: say it once.
      if (error.message !== lastError) log(`queue: ${error.message}`);
      lastError = error.message;
    });
  await Promise.all([jobs.waitUntilReady(), parents.waitUntilReady(), served.waitUntilReady()]);

  return {
    name,
    running: () => running + servedRunning.size,
    async close(force = false) {
      await Promise.all([jobs.close(force), parents.close(force), served.close(force)]);
      cancels.disconnect();
      redis.disconnect();
    },
  };
}
