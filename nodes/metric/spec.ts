import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode, type NodePorts } from '../../app/node-sdk/define.ts';

/**
 * What a metric compares, after OpenAGI's evaluation (Ge et al., Sec. 3.1.3 and A.4) and NLSOM's
 * (Zhuge et al., App. H and I):
 * - `text-similarity`: a text answer against the reference text (the paper's BERTScore F1);
 * - `clip-score`: a generated picture against the text it was painted from (CLIP score);
 * - `image-similarity`: a picture against the reference picture (the paper's "ViT score");
 * - `multiview-clip-score`: the mean CLIP score of several views of one 3D object against its
 *   prompt (NLSOM's 3D generation);
 * - `recall-at-k`: ranked timestamps against a ground-truth window, R_k@τ (NLSOM's egocentric
 *   retrieval); arithmetic only, no model.
 */
export const METRIC_KINDS = [
  'text-similarity',
  'clip-score',
  'image-similarity',
  'multiview-clip-score',
  'recall-at-k',
] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];
/** The kinds that ask an embedding model. */
export type EmbeddingMetricKind = Exclude<MetricKind, 'recall-at-k'>;

/**
 * The embedding model each kind uses unless the node names another. OpenAGI's code scores text
 * with BERTScore over `microsoft/deberta-xlarge-mnli`, CLIP with `openai/clip-vit-base-patch16`
 * and images with `nateraw/vit-base-beans`; we default to a small sentence-transformers model
 * for text (hosted widely), the same CLIP, and a general ImageNet-21k ViT for pictures.
 */
export const DEFAULT_METRIC_MODELS: Record<EmbeddingMetricKind, string> = {
  'text-similarity': 'sentence-transformers/all-MiniLM-L6-v2',
  'clip-score': 'openai/clip-vit-base-patch16',
  'image-similarity': 'google/vit-base-patch16-224-in21k',
  'multiview-clip-score': 'openai/clip-vit-base-patch16',
};

/** The model a metric asks, or undefined for arithmetic-only kinds. */
export function metricModel(data: { kind: MetricKind; model?: string }): string | undefined {
  return data.kind === 'recall-at-k' ? undefined : (data.model ?? DEFAULT_METRIC_MODELS[data.kind]);
}

/** The fields only the kinds that ask an embedding model use. */
const EMBEDDING_ONLY = {
  showWhen: { field: 'kind', in: METRIC_KINDS.filter((k) => k !== 'recall-at-k') },
};
const RECALL_ONLY = { showWhen: { field: 'kind', is: 'recall-at-k' } };

export const metricData = z.strictObject({
  ...baseData,
  kind: z.enum(METRIC_KINDS).default('text-similarity'),
  /** A Hub model id for the embeddings; defaults by kind (DEFAULT_METRIC_MODELS). */
  model: z.string().min(1).optional().meta(EMBEDDING_ONLY),
  /** The provider profile that reaches Hugging Face (its token and endpoint). */
  provider: z.string().min(1).default('hf-inference').meta(EMBEDDING_ONLY),
  /**
   * Text similarity with per-token vectors: keep the first and last vectors, which models with
   * [CLS]/[SEP]-style markers spend on those markers. BERTScore leaves them out, as we do by
   * default.
   */
  keepSpecialTokens: z
    .boolean()
    .default(false)
    .meta({ showWhen: { field: 'kind', is: 'text-similarity' } }),
  /** Recall at k: how many of the first predictions count (the paper reports 1, 3 and 5). */
  k: z.number().int().min(1).max(1000).default(5).meta(RECALL_ONLY),
  /** Recall at k: seconds the window is widened by on each side, τ (the paper: 1 and 10). */
  tolerance: z.number().min(0).max(86_400).default(1).meta(RECALL_ONLY),
});
export type MetricData = z.infer<typeof metricData>;

const METRIC_INPUTS: Record<MetricKind, NodePorts['inputs']> = {
  'text-similarity': [
    { name: 'prediction', modality: 'text', required: true, description: 'the answer' },
    { name: 'reference', modality: 'text', required: true, description: 'the ground truth' },
  ],
  'clip-score': [
    { name: 'image', modality: 'image', required: true, description: 'the picture' },
    { name: 'text', modality: 'text', required: true, description: 'what it should show' },
  ],
  'image-similarity': [
    { name: 'prediction', modality: 'image', required: true, description: 'the answer' },
    { name: 'reference', modality: 'image', required: true, description: 'the ground truth' },
  ],
  'multiview-clip-score': [
    {
      name: 'images',
      modality: 'list<image>',
      required: true,
      description: 'the views of one object',
    },
    { name: 'text', modality: 'text', required: true, description: 'what they should show' },
  ],
  'recall-at-k': [
    {
      name: 'predictions',
      modality: 'any',
      required: true,
      description: 'ranked timestamps in seconds: a list, or a text read in order',
    },
    {
      name: 'window',
      modality: 'any',
      required: true,
      description: 'the ground truth: {"start": s, "end": e}, [s, e] or "s-e"',
    },
  ],
};

/** The ports of each kind: what is scored, and against what. */
export function metricPorts(kind: MetricKind): NodePorts {
  const inputs = METRIC_INPUTS[kind];
  return {
    inputs,
    outputs: [
      {
        name: 'score',
        modality: 'number',
        description: 'the score',
      },
      {
        name: 'report',
        modality: 'json',
        description: 'kind, score, method, model, and whether it was simulated',
      },
    ],
  };
}

/**
 * Scores an answer against a reference with embedding models: text similarity (BERTScore-style
 * greedy matching when the model gives token vectors, else the cosine of sentence embeddings),
 * CLIP score, or image similarity. Its provider's token is required for a live run (the run's
 * preflight refuses one without it), like any key a node uses.
 */
export const spec = defineNode({
  type: 'metric',
  title: 'Metric',
  group: 'Experts',
  description:
    'Scores an answer against a reference: text similarity, CLIP score (one picture or several views), image similarity, or recall at k of timestamps.',
  data: metricData,
  ports: (data) => metricPorts(data.kind),
  providers: (data) => (data.kind === 'recall-at-k' ? [] : [data.provider]),
  callsPerRun: (data) => (data.kind === 'recall-at-k' ? 0 : 2),
  // Two embeddings per score, each an expert call; the multi-view score embeds each view and
  // the text once; recall at k calls nothing.
  estimate: (ctx) => {
    const model = metricModel(ctx.data);
    if (!model) return [];
    const views = ctx.knownInputLength(ctx.node, 'images') ?? 1;
    const calls = ctx.data.kind === 'multiview-clip-score' ? views + 1 : 2;
    return ctx.executions.flatMap(() =>
      Array.from({ length: calls }, () => ({ promptTokens: 0, expert: { model } })),
    );
  },

  summary: (data) => (data.kind === 'recall-at-k' ? `R${data.k}@${data.tolerance}` : data.kind),
});
