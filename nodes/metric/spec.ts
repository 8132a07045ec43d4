import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode, type NodePorts } from '../../app/node-sdk/define.ts';

/**
 * What a metric compares, after OpenAGI's evaluation (Ge et al., Sec. 3.1.3 and A.4):
 * - `text-similarity`: a text answer against the reference text (the paper's BERTScore F1);
 * - `clip-score`: a generated picture against the text it was painted from (CLIP score);
 * - `image-similarity`: a picture against the reference picture (the paper's "ViT score").
 */
export const METRIC_KINDS = ['text-similarity', 'clip-score', 'image-similarity'] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

/**
 * The embedding model each kind uses unless the node names another. OpenAGI's code scores text
 * with BERTScore over `microsoft/deberta-xlarge-mnli`, CLIP with `openai/clip-vit-base-patch16`
 * and images with `nateraw/vit-base-beans`; we default to a small sentence-transformers model
 * for text (hosted widely), the same CLIP, and a general ImageNet-21k ViT for pictures.
 */
export const DEFAULT_METRIC_MODELS: Record<MetricKind, string> = {
  'text-similarity': 'sentence-transformers/all-MiniLM-L6-v2',
  'clip-score': 'openai/clip-vit-base-patch16',
  'image-similarity': 'google/vit-base-patch16-224-in21k',
};

export const metricData = z.strictObject({
  ...baseData,
  kind: z.enum(METRIC_KINDS).default('text-similarity'),
  /** A Hub model id for the embeddings; defaults by kind (DEFAULT_METRIC_MODELS). */
  model: z.string().min(1).optional(),
  /** The provider profile that reaches Hugging Face (its token and endpoint). */
  provider: z.string().min(1).default('hf-inference'),
  /**
   * Text similarity with per-token vectors: keep the first and last vectors, which models with
   * [CLS]/[SEP]-style markers spend on those markers. BERTScore leaves them out, as we do by
   * default.
   */
  keepSpecialTokens: z.boolean().default(false),
});
export type MetricData = z.infer<typeof metricData>;

/** The ports of each kind: what is scored, and against what. */
export function metricPorts(kind: MetricKind): NodePorts {
  const inputs: NodePorts['inputs'] =
    kind === 'text-similarity'
      ? [
          { name: 'prediction', modality: 'text', required: true, description: 'the answer' },
          { name: 'reference', modality: 'text', required: true, description: 'the ground truth' },
        ]
      : kind === 'clip-score'
        ? [
            { name: 'image', modality: 'image', required: true, description: 'the picture' },
            { name: 'text', modality: 'text', required: true, description: 'what it should show' },
          ]
        : [
            { name: 'prediction', modality: 'image', required: true, description: 'the answer' },
            {
              name: 'reference',
              modality: 'image',
              required: true,
              description: 'the ground truth',
            },
          ];
  return {
    inputs,
    outputs: [
      {
        name: 'score',
        modality: 'number',
        description: 'the score; null when the metric was skipped',
      },
      {
        name: 'report',
        modality: 'json',
        description: 'kind, score, method, model, and why it was skipped or simulated',
      },
    ],
  };
}

/**
 * Scores an answer against a reference with embedding models: text similarity (BERTScore-style
 * greedy matching when the model gives token vectors, else the cosine of sentence embeddings),
 * CLIP score, or image similarity. With no Hugging Face token the metric is skipped, not failed.
 */
export const spec = defineNode({
  type: 'metric',
  title: 'Metric',
  group: 'Experts',
  description:
    'Scores an answer against a reference with embedding models: text similarity, CLIP score or image similarity.',
  data: metricData,
  ports: (data) => metricPorts(data.kind),
  providers: (data) => [data.provider],
  callsPerRun: () => 2,
  // Two embeddings per score, each an expert call.
  estimate: (ctx) => {
    const model = ctx.data.model ?? DEFAULT_METRIC_MODELS[ctx.data.kind];
    return ctx.executions.flatMap(() => [0, 1].map(() => ({ promptTokens: 0, expert: { model } })));
  },

  summary: (data) => data.kind,
});
