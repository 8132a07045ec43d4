import { z } from 'zod';
import { CATALOGUE, catalogueEntry } from '../../app/experts/catalogue.ts';
import { closestExperts } from '../../app/experts/match.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode, type PortSpec } from '../../app/node-sdk/define.ts';

/** About how long a hosted captioner's sentence is, in tokens, when no limit is given. */
const CAPTION_TOKENS = 30;
/**
 * About how long a hosted VQA model's answer is, in tokens: a word or a short phrase (NLSOM's
 * code caps BLIP-2 at 20 new tokens).
 */
const VQA_TOKENS = 20;

/** Tasks a vision chat model (an OpenAI-compatible VLM) can stand in for. */
export const VISION_CHAT_MODULES = ['visual-question-answering', 'image-captioning'];

export const expertData = z.strictObject({
  ...baseData,
  /** A catalogue id (app/experts/catalogue.ts), e.g. `image-captioning`. */
  module: z.string().min(1).meta({ editor: 'expert-module' }),
  /**
   * How it runs:
   * - `huggingface`: a Hugging Face model, hosted (Inference Providers) or at the provider
   *   profile's own endpoint URL (a self-hosted TGI or an Inference Endpoint);
   * - `local`: local processing with no model (only modules that have a local operation);
   * - `vision-chat`: a vision chat model from the document's `models` (VQA and captioning).
   */
  backend: z.enum(['huggingface', 'local', 'vision-chat']).default('huggingface'),
  /** A Hub model id; defaults to the catalogue's. */
  model: z
    .string()
    .min(1)
    .optional()
    .meta({ editor: 'expert-model', showWhen: { field: 'backend', is: 'huggingface' } }),
  /** The provider profile that reaches Hugging Face (its token and endpoint). */
  provider: z
    .string()
    .min(1)
    .default('hf-inference')
    .meta({ showWhen: { field: 'backend', is: 'huggingface' } }),
  /** For `vision-chat`: a model profile name from the document's `models`. */
  visionModel: z
    .string()
    .min(1)
    .optional()
    .meta({ editor: 'model-profile', showWhen: { field: 'backend', is: 'vision-chat' } }),
  /** For `vision-chat` captioning: what to ask the model. */
  instruction: z
    .string()
    .min(1)
    .default('Describe this picture in one sentence.')
    .meta({ showWhen: { field: 'backend', is: 'vision-chat' } }),
  /** Task parameters passed to the backend unchanged (merged over the catalogue's). */
  parameters: z.record(z.string(), z.unknown()).optional(),
});
export type ExpertData = z.infer<typeof expertData>;

/**
 * Expert calls one execution makes: one, or one per item for a module that runs per item (the
 * renderer, per view), counted from the node's parameters over the catalogue's.
 */
export function callsPerExecution(data: ExpertData): number {
  const each = catalogueEntry(data.module)?.each;
  if (!each) return 1;
  const items = { ...catalogueEntry(data.module)?.defaultParameters, ...data.parameters }[
    each.parameter
  ];
  return Array.isArray(items) ? Math.max(1, items.length) : 1;
}

