/**
 * Which definition produced a metric's score, said beside every score: the metric node's
 * `definition` output, which reports and eval records carry. Computed from the node's settings
 * alone, so a card can show it before anything runs.
 */
import { BERTSCORE_DEFAULT_LAYERS, bertScoreBaseline } from './bertscore.ts';
import type { EmbeddingMetricKind, MetricData, MetricKind } from './spec.ts';
import { VIT_DISTANCE_DIVISOR } from './vit-distance.ts';

/**
 * The embedding model each kind uses unless the node names another. OpenAGI's code scores text
 * with BERTScore over `microsoft/deberta-xlarge-mnli`, CLIP with `openai/clip-vit-base-patch16`
 * and images with `nateraw/vit-base-beans`, the defaults of the kinds that compute those; the
 * plain similarities default to a small sentence-transformers model (hosted widely) and a
 * general ImageNet-21k ViT.
 */
export const DEFAULT_METRIC_MODELS: Record<EmbeddingMetricKind, string> = {
  bertscore: 'microsoft/deberta-xlarge-mnli',
  'vit-distance': 'nateraw/vit-base-beans',
  'text-similarity': 'sentence-transformers/all-MiniLM-L6-v2',
  'clip-score': 'openai/clip-vit-base-patch16',
  'image-similarity': 'google/vit-base-patch16-224-in21k',
  'multiview-clip-score': 'openai/clip-vit-base-patch16',
};

/** The model a metric asks, or undefined for arithmetic-only kinds. */
export function metricModel(data: { kind: MetricKind; model?: string }): string | undefined {
  return data.kind === 'recall-at-k' ? undefined : (data.model ?? DEFAULT_METRIC_MODELS[data.kind]);
}

/** A setting's value as recorded: a number, a switch, a formula in words, or none. */
export type DefinitionSetting = string | number | boolean | null;

/** What produced a score: its kind, its name in words, its model, settings, and which way is better. */
export interface MetricDefinition {
  kind: MetricKind;
  name: string;
  model?: string;
  settings: Record<string, DefinitionSetting>;
  better: 'higher' | 'lower';
}

/** The BERTScore layer a node uses: its own, else `bert_score`'s for the model, else none known. */
export function bertScoreLayer(data: { layer?: number }, model: string): number | null {
  return data.layer ?? BERTSCORE_DEFAULT_LAYERS[model] ?? null;
}

type DefinitionData = Pick<MetricData, 'kind'> &
  Partial<
    Pick<MetricData, 'model' | 'layer' | 'idf' | 'rescaleWithBaseline' | 'k' | 'tolerance'>
  > & {
    keepSpecialTokens?: boolean;
  };

const CLIP_FORMULA = 'max(100·cos(image, text), 0) / 100';

/** The definition a metric node's settings give. */
export function metricDefinition(data: DefinitionData): MetricDefinition {
  const { kind } = data;
  if (kind === 'recall-at-k') {
    const k = data.k ?? 5;
    const tolerance = data.tolerance ?? 1;
    return {
      kind,
      name: `recall at ${k} within ${tolerance} s (R${k}@${tolerance})`,
      settings: { k, tolerance },
      better: 'higher',
    };
  }
  const model = metricModel(data as { kind: MetricKind; model?: string })!;
  switch (kind) {
    case 'bertscore': {
      const layer = bertScoreLayer(data, model);
      const rescaled = data.rescaleWithBaseline ?? false;
      const baseline = rescaled && layer !== null ? bertScoreBaseline(model, layer) : undefined;
      return {
        kind,
        name: 'BERTScore F1',
        model,
        settings: {
          layer,
          idf: data.idf ?? false,
          rescaleWithBaseline: rescaled,
          baselineF1: baseline ? baseline.f1 : null,
          markers: 'matched, weight 0',
        },
        better: 'higher',
      };
    }
    case 'vit-distance':
      return {
        kind,
        name: 'ViT hidden-state distance (OpenAGI)',
        model,
        settings: {
          states: 'last hidden state, every token',
          norm: 'Frobenius norm of the difference',
          divisor: VIT_DISTANCE_DIVISOR,
        },
        better: 'lower',
      };
    case 'clip-score':
      return {
        kind,
        name: 'CLIP score / 100',
        model,
        settings: { formula: CLIP_FORMULA, embeddings: 'projected image and text embeddings' },
        better: 'higher',
      };
    case 'multiview-clip-score':
      return {
        kind,
        name: 'mean CLIP score / 100 over views',
        model,
        settings: { formula: `mean over views of ${CLIP_FORMULA}` },
        better: 'higher',
      };
    case 'text-similarity':
      return {
        kind,
        name: 'text embedding cosine similarity',
        model,
        settings: {
          sentenceVectors: 'cosine',
          tokenVectors: 'greedy matching F1, every token weighing 1, no idf or rescale',
          keepSpecialTokens: data.keepSpecialTokens ?? false,
        },
        better: 'higher',
      };
    case 'image-similarity':
      return {
        kind,
        name: 'image embedding cosine similarity',
        model,
        settings: { pooling: 'mean of patch vectors', formula: 'cos(prediction, reference)' },
        better: 'higher',
      };
  }
}

/** The card's line: the definition's name, its model's last part, the layer, the direction. */
export function definitionSummary(definition: MetricDefinition): string {
  const model = definition.model?.split('/').at(-1);
  const layer = definition.settings.layer;
  const parts = [
    definition.name,
    ...(model ? [model] : []),
    ...(typeof layer === 'number' ? [`layer ${layer}`] : []),
    ...(definition.settings.idf ? ['idf'] : []),
    ...(definition.settings.rescaleWithBaseline ? ['rescaled'] : []),
  ];
  return `${parts.join(' · ')} (${definition.better} is better)`;
}
