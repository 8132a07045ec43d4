/**
 * A node type that exists only for the tests: it tosses a coin from the run's seeded random
 * source and hands its input down `heads` or `tails`; the other branch is not taken, so what
 * depends only on it is skipped (never started, no model call). It reports each toss (a `flip`),
 * which its run view (run-view.tsx) lists in a "Coin" tab. Everything it has lives in this
 * folder.
 */
import { z } from 'zod';
import { baseData } from '../../../../app/node-sdk/common.ts';
import { defineNode } from '../../../../app/node-sdk/define.ts';

export const SIDES = ['heads', 'tails'] as const;

export const coinData = z.strictObject({
  ...baseData,
  /** The chance of heads, from 0 to 1. */
  heads: z.number().min(0).max(1).default(0.5),
});
export type CoinData = z.infer<typeof coinData>;

/** What one toss reports: the side shown and the draw (0 to 1) that showed it. */
export const flipReport = z.strictObject({
  side: z.enum(SIDES),
  draw: z.number().min(0).max(1),
});
export type FlipReport = z.infer<typeof flipReport>;

export const spec = defineNode({
  type: 'coin',
  title: 'Coin',
  group: 'Decisions',
  description: 'Test fixture: tosses a seeded coin and sends its input down heads or tails.',
  data: coinData,
  ports: () => ({
    inputs: [{ name: 'value', modality: 'any', required: true, description: 'what is handed on' }],
    outputs: SIDES.map((name) => ({
      name,
      modality: 'any' as const,
      description: `the input, when the coin shows ${name}`,
    })),
  }),
  callsPerRun: () => 0,
  // Each side hands the input on: what a side leads to asks its shape of what feeds the coin.
  passesShape: (_data, port) => port === 'value',
  branching: (data) => ({
    outputs: [...SIDES],
    odds: { heads: data.heads, tails: 1 - data.heads },
  }),
  reports: { flip: flipReport },
  summary: (data) => `heads ${Math.round(data.heads * 100)}% · tails`,
});