/** An expert model: captioning, VQA, translation, text-to-image… with ports typed by modality. */
export const spec = defineNode({
  type: 'expert',
  title: 'Expert model',
  group: 'Experts',
  description:
    'A domain expert model (Hugging Face, a local operation or a vision chat model) with typed ports.',
  data: expertData,
  ports: (data) => {
    const entry = catalogueEntry(data.module);
    if (!entry) return { inputs: [], outputs: [] };
    const port = (p: (typeof entry.inputs)[number], input: boolean): PortSpec => ({
      name: p.name,
      modality: p.modality,
      ...(input && !p.optional ? { required: true } : {}),
      ...(p.description ? { description: p.description } : {}),
    });
    return {
      inputs: entry.inputs.map((p) => port(p, true)),
      outputs: entry.outputs.map((p) => port(p, false)),
    };
  },
  models: (data) => (data.backend === 'vision-chat' && data.visionModel ? [data.visionModel] : []),
  providers: (data) => (data.backend === 'huggingface' ? [data.provider] : []),
  check: (data) => {
    const entry = catalogueEntry(data.module);
    if (!entry) {
      return [
        {
          path: ['module'],
          message: `unknown expert module "${data.module}"; did you mean ${closestExperts(
            data.module,
          )
            .map((id) => `"${id}"`)
            .join(', ')}? (${CATALOGUE.length} modules in the catalogue)`,
        },
      ];
    }
    const problems: DataProblem[] = [];
    if (data.backend === 'local' && !entry.local) {
      problems.push({
        path: ['backend'],
        message: `${entry.title} has no local operation; use the huggingface backend (default model ${entry.models.default})`,
      });
    }
    if (entry.each) {
      const { parameter } = entry.each;
      const items = { ...entry.defaultParameters, ...data.parameters }[parameter];
      if (!Array.isArray(items) || items.length === 0 || items.some((i) => typeof i !== 'string')) {
        problems.push({
          path: ['parameters', parameter],
          message: `${entry.title} runs once per item of parameters.${parameter}: give a non-empty list of texts`,
        });
      }
    }
    if (data.backend === 'vision-chat') {
      if (!VISION_CHAT_MODULES.includes(entry.id)) {
        problems.push({
          path: ['backend'],
          message: `a vision chat model can stand in for ${VISION_CHAT_MODULES.join(' and ')} only, not ${entry.title}`,
        });
      }
      if (!data.visionModel) {
        problems.push({
          path: ['visionModel'],
          message: 'the vision-chat backend needs a model profile',
        });
      }
    }
    return problems;
  },
  // A local operation calls no model, but a run counts it as an expert call (and so does a
  // budget's maxCalls): the estimate does too. A module run per item calls once per item.
  callsPerRun: (data) => callsPerExecution(data),
  // A hosted expert or a local operation is an expert call (no tokens); a vision chat model is
  // sent the question (or the instruction) and the picture in one message.
  estimate: (ctx) =>
    ctx.executions.flatMap(() => {
      const { data } = ctx;
      const entry = catalogueEntry(data.module);
      const calls = callsPerExecution(data);
      if (data.backend === 'local') {
        const model = `local:${entry?.local ?? data.module}`;
        return Array.from({ length: calls }, () => ({ promptTokens: 0, expert: { model } }));
      }
      if (data.backend !== 'vision-chat') {
        const model = data.model ?? entry?.models.default ?? data.module;
        return Array.from({ length: calls }, () => ({ promptTokens: 0, expert: { model } }));
      }
      const question =
        data.module === 'visual-question-answering'
          ? ctx.portTokens(ctx.node, 'question')
          : ctx.tokens(data.instruction);
      return { promptTokens: question + ctx.portTokens(ctx.node, 'image') };
    }),
  // A local operation hands on a picture of what it was given; a model, its answer. Captioners
  // answer a sentence (their pipelines stop at a few dozen tokens unless told otherwise), and
  // named entities are words of the text they were given.
  outputTokens: (ctx) => {
    const task = catalogueEntry(ctx.data.module)?.task;
    if (ctx.data.backend === 'local' || task === 'token-classification') {
      return ctx.inputTokens(ctx.node);
    }
    if (task === 'image-to-text' && ctx.data.backend === 'huggingface') {
      const asked = ctx.data.parameters?.max_new_tokens;
      return typeof asked === 'number' ? asked : CAPTION_TOKENS;
    }
    if (task === 'visual-question-answering' && ctx.data.backend === 'huggingface') {
      const asked = ctx.data.parameters?.max_new_tokens;
      return typeof asked === 'number' ? asked : VQA_TOKENS;
    }
    return ctx.answerTokens(ctx.node);
  },

  toolDescription: (data) => catalogueEntry(data.module)?.description,
  summary: (data) =>
    [
      data.module,
      data.backend === 'local'
        ? 'local'
        : data.backend === 'vision-chat'
          ? data.visionModel
          : data.model,
    ]
      .filter(Boolean)
      .join(' · '),
  // A module run per item gives one item per call on its list output.
  knownLength: (data, port) => {
    const entry = catalogueEntry(data.module);
    const list = entry?.outputs.find((p) => p.name === port)?.modality.startsWith('list<');
    return entry?.each && list ? callsPerExecution(data) : undefined;
  },
  // Captioning needs only a picture, so a new expert runs as soon as one is wired in.
  initialData: () => ({ module: 'image-captioning' }),
});
