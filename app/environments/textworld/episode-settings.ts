/**
 * What a text-world episode opens with, apart from the episode itself (./episode.ts), so the
 * editor can check a node's settings on their own.
 */
import { z } from 'zod';
import type { EnvironmentSettings } from '../types.ts';
import { TURN_ORDERS } from './state.ts';

const settings = z.strictObject({
  /** A built-in world's name (`irollan-valley`), or a world file's content. */
  world: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  seed: z.union([z.string(), z.number()]).default(0),
  turnOrder: z.enum(TURN_ORDERS).default('fixed'),
  /** Steps after which the episode is over; a text world has no end of its own. */
  maxSteps: z.number().int().min(1).optional(),
});
export type TextWorldSettings = z.infer<typeof settings>;

export const textWorldSettings: EnvironmentSettings<TextWorldSettings> = {
  kind: 'textworld',
  title: 'Text world',
  settings,
};
