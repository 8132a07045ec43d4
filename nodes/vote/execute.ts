import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { VoteData } from './spec.ts';
import { tallyVotes } from './tally.ts';

export const execute: NodeExecutor<VoteData> = async (ctx) => {
  const data = ctx.data;
  const values = (ctx.inputs.ballots as unknown[] | undefined) ?? [];
  const voters = ctx.senders.ballots ?? [];
  const ballots = values.map((value, i) => ({ voter: voters[i] ?? `ballot-${i + 1}`, value }));
  const candidates = data.candidates ?? (ctx.inputs.candidates as string[] | undefined);
  const tally = tallyVotes(ballots, {
    rule: data.rule,
    tieBreak: data.tieBreak,
    chair: data.chair,
    noMajority: data.noMajority,
    candidates,
    seed: `${ctx.instanceId}:${Math.floor(ctx.random() * 2 ** 32)}`,
  });
  ctx.report('tally', tally);
  return { winner: tally.winner ?? '', tally };
};
