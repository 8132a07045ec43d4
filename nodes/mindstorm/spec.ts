import { templateProblems } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';
import { tallyReports } from '../../app/node-sdk/tally.ts';
import { mindstormGraphProblems } from './checks.ts';
import { mindstormEffect, mindstormOutputTokens } from './estimate.ts';
import { effectiveRights, mindstormData } from './rights.ts';
import { mindstormStates } from './states.ts';

export {
  effectiveRights,
  type MindstormData,
  mindstormData,
  StopCondition,
} from './rights.ts';

/**
 * A mindstorm: the nodes inside run once per round until max rounds or a stop condition.
 * Stages follow the NLSOM protocol: `init` once before the rounds (mission initialization),
 * `round` every round, `gather` once after (opinion gathering), `decide` last (execution).
 */
export const spec = defineNode({
  type: 'mindstorm',
  title: 'Mindstorm',
  group: 'Structure',
  description:
    'A loop of rounds among the nodes inside it, ending at max rounds or a condition; monarchy or democracy with NLSOM rights, and a topology for who sees whom.',
  container: 'loop',
  data: mindstormData,
  // A democracy's vote, shown with every other vote of the run (nodes/vote/run-view.tsx).
  reports: tallyReports,
  ports: () => ({
    inputs: [],
    outputs: [
      { name: 'transcript', modality: 'text' },
      { name: 'rounds', modality: 'number' },
      { name: 'verdict', modality: 'text' },
      { name: 'tally', modality: 'json' },
    ],
  }),
  check(data) {
    const rights = effectiveRights(data);
    // The rights' wording is a template like any prompt: checked as one.
    const problems = templateProblems(data.prompts).map((p) => ({
      ...p,
      path: ['prompts', ...p.path],
    }));
    if ((rights.rtk || rights.rtc || rights.rte) && data.members.length === 0) {
      problems.push({
        path: ['members'],
        message: 'rights apply to members: list the member node ids',
      });
    }
    if (rights.rte && !data.leader) {
      problems.push({
        path: ['leader'],
        message:
          'the right to execute needs a leader: the decide-stage agent whose question members vote on',
      });
    }
    return problems;
  },
  loop: {
    maxRounds: (data) => data.maxRounds,
    mayStopEarly: (data) => data.until.length > 0,
    states: mindstormStates,
    effect: mindstormEffect,
  },
  checkGraph: mindstormGraphProblems,
  outputTokens: mindstormOutputTokens,
  // Its members are who `society credit` leaves out, one at a time (each replica on its own).
  credit: { members: (data) => data.members },

  // A pasted mindstorm points at its own pasted leader and members.
  renameIds: (data, rename) => ({
    ...data,
    ...(Array.isArray(data.members)
      ? { members: data.members.map((m: unknown) => (typeof m === 'string' ? rename(m) : m)) }
      : {}),
    ...(typeof data.leader === 'string' ? { leader: rename(data.leader) } : {}),
  }),
  // Its members answer on their own in the vote-without-discussion baseline (app/eval/baselines).
  baseline: { members: (data) => data.members },
  // Who sees whom is drawn on the card (view.tsx), not said in words there.
  badges: (data) => [
    { label: `rounds ×${data.maxRounds}`, testId: 'rounds' },
    { label: data.structure },
  ],
});
