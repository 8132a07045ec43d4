/**
 * What `society validate` says of a budget its document's likely run exceeds, and the flag that
 * raises each limit. Kept apart from budget-check.ts so validate loads no store or runtime.
 */
import type { GraphPlan } from '../compiler/analyze.ts';
import {
  type BudgetLimitName,
  budgetShortfalls,
  describeShortfall,
  enoughFor,
} from '../costs/limits-check.ts';
import type { PriceTable } from '../costs/prices.ts';

/** The option of `society run` and the eval commands that sets each budget limit. */
export const FLAG_OF: Readonly<Record<BudgetLimitName, string>> = {
  maxCalls: '--max-calls',
  maxTokens: '--max-tokens',
  maxCostUsd: '--max-cost',
};

/** The warnings `society validate` prints: each shortfall of the document's likely run. */
export function budgetWarnings(
  plan: GraphPlan,
  prices: PriceTable,
  inputs: Record<string, unknown>,
): string[] {
  return budgetShortfalls(plan, prices, inputs).map(
    (s) =>
      `warning: ${describeShortfall(s)}; raise it, or run with ${FLAG_OF[s.limit]} ${enoughFor(s)}${s.mayStopEarly ? '' : ' (society run refuses it otherwise)'}`,
  );
}
