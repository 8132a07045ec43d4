import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode, type NodePorts } from '../../app/node-sdk/define.ts';
import { definitionSummary, metricDefinition, metricModel } from './definition.ts';

/**
 * What a metric compares, after OpenAGI's evaluation (Ge et al., Sec. 3.1.3 and A.4, and its code
 * at 22190c5) and NLSOM's (Zhuge et al., App. H and I):
 * - `bertscore`: BERTScore F1 of a text answer against the reference, as the `bert_score`
 *   package computes it (OpenAGI's text score: `microsoft/deberta-xlarge-mnli`, layer 40, no idf,
 *   no rescale);
 * - `vit-distance`: OpenAGI's image score, the Frobenius norm of the difference of two pictures'
 *   ViT hidden states divided by 100 (`nateraw/vit-base-beans`); lower is better;
 * - `clip-score`: a generated picture against the text it was painted from: CLIP score as
 *   torchmetrics computes it, max(100·cos, 0), divided by 100 as OpenAGI does;
 * - `text-similarity`: the cosine of two sentence embeddings (or, when the server gives token
 *   vectors, their greedy matching without idf, rescale or a chosen layer): not BERTScore;
 * - `image-similarity`: the cosine of two pictures' mean-pooled embeddings: not OpenAGI's score;
 * - `multiview-clip-score`: the mean CLIP score of several views of one 3D object against its
 *   prompt (NLSOM's 3D generation);
 * - `recall-at-k`: ranked timestamps against a ground-truth window, R_k@τ (NLSOM's egocentric
 *   retrieval); arithmetic only, no model.
 */
export const METRIC_KINDS = [
  'bertscore',
  'vit-distance',
  'text-similarity',
  'clip-score',
  'image-similarity',
  'multiview-clip-score',
  'recall-at-k',
] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];
/** The kinds that ask an embedding model. */
export type EmbeddingMetricKind = Exclude<MetricKind, 'recall-at-k'>;

export { DEFAULT_METRIC_MODELS, metricModel } from './definition.ts';

/** The fields only the kinds that ask an embedding model use. */
const EMBEDDING_ONLY = {
  showWhen: { field: 'kind', in: METRIC_KINDS.filter((k) => k !== 'recall-at-k') },
};
const RECALL_ONLY = { showWhen: { field: 'kind', is: 'recall-at-k' } };
const BERTSCORE_ONLY = { showWhen: { field: 'kind', is: 'bertscore' } };

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
  /**
   * BERTScore: the model layer whose token vectors are compared; defaults to `bert_score`'s
   * layer for the model (40 for `microsoft/deberta-xlarge-mnli`). The server answers one
   * layer's vectors: it must serve this one (a plain feature-extraction endpoint serves the last).
   */
  layer: z
    .number()
    .int()
    .min(0)
    .max(200)
    .optional()
    .meta({
      ...BERTSCORE_ONLY,
      placeholder: "bert_score's layer for the model (40 for deberta-xlarge-mnli)",
    }),
  /**
   * BERTScore: weigh tokens by their idf over the reference texts. Feature extraction answers
   * vectors, not token ids, so the weights come in on the `idf` input. Off as OpenAGI calls it.
   */
  idf: z.boolean().default(false).meta(BERTSCORE_ONLY),
  /** BERTScore: rescale with the published baseline for the model and layer. Off as OpenAGI calls it. */
  rescaleWithBaseline: z.boolean().default(false).meta(BERTSCORE_ONLY),
  /** Recall at k: how many of the first predictions count (the paper reports 1, 3 and 5). */
  k: z.number().int().min(1).max(1000).default(5).meta(RECALL_ONLY),
  /** Recall at k: seconds the window is widened by on each side, τ (the paper: 1 and 10). */
  tolerance: z.number().min(0).max(86_400).default(1).meta(RECALL_ONLY),
});
export type MetricData = z.infer<typeof metricData>;

const METRIC_INPUTS: Record<MetricKind, NodePorts['inputs']> = {
  bertscore: [
    { name: 'prediction', modality: 'text', required: true, description: 'the answer' },
    { name: 'reference', modality: 'text', required: true, description: 'the ground truth' },
  ],
  'vit-distance': [
    { name: 'prediction', modality: 'image', required: true, description: 'the answer' },
    { name: 'reference', modality: 'image', required: true, description: 'the ground truth' },
  ],
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

/** BERTScore with idf: the weights of each side's tokens, in the order the server answers them. */
const IDF_INPUT: NodePorts['inputs'][number] = {
  name: 'idf',
  modality: 'json',
  required: true,
  description:
    'idf weight of each token vector, markers included: {"prediction": [..], "reference": [..]}',
};

/** The ports of each kind: what is scored, and against what. */
export function metricPorts(data: Pick<MetricData, 'kind'> & { idf?: boolean }): NodePorts {
  const { kind } = data;
  const inputs =
    kind === 'bertscore' && data.idf ? [...METRIC_INPUTS[kind], IDF_INPUT] : METRIC_INPUTS[kind];
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
        description: 'kind, score, method, model, definition, and whether it was simulated',
      },
      {
        name: 'definition',
        modality: 'json',
        description: 'which metric produced the score: kind, name, model, settings, better',
      },
    ],
  };
}

/**
 * Scores an answer against a reference with embedding models: BERTScore F1, OpenAGI's ViT
 * distance, CLIP score, or the plain cosine similarities of text or image embeddings. Its provider's token is required for a live run (the run's
 * preflight refuses one without it), like any key a node uses.
 */
export const spec = defineNode({
  type: 'metric',
  title: 'Metric',
  group: 'Experts',
  description:
    'Scores an answer against a reference: BERTScore F1, ViT hidden-state distance, CLIP score (one picture or several views), text or image embedding cosine, or recall at k of timestamps; says which definition produced each score.',
  data: metricData,
  ports: (data) => metricPorts(data),
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

  summary: (data) => definitionSummary(metricDefinition(data)),
});
