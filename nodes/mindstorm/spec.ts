import { z } from 'zod';
import { baseData } from '../../app/nodes/common.ts';
import { defineNode } from '../../app/nodes/define.ts';

/** A declarative end condition, checked after every round. */
export const StopCondition = z.discriminatedUnion('kind', [
  /** A node's output contains a keyword (case-insensitive). */
  z.strictObject({ kind: z.literal('keyword'), node: z.string(), keyword: z.string().min(1) }),
  /** Every replica of a node (or every listed node) gave the same answer this round. */
  z.strictObject({ kind: z.literal('consensus'), nodes: z.array(z.string()).min(1) }),
  /** A node's output did not change since the previous round. */
  z.strictObject({ kind: z.literal('unchanged'), node: z.string() }),
]);
export type StopCondition = z.infer<typeof StopCondition>;

export const mindstormData = z.strictObject({
  ...baseData,
  maxRounds: z.number().int().min(1).max(1000).default(3),
  /** Ends the loop early when any condition holds after a round. */
  until: z.array(StopCondition).default([]),
  /**
   * NLSOM structures: in a monarchy a leader decides; a democracy grants members every right
   * (Table 4: monarchy + RTK + RTC + RTE).
   */
  structure: z.enum(['monarchy', 'democracy']).default('monarchy'),
  rights: z
    .strictObject({
      /** Right to know: members see all members' previous-round answers. */
      rtk: z.boolean().default(false),
      /** Right to change: after the rounds, members may revise each answer. */
      rtc: z.boolean().default(false),
      /** Right to execute: members vote on the final decision instead of the leader. */
      rte: z.boolean().default(false),
    })
    .default({ rtk: false, rtc: false, rte: false }),
  /** The subordinate nodes inside the loop that rights apply to (usually one replicated agent). */
  members: z.array(z.string()).default([]),
  /** The decide-stage agent whose question members vote on under RTE. */
  leader: z.string().optional(),
  /** Tie-break for member votes under RTE. */
  tieBreak: z.enum(['first', 'random']).default('first'),
});
export type MindstormData = z.infer<typeof mindstormData>;

/** Effective rights: a democracy holds all three. */
export function effectiveRights(data: MindstormData): MindstormData['rights'] {
  return data.structure === 'democracy' ? { rtk: true, rtc: true, rte: true } : data.rights;
}

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
    'A loop of rounds among the nodes inside it, ending at max rounds or a condition; monarchy or democracy with NLSOM rights.',
  container: 'loop',
  data: mindstormData,
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
    const problems = [];
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
});
