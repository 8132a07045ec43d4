/** `society eval --queue URL [--rate P=N/UNIT]`: the eval's jobs go to workers through Redis. */
import { parseQueueUrl } from '../../../eval/queue/connection.ts';
import { parseRates } from '../../../eval/queue/rate-limit.ts';
import { loadQueueSecret } from '../../../eval/queue/trust.ts';
import type { Executor, PlannedJob } from '../../../eval/runner.ts';
import type { RunStore } from '../../../store/index.ts';
import { looksLikeKey } from '../../../store/secrets.ts';
import { terminalText } from '../../../terminal/terminal-text.ts';
import { UsageError } from '../../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../../key-shaped.ts';
import { processRedactor } from '../../redaction.ts';

type QueueFlags = { queue?: string; rate?: string[]; queueSecretFile?: string };

/**
 * Checks `--queue`, `--rate` and the queue's secret before any work; a usage error names the
 * flag. Returns the secret (the process's redactor knows it from here on).
 */
export function checkQueueFlags(flags: QueueFlags): string | undefined {
  if (flags.rate?.length && flags.queue === undefined)
    throw new UsageError('--rate needs --queue: the limits are kept in Redis, for every worker');
  if (flags.queueSecretFile !== undefined && flags.queue === undefined)
    throw new UsageError('--queue-secret-file needs --queue');
  try {
    parseRates(flags.rate ?? []);
    if (flags.queue === undefined) return undefined;
    parseQueueUrl(flags.queue);
    const secret = loadQueueSecret(flags.queueSecretFile);
    processRedactor.add([secret]);
    return secret;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * A queued eval puts each variant's document into Redis, for any worker to read: one holding a
 * key-shaped string is refused before anything is queued (exit 2), naming the variant and the
 * JSON path, never the value.
 */
export function refuseKeyShapedJobs(plan: readonly PlannedJob[]): void {
  const seen = new Set<string>();
  for (const { job } of plan) {
    if (seen.has(job.documentText)) continue;
    seen.add(job.documentText);
    let doc: unknown;
    try {
      doc = JSON.parse(job.documentText);
    } catch {
      doc = job.documentText;
    }
    const holding = keyShapedIn(doc);
    if (holding)
      throw new UsageError(
        `--queue: not queued: the document of variant ${job.variant} holds what looks like a key at ${holding}. ${KEY_ADVICE} and run again`,
      );
  }
}

/**
 * Every job, as it will be written to Redis: a document or inputs holding a key (the value of a
 * key variable this process knows, or a string shaped like one, a dataset row's included) is
 * not queued at all.
 */
function refuseKeysInJobs(plan: readonly PlannedJob[]): void {
  for (const { job } of plan) {
    const where = `item ${job.item + 1} · ${job.variant}`;
    const inputs = JSON.stringify(job.inputs);
    for (const [what, text] of [
      ['document', job.documentText],
      ['inputs', inputs],
    ] as const)
      if (processRedactor.finds(text) || looksLikeKey(text))
        throw new UsageError(
          `${where}: its ${what} hold${what === 'document' ? 's' : ''} a key (or a string shaped like one); it would be written to Redis, so the eval is not queued. Take the key out, or run the eval without --queue`,
        );
  }
}

/** The executor for `--queue`; `cannot reach Redis at …` is a usage error (exit 2). */
export async function queueExecutorFor(
  store: RunStore,
  evalId: string,
  plan: readonly PlannedJob[],
  flags: QueueFlags & { queue: string },
): Promise<Executor> {
  const secret = checkQueueFlags(flags)!;
  refuseKeysInJobs(plan);
  const redirected = new Set(
    plan.flatMap((planned) => Object.keys(planned.job.providerOverrides ?? {})),
  );
  // A worker never takes a URL or a key variable from a job: it needs the profile itself.
  if (redirected.size)
    process.stderr.write(
      `queue: workers reach ${[...redirected].join(', ')} through their own profiles of that name: start each worker with the same --provider (society worker --provider NAME=URL[,key=VAR]); a worker without it refuses the job\n`,
    );
  const rates = parseRates(flags.rate ?? []);
  // BullMQ loads only for a queued eval.
  const { jobsToQueue, queueExecutor } = await import('../../../eval/queue.ts');
  try {
    return await queueExecutor({
      address: parseQueueUrl(flags.queue),
      store,
      evalId,
      jobs: jobsToQueue(store, evalId, plan),
      ...(Object.keys(rates).length ? { rates } : {}),
      secret,
      // Not progress: said even with --quiet (no worker connected, who ran what).
      log: (line) => process.stderr.write(`${terminalText(line)}\n`),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
