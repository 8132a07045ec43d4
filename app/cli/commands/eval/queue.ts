/** `society eval --queue URL [--rate P=N/UNIT]`: the eval's jobs go to workers through Redis. */
import { parseQueueUrl } from '../../../eval/queue/connection.ts';
import { parseRates } from '../../../eval/queue/rate-limit.ts';
import type { Executor, PlannedJob } from '../../../eval/runner.ts';
import type { RunStore } from '../../../store/index.ts';
import { UsageError } from '../../errors.ts';
import { KEY_ADVICE, keyShapedIn } from '../../key-shaped.ts';
import { terminalText } from '../../terminal-text.ts';

/** Checks `--queue` and `--rate` before any work; a usage error names the flag. */
export function checkQueueFlags(flags: { queue?: string; rate?: string[] }): void {
  if (flags.rate?.length && flags.queue === undefined)
    throw new UsageError('--rate needs --queue: the limits are kept in Redis, for every worker');
  try {
    if (flags.queue !== undefined) parseQueueUrl(flags.queue);
    parseRates(flags.rate ?? []);
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

/** The executor for `--queue`; `cannot reach Redis at …` is a usage error (exit 2). */
export async function queueExecutorFor(
  store: RunStore,
  evalId: string,
  plan: readonly PlannedJob[],
  flags: { queue: string; rate?: string[] },
): Promise<Executor> {
  checkQueueFlags(flags);
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
      // Not progress: said even with --quiet (no worker connected, who ran what).
      log: (line) => process.stderr.write(`${terminalText(line)}\n`),
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
