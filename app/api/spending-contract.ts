/**
 * What a run may spend (spread into app/api/contract.ts): the estimate the studio shows before
 * a live run, the threshold above which it asks first (Settings → Live runs), the consent and
 * budget flags a run is started with, and why a run was refused when the page can offer a way on. The
 * estimate is the CLI's (`society run FILE --estimate`, app/costs/estimate.ts), made by the
 * backend from the document, its parameters and its inputs; the page never estimates itself.
 */
import { z } from 'zod';

/** The hosts a run may reach, the other guard before a run starts; contract.ts spreads it too. */
export { hostsContract } from './hosts-contract.ts';

/** Below this worst-case estimate a live run starts without asking, until the user sets another. */
export const DEFAULT_ASK_ABOVE_USD = 0.5;

/** The user's setting for live runs. */
export const LiveRunSettingsSchema = z.object({
  /** A live run whose worst-case estimate is above this many dollars is asked about first. */
  askAboveUsd: z.number().min(0).max(1_000_000),
});
export type LiveRunSettings = z.infer<typeof LiveRunSettingsSchema>;

const Figures = z.object({
  /** Model and expert calls. */
  calls: z.number(),
  /** Of `calls`, those to expert models (they have no tokens and no price). */
  expertCalls: z.number(),
  tokens: z.number(),
  /** Dollars at the price table; calls to models in `unpriced` add nothing. */
  costUsd: z.number(),
});

/**
 * Why a run was refused before it started, when the page can offer a way forward: a key is
 * missing (Settings → Keys, or Run simulated), the document's own budget is below its estimate
 * (raise it, or run anyway and stop at it), a live run's estimate is above the threshold in
 * Settings → Live runs and the person has not agreed to it (ask, then confirm), or the document
 * contacts a host the user has not allowed (`hosts`: show its origins, Allow and run or Cancel).
 */
export const RefusalReason = z.enum(['missing-keys', 'budget', 'spend', 'hosts']);
export type RefusalReason = z.infer<typeof RefusalReason>;

/**
 * The person agreed to the estimate (`run.estimate`, `runs.estimate`) of what a run that calls
 * live models may spend: without it, one above the threshold in Settings is refused before any call.
 */
export const LiveConsent = { costConfirmed: z.boolean().default(false) };

/**
 * An edit held under a cassette replay changes every later request, which the cassette then
 * lacks: the page says how those are answered (simulated or live) before the edit is made.
 * Going live checks the keys and, unless `costConfirmed`, the spending threshold.
 */
export const BeyondCassette = {
  beyondCassette: z.enum(['simulated', 'live']).optional(),
  ...LiveConsent,
};

/** Run although the document's budget is below its likely estimate: it stops at the budget. */
export const BudgetStop = { allowBudgetStop: z.boolean().default(false) };

/**
 * What `run.start` answers: the run's id and, when it may stop at the document's budget (a loop
 * that may stop early, or a stop the person allowed), one line for each limit it may reach.
 */
export const StartedRun = z.object({ runId: z.string(), warnings: z.array(z.string()).optional() });

const EstimateResult = z.object({
  likely: Figures,
  worstCase: Figures,
  /** Models without a price: their calls are counted, their cost is not. */
  unpriced: z.array(z.string()),
  askAboveUsd: z.number(),
  /** The worst case is above `askAboveUsd`: the run starts only once the person agrees. */
  ask: z.boolean(),
});

export const spendingContract = {
  /**
   * The estimate of a live run of this document with these parameters and inputs, likely and
   * worst case, and whether it is above the user's threshold (then the page asks first, and
   * `run.start` refuses a live run that was not confirmed).
   */
  'run.estimate': {
    params: z.object({
      document: z.record(z.string(), z.unknown()),
      inputs: z.record(z.string(), z.unknown()).default({}),
      params: z.record(z.string(), z.unknown()).default({}),
    }),
    result: EstimateResult,
  },
  /**
   * The estimate of a stored run (its document and inputs) run again live, for what may send
   * live calls from it: a fork, a retry from the failure, going live at an edit under a replay.
   * Those send only what their record lacks, so the whole run's estimate is an upper bound.
   */
  'runs.estimate': {
    params: z.object({ runId: z.string().min(1) }),
    result: EstimateResult,
  },
  'settings.liveRuns.get': {
    params: z.object({}),
    result: LiveRunSettingsSchema,
  },
  'settings.liveRuns.set': {
    params: LiveRunSettingsSchema,
    result: LiveRunSettingsSchema,
  },
} as const;
