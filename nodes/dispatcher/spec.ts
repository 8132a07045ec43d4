import { z } from 'zod';
import type {
  EpisodeSetting,
  EpisodeSettings,
} from '../../app/environments/cuisineworld/settings.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode } from '../../app/node-sdk/define.ts';
import { dispatcherCalls } from './estimate.ts';
import { stepReport } from './report.ts';

export const dispatcherData = z.strictObject({
  ...baseData,
  /** A model profile from the document's `models`: the model that picks the commands. */
  model: z.string().min(1).optional().meta({ editor: 'model-profile' }),
  /** Who picks the commands: a model, or the greedy rules (no model, no cost). */
  controller: z.enum(['model', 'greedy']).default('model'),
  /**
   * On refused commands: `feedback` plays the step anyway and tells the model next step (as
   * the paper does); `retry` asks again with the feedback before committing the step.
   */
  behaviour: z.enum(['feedback', 'retry']).default('feedback'),
  /** Extra attempts per step under `retry`. */
  retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .meta({ showWhen: { field: 'behaviour', is: 'retry' } }),
  /** Put the last step's feedback into the prompt (off: the no-feedback ablation). */
  feedback: z.boolean().default(true),
  /** Include the environment's hints (off: the no-hints ablation). */
  hints: z.boolean().default(true),
  /**
   * Worked demonstrations in the prompt, and steps in each: 10, as long as the paper's
   * demonstrations (its 2-, 3- and 4-agent traces are 10 steps, long enough to serve a dish);
   * Table 8's short demo is 2.
   */
  demos: z.number().int().min(0).max(5).default(1),
  demoSteps: z.number().int().min(1).max(30).default(10),
  /** Agents in each demonstration; absent: as many as the kitchen has (Table 9 varies it). */
  demoAgents: z.number().int().min(1).max(8).optional(),
  /** Earlier steps kept in the prompt. */
  history: z.number().int().min(0).max(20).default(2),
  /** Agents a person plays: their commands are asked of the person each step. */
  seats: z
    .array(z.string().regex(/^agent(0|[1-9]\d*)$/, 'an agent id such as agent1'))
    .refine((seats) => new Set(seats).size === seats.length, 'each seat once')
    .default([]),
  /** Per call; when absent, the model profile's. */
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type DispatcherData = z.infer<typeof dispatcherData>;

/** The prompt ablations a sweep may set on a dispatcher (MindAgent Tables 8 and 9). */
const ABLATIONS = [
  'feedback',
  'hints',
  'demoSteps',
  'demoAgents',
] as const satisfies readonly EpisodeSetting[];

/**
 * A dispatcher in the manner of MindAgent: it plays an environment's episode (a CuisineWorld
 * kitchen), one command per agent per step, from a model, the greedy rules or people at seats.
 */
export const spec = defineNode({
  type: 'dispatcher',
  title: 'Dispatcher',
  group: 'Structure',
  description:
    'Plays an environment episode: each step a model (or the greedy rules) gives every agent a command; refusals are fed back.',
  data: dispatcherData,
  ports: () => ({
    inputs: [{ name: 'world', modality: 'json', required: true, description: 'an environment' }],
    outputs: [
      {
        name: 'metrics',
        modality: 'json',
        description: 'orders completed, failed and open; refusals',
      },
      { name: 'summary', modality: 'text', description: 'the episode in one line' },
    ],
  }),
  models: (data) => (data.model && data.controller === 'model' ? [data.model] : []),
  check: (data) => {
    const problems: DataProblem[] = [];
    if (data.controller === 'model' && !data.model)
      problems.push({ path: ['model'], message: 'a model controller needs a model profile' });
    return problems;
  },
  // Whether it calls models at all; `estimate` lists the calls (one per step of its
  // environment's episode).
  callsPerRun: (data) => (data.controller === 'model' ? 1 : 0),
  estimate: (ctx) => dispatcherCalls(ctx),

  // The agents a person plays are asked a command each step: `--input agent1@t3=...`.
  answers: (data) => data.seats.map((seat) => ({ name: seat, perStep: true })),

  // A sweep's ablations (MindAgent Tables 8 and 9) are a dispatcher's settings.
  episode: {
    read: (data) => {
      const found: Partial<EpisodeSettings> = {};
      for (const key of ['feedback', 'hints'] as const)
        if (typeof data[key] === 'boolean') found[key] = data[key];
      for (const key of ['demoSteps', 'demoAgents'] as const)
        if (typeof data[key] === 'number') found[key] = data[key];
      return found;
    },
    apply: (data, settings) => {
      // The greedy rules read no prompt: an ablation of it would change nothing.
      if (data.controller === 'greedy') return { data: { ...data }, applied: [] };
      const next: Record<string, unknown> = { ...data };
      const applied: EpisodeSetting[] = [];
      for (const key of ABLATIONS) {
        if (settings[key] === undefined) continue;
        next[key] = settings[key];
        applied.push(key);
      }
      return { data: next, applied };
    },
  },

  // Each step of the episode, for the run panel's Episodes tab (run-view.tsx) and the tables.
  reports: { step: stepReport },
  // Each step is also a message (`t=3: goto_agent0_storage0 …`): the terminal says it once.
  reportLine: () => null,

  summary: (data) =>
    `dispatch · ${data.controller === 'model' ? (data.model ?? 'model') : 'greedy rules'}`,
  // A model controller needs a profile: a new one takes the document's default.
  initialData: ({ profile }) => ({ model: profile }),
});
