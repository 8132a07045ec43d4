import { type NodeExecutor, notTaken } from '../../../../app/node-sdk/define.ts';
import type { CoinData } from './spec.ts';

/** Tosses the run's seeded coin: the same seed shows the same side. */
export const execute: NodeExecutor<CoinData> = async (ctx) => {
  const side = ctx.random() < ctx.data.heads ? 'heads' : 'tails';
  const why = `the coin showed ${side}`;
  return {
    heads: side === 'heads' ? ctx.inputs.value : notTaken(why),
    tails: side === 'tails' ? ctx.inputs.value : notTaken(why),
  };
};
