/**
 * BERTScore (Zhang et al., ICLR 2020) as the `bert_score` package computes it
 * (github.com/Tiiiger/bert_score, `bert_score/utils.py`: `greedy_cos_idf`, `get_idf_dict`;
 * `bert_score/score.py`: the baseline rescale), over token vectors a server already computed.
 *
 * - Every token vector is divided by its length, and each candidate token is matched with its
 *   most similar reference token (cosine), every token taking part in the matching, the
 *   tokenizer's markers ([CLS], [SEP]) included.
 * - Precision is the weighted mean, over the candidate's tokens, of their best cosine; recall
 *   the same from the reference's side; F1 = 2PR/(P+R), 0 when it is not a number.
 * - The weights: without idf every token weighs 1 and the two markers 0 (the package sets the
 *   idf of `sep_token_id` and `cls_token_id` to 0); with idf, a token's weight is
 *   log((M+1)/(df+1)) over the M reference texts, df the number of them holding it, which gives
 *   the markers 0 as every text holds them; a token no reference holds weighs log(M+1).
 * - A text with no token between its markers scores P = R = F1 = 0.
 * - Rescaled with a baseline b (one per P, R and F1, for the model and layer), x' = (x-b)/(1-b),
 *   each of the three with its own baseline.
 */
import { cosine } from './vectors.ts';

export interface BertScoreParts {
  precision: number;
  recall: number;
  f1: number;
}

/** Weights for one text's tokens without idf: 1 each, 0 for the first and last (the markers). */
export function markerWeights(tokens: number): number[] {
  return Array.from({ length: tokens }, (_, i) => (i === 0 || i === tokens - 1 ? 0 : 1));
}

/**
 * The idf of each token id over the reference texts (each given as its token ids, markers
 * included), as `get_idf_dict` computes it: log((M+1)/(df+1)); an id no reference holds gets
 * log(M+1).
 */
export function idfDictionary(references: readonly (readonly number[])[]): (id: number) => number {
  const documents = references.length;
  const frequency = new Map<number, number>();
  for (const ids of references) {
    for (const id of new Set(ids)) frequency.set(id, (frequency.get(id) ?? 0) + 1);
  }
  return (id) => Math.log((documents + 1) / ((frequency.get(id) ?? 0) + 1));
}

function weightedBest(
  similarity: readonly (readonly number[])[],
  weights: readonly number[],
  along: 'rows' | 'columns',
): number {
  const total = weights.reduce((sum, w) => sum + w, 0);
  let value = 0;
  weights.forEach((weight, i) => {
    const scores =
      along === 'rows' ? similarity[i]! : similarity.map((row) => row[i] ?? Number.NaN);
    value += weight * Math.max(...scores);
  });
  return value / total;
}

/**
 * Precision, recall and F1 of a candidate against a reference, from their token vectors (one
 * row per token, markers included) and each token's weight (`markerWeights` without idf).
 */
export function bertScore(
  candidate: readonly (readonly number[])[],
  reference: readonly (readonly number[])[],
  weights: { candidate?: readonly number[]; reference?: readonly number[] } = {},
): BertScoreParts {
  if (candidate.length === 0 || reference.length === 0) {
    throw new Error('BERTScore needs at least one token vector on each side');
  }
  const candidateWeights = weights.candidate ?? markerWeights(candidate.length);
  const referenceWeights = weights.reference ?? markerWeights(reference.length);
  if (candidateWeights.length !== candidate.length) {
    throw new Error(
      `${candidateWeights.length} idf weights for the prediction's ${candidate.length} token vectors`,
    );
  }
  if (referenceWeights.length !== reference.length) {
    throw new Error(
      `${referenceWeights.length} idf weights for the reference's ${reference.length} token vectors`,
    );
  }
  // Only the two markers: the package scores an empty text 0.
  if (candidate.length <= 2 || reference.length <= 2) return { precision: 0, recall: 0, f1: 0 };
  const similarity = candidate.map((c) => reference.map((r) => cosine(c, r)));
  const precision = weightedBest(similarity, candidateWeights, 'rows');
  const recall = weightedBest(similarity, referenceWeights, 'columns');
  const f1 = (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1: Number.isNaN(f1) ? 0 : f1 };
}

/** The baseline rescale `(x - b) / (1 - b)`. */
export function rescale(value: number, baseline: number): number {
  return (value - baseline) / (1 - baseline);
}

/**
 * The layer `bert_score` reads a model's token vectors from when none is named
 * (`model2layers` in `bert_score/utils.py`).
 */
export const BERTSCORE_DEFAULT_LAYERS: Readonly<Record<string, number>> = {
  'microsoft/deberta-xlarge-mnli': 40,
  'microsoft/deberta-large-mnli': 18,
  'microsoft/deberta-base-mnli': 9,
  'roberta-large': 17,
  'bert-base-uncased': 9,
};

/**
 * Published baselines for English, by model and layer: the row of
 * `bert_score/rescale_baseline/en/<model>.tsv` (columns P, R, F) that `score()` reads for that
 * layer. Rescaling for another model or layer needs its baseline added here.
 */
export const BERTSCORE_BASELINES: Readonly<
  Record<string, Readonly<Record<number, BertScoreParts>>>
> = {
  'microsoft/deberta-xlarge-mnli': {
    40: { precision: 0.5169066, recall: 0.5170288, f1: 0.5150192 },
  },
};

/** The published baseline for a model and layer, or undefined when there is none. */
export function bertScoreBaseline(model: string, layer: number): BertScoreParts | undefined {
  return BERTSCORE_BASELINES[model]?.[layer];
}

/** Rescales precision, recall and F1, each with its own baseline. */
export function rescaleParts(parts: BertScoreParts, baseline: BertScoreParts): BertScoreParts {
  return {
    precision: rescale(parts.precision, baseline.precision),
    recall: rescale(parts.recall, baseline.recall),
    f1: rescale(parts.f1, baseline.f1),
  };
}
