import { z } from 'zod';
import { catalogueEntry, openAgiModules } from '../../app/experts/catalogue.ts';
import { DEFAULT_MAPPING_MODEL, PLANNER_PROTOCOLS } from '../../app/experts/paper-planner.ts';
import { baseData, modalitySchema, nameSchema } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode, type PortSpec } from '../../app/node-sdk/define.ts';
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
   * A model profile from the document's `models`. Without one, plans come from the built-in
   * rule planner (no model, no cost): a baseline to compare models against.
   */
  model: z.string().min(1).optional().meta({ editor: 'model-profile' }),
  /** The task; when absent it comes from the `task` input. */
  task: z.string().min(1).optional(),
  /** The values the plan starts from: each becomes an input port and a plan input. */
  inputs: z
    .array(portSchema)
    .min(1)
    .default([{ name: 'image', modality: 'image' }]),
  /** The modality of the answer. */
  output: modalitySchema.default('text'),
  /** Catalogue ids the plan may use (default: OpenAGI's 15 modules). */
  experts: z.array(z.string().min(1)).min(1).optional(),
  prompt: z.enum(PLANNER_PROMPTS).default('descriptions'),
  /**
   * `schema`: JSON plans over the listed experts, repaired up to `maxAttempts` times. The paper's
   * protocols (`paper-zero-shot`, `paper-few-shot`): no expert list, free-text steps mapped to
   * modules by sentence similarity, one attempt, and an invalid plan leaves `answer` not taken
   * with the reason in `plan.invalid` (OpenAGI scores such a task 0).
   */
  protocol: z.enum(PLANNER_PROTOCOLS).default('schema'),
  /** The sentence-embedding model the paper protocols map steps to modules with. */
  mappingModel: z
    .string()
    .min(1)
    .default(DEFAULT_MAPPING_MODEL)
    .meta({ showWhen: { field: 'protocol', in: ['paper-zero-shot', 'paper-few-shot'] } }),
  /** Plans asked for in all, the first included, before the node fails. */
  maxAttempts: z.number().int().min(1).max(10).default(3),
  /** Data every expert of the plan gets (for example a `provider` for a custom endpoint). */
  expert: z.record(z.string(), z.unknown()).optional(),
  /** Run modules that have a local operation (upscale, denoise, deblur) locally. */
  preferLocal: z.boolean().default(false),
  /** Per call; when absent, the model profile's (planning: 300). */
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
});
export type PlannerData = z.infer<typeof plannerData>;

/**
 * What only one mode used when the planner also dispatched (`mode: "plan" | "dispatch"`): a
 * document from then keeps its own mode's fields and leaves the other's behind. The old shape,
 * written out: it does not change when either type gains fields.
 */
const PLAN_ONLY: ReadonlySet<string> = new Set([
  'task',
  'inputs',
  'output',
  'experts',
  'prompt',
  'maxAttempts',
  'expert',
  'preferLocal',
]);
const DISPATCH_ONLY: ReadonlySet<string> = new Set([
  'controller',
  'behaviour',
  'retries',
  'feedback',
  'hints',
  'demos',
  'demoSteps',
  'demoAgents',
  'history',
  'seats',
]);

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
  models: (data) => (data.model ? [data.model] : []),
  // A plan's experts run on Hugging Face unless `expert.provider` names another profile (those
  // with a local operation may run locally, but no plan is known before the run).
  providers: (data) => [
    typeof data.expert?.provider === 'string' ? data.expert.provider : 'hf-inference',
  ],
  check: (data) => {
    const problems: DataProblem[] = [];
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
  // Whether it calls models at all; `estimate` lists the calls (its attempts and the plan's
  // experts).
  callsPerRun: (data) => (data.model ? (data.protocol === 'schema' ? data.maxAttempts : 1) : 1),
  estimate: (ctx) => plannerCalls(ctx),

  // A planner once also played environment episodes (`mode: "dispatch"`): that is a
  // dispatcher now, and a plan's data no longer says which mode it is.
  retype: (data) => {
    const dispatcher = data.mode === 'dispatch';
    const gone = dispatcher ? PLAN_ONLY : DISPATCH_ONLY;
    const kept = Object.entries(data).filter(([k]) => k !== 'mode' && !gone.has(k));
    if (!dispatcher && kept.length === Object.keys(data).length) return undefined;
    return { type: dispatcher ? 'dispatcher' : 'planner', data: Object.fromEntries(kept) };
  },

  summary: (data) =>
    `plan · ${data.model ?? 'rule planner'}${data.model && data.protocol !== 'schema' ? ` · ${data.protocol}` : ''}`,
});
