/**
 * Running an eval: each item × variant × repeat job once, a few at a time, scored as it finishes and
 * recorded in the store as it goes. Running the same eval again resumes it: scored items are
 * skipped, a run that was cut off resumes from its own call record, and a run that finished
 * before its score was written is scored from the store.
 *
 * Who executes the runs is the executor's business: this process (local), or workers on a
 * queue (queue.ts). Both hand back a run that is in this store.
 */
import PQueue from 'p-queue';
import type { ProfileOverride } from '../providers/profiles.ts';
import { loadImages } from '../runs/record.ts';
import { BlobStore } from '../runtime/blobs.ts';
import type { RunResult } from '../runtime/run-options.ts';
import type { RunStore } from '../store/index.ts';
import type { McpProfile } from '../tools/profiles.ts';
import { commitTogether } from './commit.ts';
import { type EvalJob, executeJob, type JobOutcome } from './job.ts';
import type { Scorer } from './scorers.ts';
import { summarize } from './summary.ts';
import type { EvalItemRecord, EvalRecord, EvalSummary } from './types.ts';

/** A job with what scoring it needs. */
export interface PlannedJob {
  job: EvalJob;
  /** The dataset row (a multiple-choice scorer reads its options). */
  row: Record<string, unknown>;
  reference?: unknown;
  label?: string;
  /** The output scored; default: the run's only output, else its first. */
  output?: string;
  /** Why the job cannot run (its row lacks a field): it is recorded as failed without a run. */
  error?: string;
}

/** Who runs jobs. */
export interface Executor {
  /** Jobs in flight at once. */
  readonly concurrency: number;
  run(
    job: EvalJob,
    options: { resumeRunId?: string; onStart?: (runId: string) => void },
  ): Promise<JobOutcome>;
  close?(): Promise<void>;
}

/**
 * Runs jobs in this process, into `store`; their runs may contact the origins `store` allows
 * and `allowedOrigins` (a local eval's --allow-host), and open the MCP servers of `store`'s
 * profiles with `mcp` (a local eval's --mcp) over them; `approvedTools` (--approve-tools) run
 * though their policy is ask (no one is there to be asked).
 */
export function localExecutor(
  store: RunStore,
  concurrency: number,
  providerOverrides: Record<string, ProfileOverride> = {},
  allowedOrigins: readonly string[] = [],
  mcp: readonly McpProfile[] = [],
  approvedTools?: readonly string[],
): Executor {
  return {
    concurrency,
    run: (job, runOptions) =>
      executeJob(
        job,
        {
          store,
          providerOverrides,
          allowedOrigins,
          mcp,
          ...(approvedTools ? { approvedTools } : {}),
        },
        runOptions,
      ),
  };
}

/** How far an eval has got, for a progress bar. */
export interface EvalProgress {
  total: number;
  /** Jobs finished, those scored in an earlier session included. */
  done: number;
  /** Of them, finished in an earlier session. */
  resumed: number;
  failed: number;
  running: number;
  costUsd: number;
  tokens: number;
  /** When this session started, for a rate and an ETA. */
  startedAt: number;
  /** The last job finished, as `item 3 · default`. */
  last?: string;
}

export interface RunEvalOptions {
  /** Stop starting jobs once this much is spent (US dollars); the eval ends over-budget. */
  budgetUsd?: number;
  onProgress?: (progress: EvalProgress) => void;
  /** Aborted: no job starts after it; jobs in flight finish. */
  signal?: AbortSignal;
  /** Run items that failed in an earlier session again (by default they stay failed). */
  retryFailed?: boolean;
}

/**
 * When the first runs of a session all fail the same way (a missing key, a server that is not
 * there), the rest would too: the eval stops after this many, and those items are left to run
 * again rather than recorded as failed.
 */
const UNIFORM_FAILURES = 3;

