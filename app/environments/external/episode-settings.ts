/**
 * What an outside simulator's episode opens with, apart from the episode itself (./episode.ts,
 * which holds the HTTP and WebSocket clients the editor must not load).
 */
import { z } from 'zod';
import type { EnvironmentSettings } from '../types.ts';

const settings = z.strictObject({
  url: z.string().min(1),
  seed: z.union([z.string(), z.number()]).default(0),
  /** Steps after which the episode is over, whatever the simulator says. */
  maxSteps: z.number().int().min(1).default(100),
  /** How long one request may wait for its answer. */
  timeoutMs: z.number().int().min(1).default(30_000),
  /** Passed to the simulator's reset as they are. */
  options: z.record(z.string(), z.unknown()).default({}),
});
export type ExternalSettings = z.infer<typeof settings>;

export const externalSettings: EnvironmentSettings<ExternalSettings> = {
  kind: 'external',
  title: 'Outside simulator',
  settings,
};
