/**
 * What a CuisineWorld episode opens with, apart from the episode itself (./episode.ts), so the
 * editor can check a node's settings without loading the kitchen.
 */
import { z } from 'zod';
import type { EnvironmentSettings } from '../types.ts';

const settings = z.strictObject({
  /** A level id or a name for one (`3`, `L3`, `level_3`). */
  level: z.string().min(1),
  agents: z.number().int().min(1).max(8),
  seed: z.union([z.string(), z.number()]).default(0),
  maxSteps: z.number().int().min(1).optional(),
  /** CuisineWorld's own settings (`alpha`, `orderCap`). */
  options: z.record(z.string(), z.unknown()).optional(),
});
export type CuisineWorldSettings = z.infer<typeof settings>;

export const cuisineWorldSettings: EnvironmentSettings<CuisineWorldSettings> = {
  kind: 'cuisineworld',
  title: 'CuisineWorld',
  settings,
};
