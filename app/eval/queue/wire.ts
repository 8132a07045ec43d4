/**
 * What travels through Redis, and nothing more: a job (an eval job as the worker needs it,
 * signed) and what a worker sends back (ids, status and where to fetch the run's export once,
 * signed). Both sides parse and check what they receive: Redis is shared, anyone who can write
 * to it can write a job, and a worker of another version may answer.
 *
 * A job never carries provider settings: it names the provider profiles its variant redirects,
 * and each worker resolves those names from its own configuration (trust.ts says why). A replay
 * eval's cassette is stored once per eval (`cassetteKey`), not in every job; the job names its
 * hash, which the signature covers.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EvalJob } from '../job.ts';
import { QUEUE_PREFIX } from './connection.ts';
import type { RateLimit } from './rate-limit.ts';
import { SIGNATURE_FIELD, sign, signatureProblem } from './trust.ts';

/** A job as queued (its signature aside). */
export interface QueuedJob {
  evalId: string;
  item: number;
  variant: string;
  /** The repeat under `--repeats` (absent is 0). */
  repeat?: number;
  jobKey: string;
  documentText: string;
  inputs: Record<string, unknown>;
  blobs: EvalJob['blobs'];
  humanAnswers?: Record<string, string>;
  mode: EvalJob['mode'];
  /** The provider profiles the variant redirects (`--provider NAME=…`): names only. */
  profiles?: string[];
  /** Replay: the sha256 of the eval's cassette text, stored once under `cassetteKey`. */
  cassette?: string;
  /** The eval's `--rate` limits; a worker applies the stricter of these and its own. */
  rates?: Record<string, RateLimit>;
}

/** What a worker hands back for a job: small, because Redis keeps it in its event stream. */
export interface JobResult {
  runId: string;
  status: string;
  /** The Redis key holding the run's export until the coordinator has imported it. */
  exportKey: string;
  /** The export text's sha256: the coordinator imports only the text the worker signed. */
  exportSha256: string;
  latencyMs: number;
  /** The worker's name (host and process), for the coordinator's tally. */
  worker: string;
}

/** A profile's name, as `society providers --add` takes it. */
const ProfileName = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/)
  .refine((name) => !['__proto__', 'constructor', 'prototype'].includes(name));

const RateSchema = z.strictObject({ max: z.number().positive(), perMs: z.number().positive() });

const QueuedJobSchema = z.strictObject({
  evalId: z.string(),
  item: z.number().int().min(0),
  variant: z.string(),
  repeat: z.number().int().min(1).optional(),
  jobKey: z.string(),
  documentText: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  blobs: z.array(z.strictObject({ sha256: z.string(), mime: z.string(), base64: z.string() })),
  humanAnswers: z.record(z.string(), z.string()).optional(),
  mode: z.enum(['live', 'simulated', 'replay']),
  profiles: z.array(ProfileName).optional(),
  cassette: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  rates: z.record(ProfileName, RateSchema).optional(),
});

const JobResultSchema = z.strictObject({
  runId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  status: z.string(),
  exportKey: z.string(),
  exportSha256: z.string().regex(/^[0-9a-f]{64}$/),
  latencyMs: z.number().min(0),
  worker: z.string(),
});

/** Purposes signed into each kind of payload (trust.ts). */
const JOB = 'job';
const RESULT = 'result';

/** A job refused by a worker: the reason is logged and the job fails, nothing having run. */
export class RefusedJobError extends Error {
  override name = 'RefusedJobError';
}

/**
 * The job to queue for `job`: its provider redirects become their names, its cassette a hash
 * (the text is stored once per eval, by the caller), signed with the queue's secret.
 */