/** Runs `plan`'s jobs under `record`, scores them with `scorer`, and returns the table. */
export async function runEval(
  store: RunStore,
  record: EvalRecord,
  plan: readonly PlannedJob[],
  scorer: Scorer,
  executor: Executor,
  options: RunEvalOptions = {},
): Promise<EvalSummary> {
  store.markInterrupted();
  const earlier = new Map(store.evalItems(record.id).map((i) => [slotOf(i), i]));
  const progress: EvalProgress = {
    total: plan.length,
    done: 0,
    resumed: 0,
    failed: 0,
    running: 0,
    costUsd: 0,
    tokens: 0,
    startedAt: Date.now(),
  };
  const tell = () => options.onProgress?.({ ...progress });
  const pending: PlannedJob[] = [];
  for (const planned of plan) {
    const key = slotOf(planned.job);
    const before = earlier.get(key);
    if (before?.status === 'failed' && options.retryFailed) {
      // Run afresh: the failed run stays in the store as it was.
      earlier.delete(key);
      pending.push(planned);
    } else if (before && before.status !== 'running') {
      count(progress, before);
      progress.resumed++;
    } else pending.push(planned);
  }
  tell();

  let overBudget = false;
  let halted: string | undefined;
  const session: EvalItemRecord[] = [];
  const queue = new PQueue({ concurrency: Math.max(1, executor.concurrency) });
  // Items finishing together are recorded in one transaction: one sync to disk for them all.
  const commit = commitTogether(store);
  for (const planned of pending) {
    queue.add(async () => {
      if (options.signal?.aborted || halted !== undefined) return;
      if (options.budgetUsd !== undefined && progress.costUsd >= options.budgetUsd) {
        overBudget = true;
        return;
      }
      progress.running++;
      try {
        const before = earlier.get(slotOf(planned.job));
        const item = await runOne(store, planned, scorer, executor, before, commit);
        session.push(item);
        halted ??= uniformFailure(session, Math.min(UNIFORM_FAILURES, pending.length));
        count(progress, item);
        progress.last = `item ${planned.job.item + 1}${planned.job.repeat ? ` (repeat ${planned.job.repeat + 1})` : ''} · ${planned.job.variant}`;
      } finally {
        progress.running--;
        tell();
      }
    });
  }
  await queue.onIdle();
  if (halted !== undefined)
    for (const item of session)
      if (item.status === 'failed' && item.error === halted)
        store.deleteEvalItem(item.evalId, item.item, item.variant, item.repeat ?? 0);
  const finished = store.evalItems(record.id).filter((i) => i.status !== 'running').length;
  store.setEvalStatus(
    record.id,
    finished >= plan.length ? 'finished' : overBudget ? 'over-budget' : 'interrupted',
  );
  const summary = summarize(
    store.getEval(record.id)!,
    store.evalItems(record.id),
    store.evalRatings(record.id),
  );
  return halted === undefined ? summary : { ...summary, stopped: halted };
}

/** Where a job's record is: its item, variant and repeat. */
function slotOf(of: { item: number; variant: string; repeat?: number }): string {
  return `${of.item}\u0000${of.variant}\u0000${of.repeat ?? 0}`;
}

/** The shared error when the first `count` runs of a session all failed with it. */
function uniformFailure(session: readonly EvalItemRecord[], count: number): string | undefined {
  if (session.length < count || count === 0) return undefined;
  const first = session.slice(0, count);
  const error = first[0]!.error;
  return first.every((i) => i.status === 'failed' && i.error === error) &&
    !session.some((i) => i.status === 'scored')
    ? error
    : undefined;
}

function count(progress: EvalProgress, item: EvalItemRecord): void {
  progress.done++;
  if (item.status === 'failed') progress.failed++;
  progress.costUsd += item.costUsd;
  progress.tokens += item.tokens;
}

