/**
 * What a live run may spend before anyone is asked: `run.estimate` (the CLI's estimate of the
 * run the page would start, likely and worst case), `runs.estimate` (the same of a stored run,
 * for a fork, a retry or going live at an edit under a replay), `settings.liveRuns.*` (the threshold, kept
 * in the store; default $0.50), and the check made before anything sends live calls (`run.start`,
 * `runs.fork`, `runs.continue`, `run.editHeld` going live): one whose worst case is above the
 * threshold starts only when the page says the person agreed.
 */

import type { ApiResult } from '../../app/api/contract.ts';
import {
  DEFAULT_ASK_ABOVE_USD,
  type LiveRunSettings,
  LiveRunSettingsSchema,
} from '../../app/api/spending-contract.ts';
import { type CompiledGraph, compileGraph } from '../../app/compiler/index.ts';
import { type EstimateTotals, estimateRun, LIKELY_ANSWER_SHARE } from '../../app/costs/estimate.ts';
import { BlobStore } from '../../app/runtime/blobs.ts';
import { type ApiContext, type ApiMethods, IMAGE_TOKENS, messageOf } from './context.ts';
import { ApiError } from './errors.ts';
import { readPageInputs } from './run-inputs.ts';
import { storedRun } from './stored-run.ts';

/** The store setting that holds the live-run threshold. */
const LIVE_RUNS_SETTING = 'editor.liveRuns';

/** The user's threshold, or the default when none (or one this build cannot read) is stored. */
export function liveRunSettings(ctx: ApiContext): LiveRunSettings {
  const stored = LiveRunSettingsSchema.safeParse(ctx.store.getSetting(LIVE_RUNS_SETTING));
  return stored.success ? stored.data : { askAboveUsd: DEFAULT_ASK_ABOVE_USD };
}

/** The estimate of a live run of `compiled` with `inputs`, and whether to ask first. */
export function liveEstimate(
  ctx: ApiContext,
  compiled: CompiledGraph,
  inputs: Record<string, unknown>,
): ApiResult<'run.estimate'> {
  const worst = worstCase(ctx, compiled, inputs);
  const likely = estimateRun(compiled.plan, ctx.prices(), {
    inputs,
    imageTokens: IMAGE_TOKENS,
    answerShare: LIKELY_ANSWER_SHARE,
    weighBranches: true,
  });
  const { askAboveUsd } = liveRunSettings(ctx);
  return {
    // A likely run's answers are taken the first time; the worst case counts every retry.
    likely: figures(likely.firstAttempts),
    worstCase: figures(worst),
    unpriced: worst.unpriced,
    askAboveUsd,
    ask: worst.costUsd > askAboveUsd,
  };
}

/** What the threshold is judged by: every branch taken, every retry, every answer at its cap. */
function worstCase(ctx: ApiContext, compiled: CompiledGraph, inputs: Record<string, unknown>) {
  return estimateRun(compiled.plan, ctx.prices(), { inputs, imageTokens: IMAGE_TOKENS });
}

function figures(totals: EstimateTotals) {
  return {
    calls: totals.calls,
    expertCalls: totals.expertCalls,
    tokens: totals.promptTokens + totals.completionTokens,
    // Dollars to a billionth: sums of prices per million leave float dust in the last digits.
    costUsd: Math.round(totals.costUsd * 1e9) / 1e9,
  };
}

/**
 * Refuses a live run above the threshold that the person did not agree to (reason `spend`). The
 * page asks first (`run.estimate`, `runs.estimate`), so this only stops a caller that skipped the
 * question. `what` names the run: a fork or a retry sends only what its record lacks, so for them
 * the whole run's worst case is an upper bound, and the message says so.
 */
export function checkLiveSpend(
  ctx: ApiContext,
  compiled: CompiledGraph,
  inputs: Record<string, unknown>,
  confirmed: boolean,
  what = 'this live run',
): void {
  if (confirmed) return;
  // Only the worst case decides: the likely estimate, a second pass over the plan, is not made.
  const { askAboveUsd } = liveRunSettings(ctx);
  const totals = worstCase(ctx, compiled, inputs);
  if (!(totals.costUsd > askAboveUsd)) return;
  const worst = figures(totals);
  const bound = what === 'this live run' ? '' : " (the whole run's estimate: an upper bound)";
  throw new ApiError(
    `${what} may cost up to $${worst.costUsd.toFixed(4)}${bound} (${worst.calls} call${worst.calls === 1 ? '' : 's'}, ${worst.tokens} tokens), above the $${askAboveUsd.toFixed(2)} set in Settings → Live runs: confirm it first`,
    undefined,
    'spend',
  );
}

/** A stored run's document, compiled, and the inputs it ran with: what a run again would send. */
export async function storedRunSource(
  ctx: ApiContext,
  runId: string,
): Promise<{ compiled: CompiledGraph; inputs: Record<string, unknown> }> {
  const record = storedRun(ctx.store, runId);
  const compiled = await compileGraph(record.documentText, await ctx.nodeRegistry());
  if (!compiled.ok) throw new ApiError(`run ${record.id} no longer compiles`, compiled.problems);
  return { compiled, inputs: record.inputs };
}

/** `run.estimate` and `settings.liveRuns.*`. */
export function spendingMethods(
  ctx: ApiContext,
): ApiMethods<
  'run.estimate' | 'runs.estimate' | 'settings.liveRuns.get' | 'settings.liveRuns.set'
> {
  return {
    async 'run.estimate'(params) {
      const registry = await ctx.nodeRegistry();
      const compiled = await compileGraph(params.document, registry, { params: params.params });
      if (!compiled.ok) throw new ApiError('the document has problems', compiled.problems);
      // Images count by IMAGE_TOKENS, not by their bytes: a scratch store is enough.
      const { inputs } = readPageInputs(params.inputs, compiled.plan, new BlobStore());
      return liveEstimate(ctx, compiled, inputs);
    },

    async 'runs.estimate'({ runId }) {
      const { compiled, inputs } = await storedRunSource(ctx, runId);
      return liveEstimate(ctx, compiled, inputs);
    },

    async 'settings.liveRuns.get'() {
      return liveRunSettings(ctx);
    },

    async 'settings.liveRuns.set'(settings) {
      try {
        ctx.store.setSetting(LIVE_RUNS_SETTING, settings);
      } catch (error) {
        throw new ApiError(messageOf(error));
      }
      return liveRunSettings(ctx);
    },
  };
}