export function queuedJob(
  job: EvalJob,
  secret: string,
  extra: { rates?: Record<string, RateLimit> } = {},
): QueuedJob & { sig: string } {
  const profiles = Object.keys(job.providerOverrides ?? {});
  const payload: QueuedJob = {
    evalId: job.evalId,
    item: job.item,
    variant: job.variant,
    ...(job.repeat ? { repeat: job.repeat } : {}),
    jobKey: job.jobKey,
    documentText: job.documentText,
    inputs: job.inputs,
    blobs: job.blobs,
    ...(job.humanAnswers ? { humanAnswers: job.humanAnswers } : {}),
    mode: job.mode,
    ...(profiles.length ? { profiles: profiles.sort() } : {}),
    ...(job.cassetteText !== undefined ? { cassette: sha256(job.cassetteText) } : {}),
    ...(extra.rates ? { rates: extra.rates } : {}),
  };
  // Through JSON first, as Redis will hand it over: what is signed is what the worker reads.
  return sign(JSON.parse(JSON.stringify(payload)) as QueuedJob, secret, JOB);
}

/**
 * Reads a queued job, or throws RefusedJobError saying in one line why it is refused: provider
 * settings of its own, a missing or wrong signature, or a shape that is not a job.
 */
export function parseQueuedJob(data: unknown, secret: string): QueuedJob {
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const own = ownProviderSettings(data as Record<string, unknown>);
    if (own)
      throw new RefusedJobError(
        `the job carries provider settings of its own (${own}); a worker uses only its own profiles`,
      );
  }
  const problem = signatureProblem(data, secret, JOB);
  if (problem) throw new RefusedJobError(`the job is ${problem}`);
  const { [SIGNATURE_FIELD]: _sig, ...payload } = data as Record<string, unknown>;
  const result = QueuedJobSchema.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new RefusedJobError(
      `not an eval job (${issue.path.join('.') || 'data'}: ${issue.message})`,
    );
  }
  return result.data as QueuedJob;
}

/** Where a job tries to say how providers are reached, when it does (field names only). */
function ownProviderSettings(data: Record<string, unknown>): string | undefined {
  const found = ['providerOverrides', 'baseUrl', 'apiKeyEnv', 'cassetteText'].filter((field) =>
    Object.hasOwn(data, field),
  );
  if (found.length) return found.join(', ');
  const text = JSON.stringify(data.profiles ?? null);
  if (/"(baseUrl|apiKeyEnv)"/.test(text)) return 'profiles with a baseUrl or apiKeyEnv';
  return undefined;
}

/** What a worker sends back, signed. */
export function signedResult(result: JobResult, secret: string): JobResult & { sig: string } {
  return sign(JSON.parse(JSON.stringify(result)) as JobResult, secret, RESULT);
}

/** Reads what a worker sent back; throws when it is not a result signed with `secret`. */
export function parseJobResult(value: unknown, secret: string): JobResult {
  const problem = signatureProblem(value, secret, RESULT);
  if (problem) throw new Error(`the result in the queue is ${problem}; it was not imported`);
  const { [SIGNATURE_FIELD]: _sig, ...payload } = value as Record<string, unknown>;
  const result = JobResultSchema.safeParse(payload);
  if (!result.success) throw new Error('the worker sent back something that is not a finished run');
  return result.data;
}

/** The sha256 of a text, in hex. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A job's id in the queue. The job key alone names an item × variant of a document; the eval
 * id is hashed in too, because the same document, item index and variant over another dataset
 * or in another mode is another job. Equal ids are added once, so enqueuing an eval again, or
 * a coordinator resuming after a crash, never queues a job twice.
 */
export function queueJobId(job: Pick<EvalJob, 'evalId' | 'jobKey'>): string {
  return `job-${createHash('sha256').update(`${job.evalId}\u0000${job.jobKey}`).digest('hex').slice(0, 32)}`;
}

/** The id of an eval's parent job. */
export function parentJobId(evalId: string): string {
  return `eval-${evalId}`;
}

/** Where an eval's cassette text is kept, once, while its jobs may need it. */
export function cassetteKey(evalId: string): string {
  return `${QUEUE_PREFIX}:cassette:${sha256(evalId).slice(0, 32)}`;
}

/** Where a finished run's export waits for the coordinator; deleted once imported. */
export function exportKey(jobId: string, runId: string): string {
  return `${QUEUE_PREFIX}:export:${jobId}:${runId}`;
}

/** The pattern of every export key of a job (a job run twice leaves two). */
export function exportKeys(jobId: string): string {
  return `${QUEUE_PREFIX}:export:${jobId}:*`;
}
