/**
 * What `society cuisineworld sweep` varies per episode: the world's set-up, and the dispatcher
 * ablations of MindAgent's Tables 8 and 9. Nodes hold them through their `episode` hook (the
 * environment node the world's, the dispatcher the prompt's); the core passes them on as a
 * plain record and knows none of their names.
 */
export interface EpisodeSettings {
  level: string;
  agents: number;
  /** Order frequency (τ1…τ5 are 1, 1.5, 2, 2.5, 3). */
  alpha: number;
  seed: string;
  maxSteps: number;
  /** How turns and expiries count: `ours` or MindAgent's runner (`paper`); see config.ts. */
  runner: 'ours' | 'paper';
  /** Tell the dispatcher why commands were refused (off: Table 8's "without feedback"). */
  feedback: boolean;
  /** Give it the environment's hints (off: Table 8's "without inference knowledge"). */
  hints: boolean;
  /** Steps in each worked demonstration (Table 8's "2-step demo"). */
  demoSteps: number;
  /** Agents in the demonstrations, whatever the kitchen has (Table 9). */
  demoAgents: number;
}

/** The settings a sweep names, as the keys of `EpisodeSettings`. */
export type EpisodeSetting = keyof EpisodeSettings;
