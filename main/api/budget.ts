/**
 * The studio's side of budgets a run cannot meet (the rule is app/costs/limits-check.ts's, the
 * same `society run` applies): a run whose document's own `settings.budget` is below what its
 * likely estimate needs is refused before anything is recorded or called, in every mode (a
 * simulated or replayed run counts its calls against the budget and stops at it too), unless
 * the page says the person chose to run anyway and stop at the budget. A shortfall in a run
 * whose loop may stop early is only a warning, given back for the page to show.
 */
import type { GraphPlan } from '../../app/compiler/analyze.ts';
import { budgetShortfalls, describeShortfall, enoughFor } from '../../app/costs/limits-check.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

/** Where a studio user raises a limit: the document's settings, in the inspector. */
const WHERE = "in the document's settings (inspector → Document → settings)";

/**
 * Throws the refusal (reason `budget`) when a likely run of `plan` with `inputs` needs more than
 * the document's budget allows and `allowBudgetStop` is not set; returns the warnings to show
 * (a loop that may stop early, or a stop the person agreed to), one line each.
 */
export function checkStudioBudget(
  ctx: Pick<ApiContext, 'prices'>,
  plan: GraphPlan,
  inputs: Record<string, unknown>,
  allowBudgetStop: boolean,
): string[] {
  const shortfalls = budgetShortfalls(plan, ctx.prices(), inputs);
  const raise = (s: (typeof shortfalls)[number]) => `settings.budget.${s.limit} to ${enoughFor(s)}`;
  const refused = shortfalls.filter((s) => !s.mayStopEarly && !allowBudgetStop);
  if (refused.length > 0)
    throw new ApiError(
      `${refused.map(describeShortfall).join('; ')}: nothing was run. Raise ${refused.map(raise).join(' and ')} ${WHERE}, or run anyway (the run stops at the budget)`,
      undefined,
      'budget',
    );
  return shortfalls.map(
    (s) =>
      `${describeShortfall(s)}: the run may stop with "budget exceeded" (raise ${raise(s)} ${WHERE})`,
  );
}
