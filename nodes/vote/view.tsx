/**
 * The vote's card after a run: the winner, and how far ahead it came (from the `tally` output),
 * instead of the generic summary of its first output. Found like the spec
 * (renderer/editor/nodeViews.ts).
 */
import type { VoteTally } from '../../app/node-sdk/tally.ts';
import type { NodeView } from '../../renderer/editor/nodeViews.ts';
import type { ValueHook } from '../../renderer/model/cardValue.ts';
import type { VoteData } from './spec.ts';

const UNIT: Record<VoteTally['rule'], [string, string]> = {
  plurality: ['vote', 'votes'],
  majority: ['vote', 'votes'],
  borda: ['point', 'points'],
  approval: ['approval', 'approvals'],
};

/** `winner paris · 3 of 5 votes`, or `winner none · no candidate has more than half`. */
export const voteValue: ValueHook<VoteData> = (value) => {
  const { winner, tally } = value.outputs as { winner?: unknown; tally?: Partial<VoteTally> };
  if (winner !== undefined && winner !== null && typeof winner !== 'string') return undefined;
  if (!winner) {
    return {
      kind: 'choice',
      label: 'winner',
      value: 'none',
      ...(typeof tally?.reason === 'string' ? { detail: tally.reason } : {}),
    };
  }
  const count = tally?.counts?.[winner];
  const unit = tally?.rule ? UNIT[tally.rule] : undefined;
  let detail: string | undefined;
  if (typeof count === 'number' && unit) {
    const words = count === 1 ? unit[0] : unit[1];
    const valid = tally?.totals?.valid;
    detail =
      unit[0] === 'vote' && typeof valid === 'number'
        ? `${count} of ${valid} ${valid === 1 ? 'vote' : 'votes'}`
        : `${count} ${words}`;
    if (tally?.tieBreak) detail += ` · tie broken (${tally.tieBreak.rule})`;
  }
  return { kind: 'choice', label: 'winner', value: winner, ...(detail ? { detail } : {}) };
};

export const view: NodeView<VoteData> = { value: voteValue };