/** Runs (or resumes, or only scores) one job and records its item. */
async function runOne(
  store: RunStore,
  planned: PlannedJob,
  scorer: Scorer,
  executor: Executor,
  before: EvalItemRecord | undefined,
  commit: (write: () => void) => Promise<void>,
): Promise<EvalItemRecord> {
  const { job } = planned;
  const base = {
    evalId: job.evalId,
    item: job.item,
    variant: job.variant,
    ...(job.repeat ? { repeat: job.repeat } : {}),
    jobKey: job.jobKey,
    ...(planned.label !== undefined ? { label: planned.label } : {}),
    ...(planned.reference !== undefined ? { reference: planned.reference } : {}),
  };
  const earlierRun = before?.runId ? store.getRun(before.runId) : undefined;
  let outcome: Pick<JobOutcome, 'runId' | 'result' | 'latencyMs' | 'blobs'>;
  try {
    if (planned.error !== undefined) throw new Error(planned.error);
    if (earlierRun && earlierRun.status !== 'interrupted' && earlierRun.status !== 'running') {
      // It finished before its score was written: score it from the store.
      const blobs = new BlobStore();
      loadImages(store, blobs, earlierRun.outputs ?? {});
      outcome = {
        runId: earlierRun.id,
        result: {
          runId: earlierRun.id,
          status: earlierRun.status as RunResult['status'],
          outputs: earlierRun.outputs ?? {},
          usage: earlierRun.usage ?? zeroUsage(),
          ...(earlierRun.error ? { error: earlierRun.error } : {}),
          simulated: earlierRun.mode === 'simulated',
        },
        latencyMs: before?.latencyMs ?? (earlierRun.finishedAt ?? 0) - earlierRun.startedAt,
        blobs,
      };
    } else {
      outcome = await executor.run(job, {
        ...(earlierRun?.status === 'interrupted' ? { resumeRunId: earlierRun.id } : {}),
        onStart: (runId) =>
          store.putEvalItem({ ...base, runId, status: 'running', costUsd: 0, tokens: 0, calls: 0 }),
      });
    }
  } catch (error) {
    const item = {
      ...base,
      ...(before?.runId ? { runId: before.runId } : {}),
      status: 'failed' as const,
      error: (error as Error).message,
      costUsd: 0,
      tokens: 0,
      calls: 0,
    };
    await commit(() => store.putEvalItem(item));
    return { ...item, updatedAt: Date.now() };
  }
  const { result } = outcome;
  const usage = {
    costUsd: result.usage.costUsd ?? 0,
    tokens: result.usage.totalTokens ?? 0,
    calls: (result.usage.calls ?? 0) + (result.usage.expertCalls ?? 0),
    latencyMs: outcome.latencyMs,
  };
  let item: Omit<EvalItemRecord, 'updatedAt'>;
  if (result.status !== 'succeeded') {
    item = {
      ...base,
      runId: outcome.runId,
      status: 'failed',
      error: result.error ?? `the run ended ${result.status}`,
      ...usage,
    };
  } else {
    const prediction = predictionOf(result.outputs, planned.output);
    try {
      const score = await scorer.score(prediction, planned.reference, {
        row: planned.row,
        blobs: outcome.blobs,
        outputs: result.outputs,
      });
      item = {
        ...base,
        runId: outcome.runId,
        status: 'scored',
        score,
        prediction: compact(prediction),
        ...usage,
      };
    } catch (error) {
      item = {
        ...base,
        runId: outcome.runId,
        status: 'failed',
        prediction: compact(prediction),
        error: `scoring failed: ${(error as Error).message}`,
        ...usage,
      };
    }
  }
  await commit(() => store.putEvalItem(item));
  return { ...item, updatedAt: Date.now() };
}

/** The output scored: the named one, else the only one, else the first. */
export function predictionOf(outputs: Record<string, unknown>, name?: string): unknown {
  if (name !== undefined) return outputs[name];
  const values = Object.values(outputs);
  return values[0];
}

/** A prediction as stored with its item: long texts and large values cut to a readable size. */
function compact(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
  const text = JSON.stringify(value ?? null);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : value;
}

function zeroUsage(): RunResult['usage'] {
  return { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };
}
