/**
 * A served run on the queue (`society serve --queue URL`): what travels between the server and
 * the workers for one run, and how a worker runs it. The same conventions as an eval job
 * (wire.ts): signed with the queue's secret, provider profiles by name only (each worker
 * resolves them from its own configuration), the finished run handed back as an export waiting
 * under a key of its own, its hash signed in the result.
 *
 * Beyond an eval job, a served run is watched while it runs: the worker publishes each of its
 * events, signed, on a channel of its own (`runEventsChannel`), and the server forwards them
 * to whoever streams the run. Cancelling goes the other way: the server marks the run
 * cancelled (`cancelKey`, read by a worker before it starts one) and says so on
 * `CANCEL_CHANNEL`, which every worker listens to.
 */
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ProfileOverride } from '../../providers/profiles.ts';
import { exportRun } from '../../runs/export.ts';
import type { RunEvent } from '../../runtime/events.ts';
import type { RunStore } from '../../store/index.ts';
import { type EvalJob, executeJob } from '../job.ts';
import { QUEUE_PREFIX } from './connection.ts';
import { SIGNATURE_FIELD, sign, signatureProblem } from './trust.ts';
import { exportKey, type JobResult, RefusedJobError, sha256, signedResult } from './wire.ts';

/** A served run as queued (its signature aside). */
export interface QueuedRun {
  /** The run's id, made by the server: the worker's run and the imported one share it. */
  runId: string;
  /** The served society's name, for the worker's log. */
  society: string;
  documentText: string;
  inputs: Record<string, unknown>;
  blobs: EvalJob['blobs'];
  humanAnswers?: Record<string, string>;
  mode: 'live' | 'simulated';
  /** The provider profiles the server was started with (`--provider NAME=…`): names only. */
  profiles?: string[];
}

const RunId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const ProfileName = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/)
  .refine((name) => !['__proto__', 'constructor', 'prototype'].includes(name));

const QueuedRunSchema = z.strictObject({
  runId: RunId,
  society: z.string().max(200),
  documentText: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  blobs: z.array(z.strictObject({ sha256: z.string(), mime: z.string(), base64: z.string() })),
  humanAnswers: z.record(z.string(), z.string()).optional(),
  mode: z.enum(['live', 'simulated']),
  profiles: z.array(ProfileName).optional(),
});

/** Purposes signed into each kind of payload (trust.ts): none passes for another. */
const RUN = 'served-run';
const EVENT = 'served-run-event';
const CANCEL = 'served-run-cancel';

/** The BullMQ job id of a served run. */
export function servedJobId(runId: string): string {
  return `run-${runId}`;
}

/** The channel a served run's events are published on while it runs on a worker. */
export function runEventsChannel(runId: string): string {
  return `${QUEUE_PREFIX}:run-events:${runId}`;
}

/** The channel every worker listens to for served runs to cancel. */
export const CANCEL_CHANNEL = `${QUEUE_PREFIX}:run-cancel`;

/** Set while a served run is cancelled, so a worker taking its job later does not run it. */
export function cancelKey(runId: string): string {
  return `${QUEUE_PREFIX}:run-cancelled:${runId}`;
}

/** The job to queue for a served run, signed. */
export function queuedRun(run: QueuedRun, secret: string): QueuedRun & { sig: string } {
  // Through JSON first, as Redis will hand it over: what is signed is what the worker reads.
  return sign(JSON.parse(JSON.stringify(run)) as QueuedRun, secret, RUN);
}

/** Reads a queued served run, or throws RefusedJobError saying in one line why it is refused. */
export function parseQueuedRun(data: unknown, secret: string): QueuedRun {
  const problem = signatureProblem(data, secret, RUN);
  if (problem) throw new RefusedJobError(`the served run is ${problem}`);
  const { [SIGNATURE_FIELD]: _sig, ...payload } = data as Record<string, unknown>;
  const result = QueuedRunSchema.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new RefusedJobError(
      `not a served run (${issue.path.join('.') || 'data'}: ${issue.message})`,
    );
  }
  return result.data as QueuedRun;
}

/** A run event as published, signed. */
export function signedEvent(event: RunEvent, secret: string): string {
  return JSON.stringify(sign({ event }, secret, EVENT));
}

/** A published run event, or undefined when it is not one signed with `secret` for `runId`. */
export function parseEvent(text: string, secret: string, runId: string): RunEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (signatureProblem(data, secret, EVENT)) return undefined;
  const event = (data as { event?: RunEvent }).event;
  if (!event || event.runId !== runId || typeof event.seq !== 'number') return undefined;
  return event;
}

