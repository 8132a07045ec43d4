import type { CallEstimateContext, EstimatedCall } from '../../app/node-sdk/estimate.ts';
import { type FilterData, promptOf } from './spec.ts';

/**
 * The filter's calls per execution: one in `batched` mode; in `each` mode one per action, at
 * most `maxActions` (how many arrive is known only at run time, so the worst case is the cap,
 * unless the source's data decides the count).
 */
export function filterCalls(ctx: CallEstimateContext<FilterData>): EstimatedCall[] {
  const { data } = ctx;
  if (!data.enabled) return [];
  const prompt = ctx.templateTokens(ctx.node, promptOf(data), ctx.vars);
  const known = ctx.knownInputLength(ctx.node, 'actions');
  const perExecution =
    data.mode === 'each' ? Math.min(known ?? data.maxActions, data.maxActions) : 1;
  const calls: EstimatedCall[] = [];
  for (const _ of ctx.executions) {
    for (let i = 0; i < perExecution; i++) calls.push({ promptTokens: prompt });
  }
  return calls;
}
