/** A mindstorm's data: rounds, stop conditions, NLSOM structure and rights. */
import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { topologyFields } from './topology.ts';
import { mindstormPrompts } from './wording.ts';

/** A declarative end condition, checked after every round. */
export const StopCondition = z.discriminatedUnion('kind', [
  /** A node's output contains a keyword (case-insensitive). */
  z.strictObject({ kind: z.literal('keyword'), node: z.string(), keyword: z.string().min(1) }),
  /** Every replica of a node (or every listed node) gave the same answer this round. */
  z.strictObject({ kind: z.literal('consensus'), nodes: z.array(z.string()).min(1) }),
  /** A node's output did not change since the previous round. */
  z.strictObject({ kind: z.literal('unchanged'), node: z.string() }),
  /**
   * The model calls made inside this loop entry (prompt and completion tokens, as providers
   * report them) reached `max`: the round that reaches it is the last.
   */
  z.strictObject({ kind: z.literal('tokens'), max: z.number().int().positive() }),
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
      /** Right to know: members see the previous-round answers of those the topology shows them. */
      rtk: z.boolean().default(false),
      /** Right to change: after the rounds, members may revise each answer. */
      rtc: z.boolean().default(false),
      /** Right to execute: members vote on the final decision instead of the leader. */
      rte: z.boolean().default(false),
    })
    .default({ rtk: false, rtc: false, rte: false }),
  /** The subordinate nodes inside the loop that rights apply to (usually one replicated agent). */
  members: z.array(z.string()).default([]),
  /** Who sees whose answers under the right to know (./topology.ts). */
  ...topologyFields,
  /** The decide-stage agent whose question members vote on under RTE. */
  leader: z.string().optional(),
  /** Tie-break for member votes under RTE. */
  tieBreak: z.enum(['first', 'random']).default('first'),
  /** The words around members' turns under each right (Liquid; see ./wording.ts). */
  prompts: mindstormPrompts,
});
export type MindstormData = z.infer<typeof mindstormData>;

/** Effective rights: a democracy holds all three. */
export function effectiveRights(data: MindstormData): MindstormData['rights'] {
  return data.structure === 'democracy' ? { rtk: true, rtc: true, rte: true } : data.rights;
}

/**
 * A member's turn outside its rounds: a revision of a round's answer (right to change) or a
 * ballot on the leader's question (right to execute). The kind is the turn's stage in events.
 */
export const MindstormPhase = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('revise'), question: z.string(), options: z.array(z.string()) }),
  z.object({ kind: z.literal('ballot'), prompt: z.string() }),
]);
export type MindstormPhase = z.infer<typeof MindstormPhase>;

/** What a mindstorm adds to the loop a node inside sees (its templates read `loop.rights`…). */
export type MindstormView = {
  structure: MindstormData['structure'];
  rights: MindstormData['rights'];
  /** True when this node is one of the loop's members (subordinates that can hold rights). */
  member: boolean;
  /**
   * Right to know: what the members answered in the previous round, and the inputs they were
   * answering. Present from round 2 on when RTK is granted to this member.
   */
  peers?: { inputs: Record<string, unknown>; answers: Array<{ from: string; text: string }> };
};
