import { z } from 'zod';
import { catalogueEntry, openAgiModules } from '../../app/experts/catalogue.ts';
import { baseData, modalitySchema, nameSchema } from '../../app/node-sdk/common.ts';
import {
  type DataProblem,
  defineNode,
  type EpisodeSettings,
  type PortSpec,
} from '../../app/node-sdk/define.ts';
import { plannerCalls } from './estimate.ts';

/** A plan's answer tokens when neither the node nor the call says otherwise. */
export const PLAN_MAX_TOKENS = 300;

/** How the planner describes the experts to the model (OpenAGI's Prompt-1, Prompt-2, few-shot). */
export const PLANNER_PROMPTS = ['descriptions', 'names', 'few-shot'] as const;

const portSchema = z.strictObject({
  name: nameSchema,
  modality: modalitySchema,
  description: z.string().optional(),
});

export const plannerData = z.strictObject({
  ...baseData,
  /**
   * - `plan`: compose expert models into a plan and run it (OpenAGI);
   * - `dispatch`: play an environment episode, one command per agent per step (MindAgent).
   */
  mode: z.enum(['plan', 'dispatch']).default('plan'),
  /**
   * A model profile from the document's `models`. Without one, plans come from the built-in
   * rule planner (no model, no cost): a baseline to compare models against.
   */
  model: z.string().min(1).optional().meta({ editor: 'model-profile' }),
  /** The task; when absent it comes from the `task` input. */
  task: z
    .string()
    .min(1)
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** The values the plan starts from: each becomes an input port and a plan input. */
  inputs: z
    .array(portSchema)
    .min(1)
    .default([{ name: 'image', modality: 'image' }])
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** The modality of the answer. */
  output: modalitySchema.default('text').meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** Catalogue ids the plan may use (default: OpenAGI's 15 modules). */
  experts: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  prompt: z
    .enum(PLANNER_PROMPTS)
    .default('descriptions')
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** Plans asked for in all, the first included, before the node fails. */
  maxAttempts: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(3)
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** Data every expert of the plan gets (for example a `provider` for a custom endpoint). */
  expert: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** Run modules that have a local operation (upscale, denoise, deblur) locally. */
  preferLocal: z
    .boolean()
    .default(false)
    .meta({ showWhen: { field: 'mode', is: 'plan' } }),
  /** Per call; when absent, the model profile's (planning: 300). */
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  // ---- dispatch mode ----
  /** Who picks the commands: a model, or the greedy rules (no model, no cost). */
  controller: z
    .enum(['model', 'greedy'])
    .default('model')
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /**
   * On refused commands: `feedback` plays the step anyway and tells the model next step (as
   * the paper does); `retry` asks again with the feedback before committing the step.
   */
  behaviour: z
    .enum(['feedback', 'retry'])
    .default('feedback')
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Extra attempts per step under `retry`. */
  retries: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(2)
    .meta({ showWhen: { field: 'behaviour', is: 'retry' } }),
  /** Put the last step's feedback into the prompt (off: the no-feedback ablation). */
  feedback: z
    .boolean()
    .default(true)
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Include the environment's hints (off: the no-hints ablation). */
  hints: z
    .boolean()
    .default(true)
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Worked demonstrations in the prompt, and steps in each. */
  demos: z
    .number()
    .int()
    .min(0)
    .max(5)
    .default(1)
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  demoSteps: z
    .number()
    .int()
    .min(1)
    .max(30)
    .default(6)
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Agents in each demonstration; absent: as many as the kitchen has (Table 9 varies it). */
  demoAgents: z
    .number()
    .int()
    .min(1)
    .max(8)
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Earlier steps kept in the prompt. */
  history: z
    .number()
    .int()
    .min(0)
    .max(20)
    .default(2)
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
  /** Agents a person plays: their commands are asked of the person each step. */
  seats: z
    .array(z.string().regex(/^agent(0|[1-9]\d*)$/, 'an agent id such as agent1'))
    .refine((seats) => new Set(seats).size === seats.length, 'each seat once')
    .default([])
    .meta({ showWhen: { field: 'mode', is: 'dispatch' } }),
});
export type PlannerData = z.infer<typeof plannerData>;

/** The catalogue ids a planner may use. */
export function allowedExperts(data: Pick<PlannerData, 'experts'>): string[] {
  return data.experts ?? openAgiModules().map((e) => e.id);
}

/**
 * An LLM planner in the manner of OpenAGI: it asks a model for a plan over the experts it is
 * given, checks it (known modules, a type chain that holds), asks again with the problems when
 * it does not, and runs the accepted plan as a graph of its own.
 */
export const spec = defineNode({
  type: 'planner',
  title: 'Planner',
  group: 'Experts',
  description:
    'Asks a model to compose expert models into a plan, repairs invalid plans, and runs the plan as a graph.',
  data: plannerData,
  ports: (data) => {
    if (data.mode === 'dispatch') {
      return {
        inputs: [
          { name: 'world', modality: 'json', required: true, description: 'an environment' },
        ],
        outputs: [
          {
            name: 'metrics',
            modality: 'json',
            description: 'orders completed, failed and open; refusals',
          },
          { name: 'summary', modality: 'text', description: 'the episode in one line' },
        ],
      };
    }
    const inputs: PortSpec[] = [
      ...(data.task ? [] : [{ name: 'task', modality: 'text' as const, required: true }]),
      ...data.inputs.map((p) => ({
        name: p.name,
        modality: p.modality,
        required: true,
        ...(p.description ? { description: p.description } : {}),
      })),
    ];
    return {
      inputs,
      outputs: [
        { name: 'answer', modality: data.output, description: 'what the plan produced' },
        {
          name: 'plan',
          modality: 'json',
          description: 'the accepted plan, as text and as a graph',
        },
      ],
    };
  },
  models: (data) =>
    data.model && (data.mode === 'plan' || data.controller === 'model') ? [data.model] : [],
  // A plan's experts run on Hugging Face unless `expert.provider` names another profile (those
  // with a local operation may run locally, but no plan is known before the run).
  providers: (data) =>
    data.mode === 'plan'
      ? [typeof data.expert?.provider === 'string' ? data.expert.provider : 'hf-inference']
      : [],
  check: (data) => {
    const problems: DataProblem[] = [];
    if (data.mode === 'dispatch') {
      if (data.controller === 'model' && !data.model)
        problems.push({ path: ['model'], message: 'a model controller needs a model profile' });
      return problems;
    }
    for (const [i, id] of allowedExperts(data).entries()) {
      if (!catalogueEntry(id))
        problems.push({ path: ['experts', i], message: `unknown expert module "${id}"` });
    }
    const names = data.inputs.map((p) => p.name);
    if (new Set(names).size !== names.length)
      problems.push({ path: ['inputs'], message: 'input names must differ' });
    if (!data.task && names.includes('task'))
      problems.push({
        path: ['inputs'],
        message: '"task" is the task input; name the value otherwise',
      });
    return problems;
  },
  // Whether it calls models at all; `estimate` lists the calls (a dispatcher: one per step of
  // its environment's episode; a plan: its attempts and the plan's experts).
  callsPerRun: (data) =>
    data.mode === 'dispatch'
      ? data.controller === 'model'
        ? 1
        : 0
      : data.model
        ? data.maxAttempts
        : 1,
  estimate: (ctx) => plannerCalls(ctx),

  // The agents a person plays are asked a command each step: `--input agent1@t3=...`.
  answers: (data) => data.seats.map((seat) => ({ name: seat, perStep: true })),

  // A sweep's ablations (MindAgent Tables 8 and 9) are a dispatcher's settings.
  episode: {
    read: (data) => {
      if (data.mode !== 'dispatch') return {};
      const found: Partial<EpisodeSettings> = {};
      for (const key of ['feedback', 'hints'] as const)
        if (typeof data[key] === 'boolean') found[key] = data[key];
      for (const key of ['demoSteps', 'demoAgents'] as const)
        if (typeof data[key] === 'number') found[key] = data[key];
      return found;
    },
    apply: (data, settings) => {
      // The greedy rules read no prompt: an ablation of it would change nothing.
      if (data.mode !== 'dispatch' || data.controller === 'greedy')
        return { data: { ...data }, applied: [] };
      const next: Record<string, unknown> = { ...data };
      const applied: Array<keyof EpisodeSettings> = [];
      for (const key of ['feedback', 'hints', 'demoSteps', 'demoAgents'] as const) {
        if (settings[key] === undefined) continue;
        next[key] = settings[key];
        applied.push(key);
      }
      return { data: next, applied };
    },
  },

  summary: (data) =>
    data.mode === 'dispatch'
      ? `dispatch · ${data.controller === 'model' ? (data.model ?? 'model') : 'greedy rules'}`
      : `plan · ${data.model ?? 'rule planner'}`,
});
