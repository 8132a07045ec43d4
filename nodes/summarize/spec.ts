import { z } from 'zod';
import { baseData, templateProblems } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';
import type { EstimateContext, EstimatePoint } from '../../app/node-sdk/estimate.ts';

/** Our wording of NLSOM's opinion-gathering request (Zhuge et al., Sec. 2.1). */
export const DEFAULT_INSTRUCTIONS =
  'Below is the record of a discussion. Summarize it in a few sentences: keep the facts that ' +
  'help with the task, and leave out answers that contradict the rest or look mistaken.';

export const summarizeData = z.strictObject({
  ...baseData,
  mode: z.enum(['model', 'concatenate']).default('model'),
  /** Required in `model` mode: a profile name from the document's `models`. */
  model: z
    .string()
    .optional()
    .meta({ editor: 'model-profile', showWhen: { field: 'mode', is: 'model' } }),
  instructions: z
    .string()
    .default(DEFAULT_INSTRUCTIONS)
    .meta({
      editor: 'code',
      language: 'liquid',
      lines: 3,
      showWhen: { field: 'mode', is: 'model' },
    }),
  maxTokens: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'model' } }),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'model' } }),
  separator: z.string().default('\n'),
});
export type SummarizeData = z.infer<typeof summarizeData>;

/**
 * Gathers many texts into one: with a model (opinion gathering) or by plain concatenation.
 * Inside a mindstorm with nothing connected, it summarizes the loop's transcript.
 */
export const spec = defineNode({
  type: 'summarize',
  title: 'Summarize',
  group: 'Minds',
  description:
    'Summarizes texts or a mindstorm transcript with a model, or joins them without one.',
  data: summarizeData,
  ports: () => ({
    inputs: [{ name: 'text', modality: 'any', multiple: true }],
    outputs: [{ name: 'summary', modality: 'text' }],
  }),
  models: (data) => (data.mode === 'model' && data.model ? [data.model] : []),
  check: (data) => [
    ...(data.mode === 'model' && !data.model
      ? [{ path: ['model'], message: 'model mode needs a model profile' }]
      : []),
    ...templateProblems({ instructions: data.instructions }),
  ],
  callsPerRun: (data) => (data.mode === 'model' ? 1 : 0),
  sendsMessage: true,
  // The request: the instructions and the record (what is connected, else the transcript).
  estimate: (ctx) =>
    ctx.executions.map((at) => ({
      promptTokens:
        ctx.tokens(`${ctx.render(ctx.data.instructions, ctx.vars)}\n\nRecord:\n`) +
        recordTokens(ctx, at),
    })),
  outputTokens: (ctx) =>
    ctx.data.mode === 'model' ? ctx.answerTokens(ctx.node) : recordTokens(ctx, ctx.at),

  summary: (data) => (data.mode === 'concatenate' ? 'concatenate' : (data.model ?? 'model')),
  initialData: ({ profile }) => ({ model: profile }),
});

/** What a summary reads: the texts connected to it, else its loop's transcript. */
function recordTokens(ctx: EstimateContext<SummarizeData>, at: EstimatePoint): number {
  if (ctx.connected(ctx.node, 'text') || !ctx.loop) return ctx.inputTokens(ctx.node);
  return ctx.transcriptTokens(ctx.loop, ctx.node, at);
}
