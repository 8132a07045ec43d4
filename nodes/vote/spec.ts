import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';
import { tallyReports } from '../../app/node-sdk/tally.ts';

export const voteData = z.strictObject({
  ...baseData,
  rule: z.enum(['plurality', 'majority', 'borda', 'approval']).default('plurality'),
  /** What decides a tie at the top: candidate order, a seeded draw, or a named chair's ballot. */
  tieBreak: z.enum(['first', 'random', 'chair']).default('first'),
  /** The voter (node id, or replica id such as `critic#3`) whose ballot breaks ties. */
  chair: z.string().optional(),
  /** Majority rule when nobody has more than half: the plurality leader wins, or nobody. */
  noMajority: z.enum(['plurality', 'none']).default('plurality'),
  /** A fixed candidate list; otherwise candidates come from the `candidates` input or the ballots. */
  candidates: z.array(z.string()).optional(),
});
export type VoteData = z.infer<typeof voteData>;

/** Counts ballots under a voting rule; outputs the winner and the full tally with every ballot. */
export const spec = defineNode({
  type: 'vote',
  title: 'Vote',
  group: 'Decisions',
  description:
    'Counts ballots (plurality, majority, Borda or approval) and outputs the winner and the full tally.',
  data: voteData,
  ports: () => ({
    inputs: [
      { name: 'ballots', modality: 'any', required: true, multiple: true },
      { name: 'candidates', modality: 'list<text>' },
    ],
    outputs: [
      { name: 'winner', modality: 'text' },
      { name: 'tally', modality: 'json' },
    ],
  }),
  check: (data) =>
    data.tieBreak === 'chair' && !data.chair
      ? [{ path: ['chair'], message: 'tie-break "chair" needs a chair (a voter id)' }]
      : [],

  // The majority vote of the self-consistency and no-discussion baselines (app/eval/baselines).
  baseline: {
    tally: () => ({
      data: { rule: 'plurality', tieBreak: 'first' },
      input: 'ballots',
      output: 'winner',
    }),
  },
  summary: (data) => `${data.rule}, ties: ${data.tieBreak}`,
  // The full tally, for the Votes tab (run-view.tsx), the transcript and run diff.
  reports: tallyReports,

  // With a fixed list, a simulated voter names a candidate (ranks them all for Borda, names a
  // few for approval), so a simulated vote counts ballots instead of refusing them.
  inputShape: (data, port) =>
    port === 'ballots' && data.candidates && data.candidates.length > 0
      ? { kind: 'ballot', candidates: data.candidates, form: BALLOT_FORMS[data.rule] }
      : undefined,
});

const BALLOT_FORMS = {
  plurality: 'single',
  majority: 'single',
  borda: 'ranking',
  approval: 'approval',
} as const satisfies Record<VoteData['rule'], 'single' | 'ranking' | 'approval'>;
