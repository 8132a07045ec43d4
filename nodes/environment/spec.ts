import { z } from 'zod';
import { RUNNERS } from '../../app/environments/cuisineworld/config.ts';
import { findLevel } from '../../app/environments/cuisineworld/levels.ts';
import type {
  EpisodeSetting,
  EpisodeSettings,
} from '../../app/environments/cuisineworld/settings.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

export const environmentData = z.strictObject({
  ...baseData,
  /** Which world: CuisineWorld, MindAgent's kitchen (Gong et al.). */
  kind: z.enum(['cuisineworld']).default('cuisineworld'),
  /** The level, e.g. `level_3`. */
  level: z.string().min(1).default('level_0'),
  agents: z.number().int().min(1).max(8).default(2),
  /** Which orders arrive is drawn from this seed: the same seed gives the same episode. */
  seed: z.union([z.string(), z.number()]).default(0),
  /** Episode length in steps (the paper's runs: 60). */
  maxSteps: z.number().int().min(1).max(1000).default(60),
  /**
   * Order frequency: orders arrive every ceil(alpha × 0.3 × wait) steps and live 2.5 times as
   * long; the paper's τ1…τ5 are alpha 1.0, 1.5, 2.0, 2.5, 3.0 (τ1 the busiest kitchen).
   */
  alpha: z.number().positive().max(100).default(1),
  /** At most this many orders open at once (the original engine: 6). */
  orderCap: z.number().int().min(1).max(100).default(6),
  /**
   * How turns count: `ours` plays a game step every turn and counts every expired order;
   * `paper` is MindAgent's runner: a turn with no readable command uses up the turn without
   * moving the game, and a step counts at most one expired order.
   */
  runner: z.enum(RUNNERS).default('ours'),
});
export type EnvironmentData = z.infer<typeof environmentData>;

/** Declares a world and its episode: a dispatcher wired to `world` plays it. */
export const spec = defineNode({
  type: 'environment',
  title: 'Environment',
  group: 'Structure',
  description:
    'A simulated world (CuisineWorld) with its level, agents, seed and episode length, for a dispatcher to play.',
  data: environmentData,
  check: (data) =>
    findLevel(data.level)?.source === 'final'
      ? []
      : [
          {
            path: ['level'],
            message: `CuisineWorld has no level "${data.level}" (level_0 … level_12)`,
          },
        ],
  ports: () => ({
    inputs: [],
    outputs: [
      { name: 'world', modality: 'json', description: 'the episode set-up, for a dispatcher' },
      { name: 'state', modality: 'text', description: 'the state before the first step' },
    ],
  }),

  // The world is the data itself, so an estimate can build a dispatcher's prompts before a run.
  knownOutput: (data, port) =>
    port === 'world'
      ? {
          kind: data.kind,
          level: findLevel(data.level)?.id ?? data.level,
          agents: data.agents,
          seed: data.seed,
          maxSteps: data.maxSteps,
          alpha: data.alpha,
          orderCap: data.orderCap,
          runner: data.runner,
        }
      : undefined,

  summary: (data) =>
    `${data.kind} ${data.level} · ${data.agents} agents${data.runner === 'paper' ? ' · paper runner' : ''}`,

  // A sweep sets the world up per episode: level, agents, order frequency, seed and length.
  episode: {
    read: (data) => {
      const found: Partial<EpisodeSettings> = {};
      if (typeof data.level === 'string') found.level = data.level;
      if (typeof data.agents === 'number') found.agents = data.agents;
      if (typeof data.alpha === 'number') found.alpha = data.alpha;
      if (typeof data.maxSteps === 'number') found.maxSteps = data.maxSteps;
      if (data.runner === 'ours' || data.runner === 'paper') found.runner = data.runner;
      return found;
    },
    apply: (data, settings) => {
      const next: Record<string, unknown> = { ...data };
      const applied: EpisodeSetting[] = [];
      for (const key of WORLD_SETTINGS) {
        if (settings[key] === undefined) continue;
        next[key] = settings[key];
        applied.push(key);
      }
      return { data: next, applied };
    },
  },
});

const WORLD_SETTINGS = [
  'level',
  'agents',
  'alpha',
  'seed',
  'maxSteps',
  'runner',
] as const satisfies readonly EpisodeSetting[];
