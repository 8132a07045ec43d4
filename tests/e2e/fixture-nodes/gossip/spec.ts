/**
 * A node type that exists only for the tests: a tiny village that reports the run's analytics
 * through its context, the way an environment node does. Each execution plays `steps` steps (in
 * a loop, round r plays the r-th `steps` of them): every talkative agent chats to someone, quiet
 * ones only wave, and each agent's resources and mood and each area's topic are series points.
 * No model is called; what happens comes from the run's seeded random source.
 */
import { z } from 'zod';
import { baseData } from '../../../../app/node-sdk/common.ts';
import { defineNode } from '../../../../app/node-sdk/define.ts';
import { analyticsReports } from '../../../../app/node-sdk/reported.ts';

export const gossipData = z.strictObject({
  ...baseData,
  /** Who lives in the village. */
  agents: z.array(z.string().min(1)).min(2).default(['ann', 'bob', 'cy', 'dee']),
  /** Agents who never chat (they wave): the heat map's "no chat" row. */
  quiet: z.array(z.string()).default(['dee']),
  /** Areas whose topic is reported each step. */
  areas: z.array(z.string().min(1)).default(['canteen', 'library']),
  /** Steps played per execution. */
  steps: z.number().int().min(1).max(100).default(3),
});
export type GossipData = z.infer<typeof gossipData>;

export const spec = defineNode({
  type: 'gossip',
  title: 'Gossip',
  group: 'Data',
  description: 'Test fixture: a village whose chats, resources and topics are run analytics.',
  data: gossipData,
  reports: analyticsReports,
  ports: () => ({ inputs: [], outputs: [{ name: 'text', modality: 'text' }] }),
  callsPerRun: () => 0,
  summary: (data) => `${data.agents.length} agents, ${data.steps} steps`,
});
