/**
 * What travels through Redis: a job (an EvalJob, plus the eval's rate limits) and what a worker
 * sends back (the finished run as a run export, with how long it took and who ran it). Both
 * sides parse what they receive: Redis is shared, and a worker of another version may answer.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EvalJob } from '../job.ts';
import type { RateLimit } from './rate-limit.ts';

/** A job as queued. */
export interface QueuedJob extends EvalJob {
  /** The eval's `--rate` limits; a worker applies the stricter of these and its own. */
  rates?: Record<string, RateLimit>;
}

/** What a worker hands back for a job. */
export interface JobResult {
  /** The finished run as `society export` writes it (app/cli/export.ts), as JSON text. */
  exportText: string;
  latencyMs: number;
  /** The worker's name (host and process), for the coordinator's tally. */
  worker: string;
}

const RateSchema = z.object({ max: z.number().positive(), perMs: z.number().positive() });

const QueuedJobSchema = z.looseObject({
  evalId: z.string(),
  item: z.number().int().min(0),
  variant: z.string(),
  jobKey: z.string(),
  documentText: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  blobs: z.array(z.object({ sha256: z.string(), mime: z.string(), base64: z.string() })),
  humanAnswers: z.record(z.string(), z.string()).optional(),
  mode: z.enum(['live', 'simulated', 'replay']),
  cassetteText: z.string().optional(),
  providerOverrides: z
    .record(
      z.string(),
      z.object({
        kind: z.enum(['openai-compatible', 'huggingface', 'simulated']).optional(),
        baseUrl: z.string().optional(),
        apiKeyEnv: z.string().optional(),
        concurrency: z.number().optional(),
      }),
    )
    .optional(),
  rates: z.record(z.string(), RateSchema).optional(),
});

const JobResultSchema = z.object({
  exportText: z.string(),
  latencyMs: z.number().min(0),
  worker: z.string(),
});

/** Reads a queued job, or says in one line why it is not one. */
export function parseQueuedJob(data: unknown): QueuedJob {
  const result = QueuedJobSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`not an eval job (${issue.path.join('.') || 'data'}: ${issue.message})`);
  }
  return result.data as QueuedJob;
}

/** Reads what a worker sent back. */
export function parseJobResult(value: unknown): JobResult {
  const result = JobResultSchema.safeParse(value);
  if (!result.success) throw new Error('the worker sent back something that is not a finished run');
  return result.data;
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
