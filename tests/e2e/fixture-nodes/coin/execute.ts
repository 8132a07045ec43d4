import { type NodeExecutor, notTaken } from '../../../../app/node-sdk/define.ts';
import type { CoinData, FlipReport } from './spec.ts';

/** Tosses the run's seeded coin: the same seed shows the same side. */
export const execute: NodeExecutor<CoinData> = async (ctx) => {
  const draw = ctx.random();
  const side = draw < ctx.data.heads ? 'heads' : 'tails';
  ctx.report('flip', { side, draw } satisfies FlipReport);
  const why = `the coin showed ${side}`;
  return {
    heads: side === 'heads' ? ctx.inputs.value : notTaken(why),
    tails: side === 'tails' ? ctx.inputs.value : notTaken(why),
  };
};
