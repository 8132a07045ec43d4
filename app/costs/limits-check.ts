/**
 * Whether a document's own budget (`settings.budget`: `maxCalls`, `maxTokens`, `maxCostUsd`)
 * lets a run finish, judged from its estimate before any call. A budget is a safety stop; one
 * that a run is all but sure to hit only spends money on a run that ends "budget exceeded".
 *
 * The figure that counts is the estimate's likely run, first attempts only: every round of every
 * loop runs, answers fill `LIKELY_ANSWER_SHARE` of their max tokens, and no answer is refused (so
 * no repair or retry). The worst case is left out on purpose: a budget set between the likely
 * and the worst case is what a budget is for. A loop that can stop early (its container's
 * `mayStopEarly`) may need fewer calls than every round's, so a shortfall found there is marked
 * `mayStopEarly`: a warning, not a reason to refuse.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import { IMAGE_TOKENS } from '../providers/tokens.ts';
import type { RunSettings } from '../schema/document.ts';
import { estimateRun, LIKELY_ANSWER_SHARE } from './estimate.ts';
import type { PriceTable } from './prices.ts';

/** The budget fields a document may set. */
export type BudgetLimitName = 'maxCalls' | 'maxTokens' | 'maxCostUsd';

/** A budget a likely run needs more of than the document allows. */
export interface BudgetShortfall {
  limit: BudgetLimitName;
  /** What the document (or a command-line flag) sets. */
  value: number;
  /** What the likely run needs: calls (expert calls included), tokens, or US dollars. */
  needed: number;
  /** A loop in the run can stop early, so a run may need less than `needed`. */
  mayStopEarly: boolean;
}

/**
 * The budget limits of `plan`'s document that a likely run exceeds, in the order maxCalls,
 * maxTokens, maxCostUsd; empty when the document sets none or each is enough. `inputs` are the
 * values the run is given (their text counts toward prompts).
 */
export function budgetShortfalls(
  plan: GraphPlan,
  prices: PriceTable,
  inputs: Record<string, unknown> = {},
): BudgetShortfall[] {
  const budget = (plan.doc.settings as RunSettings | undefined)?.budget;
  if (
    budget?.maxCalls === undefined &&
    budget?.maxTokens === undefined &&
    budget?.maxCostUsd === undefined
  )
    return [];
  const likely = estimateRun(plan, prices, {
    inputs,
    imageTokens: IMAGE_TOKENS,
    answerShare: LIKELY_ANSWER_SHARE,
  }).firstAttempts;
  const mayStopEarly = [...plan.nodes.values()].some(
    (node) => node.spec.loop?.mayStopEarly?.(node.data as never) === true,
  );
  const needed: Record<BudgetLimitName, number> = {
    maxCalls: likely.calls,
    maxTokens: Math.round(likely.promptTokens + likely.completionTokens),
    maxCostUsd: likely.costUsd,
  };
  const out: BudgetShortfall[] = [];
  for (const limit of ['maxCalls', 'maxTokens', 'maxCostUsd'] as const) {
    const value = budget[limit];
    if (value !== undefined && needed[limit] > value)
      out.push({ limit, value, needed: needed[limit], mayStopEarly });
  }
  return out;
}

/**
 * "settings.budget.maxCalls is 40 but a run needs about 42 calls (likely estimate)": the limit,
 * its value and the figure, for a warning or a refusal.
 */
export function describeShortfall(s: BudgetShortfall): string {
  const figure =
    s.limit === 'maxCalls'
      ? `${s.needed.toLocaleString('en-US')} call${s.needed === 1 ? '' : 's'}`
      : s.limit === 'maxTokens'
        ? `${s.needed.toLocaleString('en-US')} tokens`
        : `$${dollars(s.needed)}`;
  const value = s.limit === 'maxCostUsd' ? `$${s.value}` : s.value.toLocaleString('en-US');
  return `settings.budget.${s.limit} is ${value} but a run needs about ${figure} (likely estimate${s.mayStopEarly ? ' with every round run; a loop may stop earlier' : ''})`;
}

/** The smallest value of the limit that covers the figure, as a flag would take it. */
export function enoughFor(s: BudgetShortfall): string {
  return s.limit === 'maxCostUsd' ? dollars(s.needed, true) : String(Math.ceil(s.needed));
}

/** Dollars to two significant decimals past the cents when small; `up` rounds up. */
function dollars(x: number, up = false): string {
  const digits = x >= 1 ? 2 : 4;
  const scale = 10 ** digits;
  const v = up ? Math.ceil(x * scale) / scale : Math.round(x * scale) / scale;
  return v.toFixed(digits);
}