/** A request to cancel a served run, signed. */
export function signedCancel(runId: string, secret: string): string {
  return JSON.stringify(sign({ runId }, secret, CANCEL));
}

/** The run a cancel request names, or undefined when it is not signed with `secret`. */
export function parseCancel(text: string, secret: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (signatureProblem(data, secret, CANCEL)) return undefined;
  const runId = (data as { runId?: unknown }).runId;
  return RunId.safeParse(runId).success ? (runId as string) : undefined;
}

/** What a worker's served runs share. */
export interface ServedRunContext {
  store: RunStore;
  secret: string;
  /** This worker's own provider profiles. */
  providerOverrides: Record<string, ProfileOverride>;
  /** Makes live chat providers (the worker's rate limits). */
  providerFor?: Parameters<typeof executeJob>[1]['providerFor'];
  redis: Redis;
  /** Served runs running here, by id: a cancel request aborts one. */
  running: Map<string, AbortController>;
  worker: string;
  log: (line: string) => void;
}

/**
 * Runs the served run a BullMQ job holds into the worker's store, publishing its events as they
 * come, and hands back where its export waits (as an eval job's result). A run cancelled before
 * it starts runs not at all: it ends cancelled at once.
 */
export async function runServedJob(job: Job, context: ServedRunContext): Promise<JobResult> {
  const { store, secret, redis, log } = context;
  let data: QueuedRun;
  try {
    data = parseQueuedRun(job.data, secret);
    const lacking = (data.profiles ?? []).filter(
      (name) => !Object.hasOwn(context.providerOverrides, name),
    );
    if (lacking.length)
      throw new RefusedJobError(
        `the served run names provider profile${lacking.length === 1 ? '' : 's'} ${lacking.join(', ')}, which this worker does not have (start it with --provider ${lacking[0]}=URL[,key=VAR] as the server was, or society providers --add)`,
      );
  } catch (error) {
    log(`refuse job ${job.id}: ${(error as Error).message}`);
    throw error;
  }
  const what = `run ${data.runId} of ${data.society}`;
  const abort = new AbortController();
  context.running.set(data.runId, abort);
  if (await redis.exists(cancelKey(data.runId))) abort.abort();
  log(`run   ${what}${job.attemptsStarted > 1 ? ' (taken over from a worker that stopped)' : ''}`);
  const channel = runEventsChannel(data.runId);
  try {
    // executeJob runs any job into a store; a served run is one with nothing of an eval's.
    const evalJob: EvalJob = {
      evalId: 'served',
      item: 0,
      variant: data.society,
      jobKey: data.runId,
      documentText: data.documentText,
      inputs: data.inputs,
      blobs: data.blobs,
      ...(data.humanAnswers ? { humanAnswers: data.humanAnswers } : {}),
      mode: data.mode,
    };
    const outcome = await executeJob(
      evalJob,
      {
        store,
        providerOverrides: context.providerOverrides,
        signal: abort.signal,
        ...(context.providerFor ? { providerFor: context.providerFor } : {}),
      },
      {
        runId: data.runId,
        // A run this store holds cut off (a worker sharing its --db, killed) resumes.
        resumeRunId: data.runId,
        onRun: (run) =>
          run.subscribe((event) => {
            const text = store.redactor.text(signedEvent(event, secret));
            redis.publish(channel, text).catch(() => {});
          }),
      },
    );
    const run = store.getRun(outcome.runId)!;
    log(`done  ${what} · ${outcome.result.status} in ${(outcome.latencyMs / 1000).toFixed(1)} s`);
    const text = store.redactor.text(JSON.stringify(exportRun(store, run)));
    const key = exportKey(String(job.id), run.id);
    // A day at most: the server deletes it once imported, and a run made twice (its worker
    // thought dead) leaves one nobody will fetch.
    await redis.set(key, text, 'EX', 86_400);
    return signedResult(
      {
        runId: run.id,
        status: outcome.result.status,
        exportKey: key,
        exportSha256: sha256(text),
        latencyMs: outcome.latencyMs,
        worker: context.worker,
      },
      secret,
    );
  } catch (error) {
    log(`fail  ${what}: ${(error as Error).message}`);
    throw error;
  } finally {
    context.running.delete(data.runId);
  }
}
