/** The metric node: its arithmetic on hand-made vectors, its ports and default models. */
import { describe, expect, it } from 'vitest';
import { definitionLines, metricCardValue } from './card-value.ts';
import { metricDefinition } from './definition.ts';
import { clipScore, cosine, embeddingRows, greedyMatch } from './execute.ts';
import { DEFAULT_METRIC_MODELS, type MetricKind, metricData, metricPorts, spec } from './spec.ts';

describe('metric arithmetic', () => {
  it('cosine: parallel, orthogonal, opposite, 45 degrees; zero vectors score 0', () => {
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 3])).toBe(0);
    expect(cosine([1, -1], [-2, 2])).toBeCloseTo(-1, 12);
    expect(cosine([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(/2 and 3 numbers/);
  });

  it('greedy matching: precision from the candidate side, recall from the reference side', () => {
    // Candidate tokens x and y against the reference token x: x matches itself (1), y finds
    // nothing (0), so precision is 1/2; the reference's x is fully matched, so recall is 1.
    const match = greedyMatch(
      [
        [1, 0],
        [0, 1],
      ],
      [[1, 0]],
    );
    expect(match.precision).toBeCloseTo(0.5, 12);
    expect(match.recall).toBeCloseTo(1, 12);
    expect(match.f1).toBeCloseTo(2 / 3, 12);

    // Every similarity is cos 45°, so precision, recall and F1 are all 1/√2.
    const diagonal = greedyMatch([[1, 0]], [[1, 1]]);
    expect(diagonal.f1).toBeCloseTo(Math.SQRT1_2, 12);

    // Same tokens in another order: greedy matching ignores order.
    const same = greedyMatch(
      [
        [1, 2],
        [3, -1],
      ],
      [
        [3, -1],
        [1, 2],
      ],
    );
    expect(same).toEqual({ precision: 1, recall: 1, f1: 1 });

    // Nothing in common: F1 is 0, not NaN.
    expect(greedyMatch([[1, 0]], [[0, 1]]).f1).toBe(0);
    expect(() => greedyMatch([], [[1]])).toThrow(/at least one token vector/);
  });

  it('CLIP score is max(100·cos, 0)/100: negative similarity counts as 0', () => {
    expect(clipScore([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(clipScore([1, 0], [-1, 0.1])).toBe(0);
  });

  it('reads embeddings as rows: a vector is one row, token vectors stay rows', () => {
    expect(embeddingRows([1, 2])).toEqual([[1, 2]]);
    expect(
      embeddingRows([
        [1, 2],
        [3, 4],
      ]),
    ).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(() => embeddingRows('text')).toThrow(/vector/);
    expect(() => embeddingRows([])).toThrow(/vector/);
  });

  it('has ports by kind and a default model for each', () => {
    const names = (kind: MetricKind, idf = false) =>
      metricPorts({ kind, idf }).inputs.map((p) => `${p.name}:${p.modality}`);
    expect(names('text-similarity')).toEqual(['prediction:text', 'reference:text']);
    expect(names('clip-score')).toEqual(['image:image', 'text:text']);
    expect(names('image-similarity')).toEqual(['prediction:image', 'reference:image']);
    expect(names('bertscore')).toEqual(['prediction:text', 'reference:text']);
    expect(names('bertscore', true)).toEqual(['prediction:text', 'reference:text', 'idf:json']);
    expect(names('vit-distance')).toEqual(['prediction:image', 'reference:image']);
    expect(metricPorts({ kind: 'clip-score' }).outputs.map((p) => p.name)).toEqual([
      'score',
      'report',
      'definition',
    ]);
    expect(metricData.parse({})).toMatchObject({
      kind: 'text-similarity',
      provider: 'hf-inference',
      keepSpecialTokens: false,
    });
    expect(DEFAULT_METRIC_MODELS['text-similarity']).toBe('sentence-transformers/all-MiniLM-L6-v2');
    // OpenAGI's models and settings (research/benchmark_tasks at 22190c5).
    expect(DEFAULT_METRIC_MODELS.bertscore).toBe('microsoft/deberta-xlarge-mnli');
    expect(DEFAULT_METRIC_MODELS['vit-distance']).toBe('nateraw/vit-base-beans');
    expect(DEFAULT_METRIC_MODELS['clip-score']).toBe('openai/clip-vit-base-patch16');
    expect(metricData.parse({ kind: 'bertscore' })).toMatchObject({
      idf: false,
      rescaleWithBaseline: false,
    });
  });

  it('shows on its card which definition it computes and which way is better', () => {
    const card = (data: object) => spec.summary?.(metricData.parse(data));
    expect(card({ kind: 'bertscore' })).toBe(
      'BERTScore F1 · deberta-xlarge-mnli · layer 40 (higher is better)',
    );
    expect(card({ kind: 'bertscore', idf: true, rescaleWithBaseline: true })).toBe(
      'BERTScore F1 · deberta-xlarge-mnli · layer 40 · idf · rescaled (higher is better)',
    );
    expect(card({ kind: 'vit-distance' })).toBe(
      'ViT hidden-state distance (OpenAGI) · vit-base-beans (lower is better)',
    );
    expect(card({ kind: 'text-similarity' })).toBe(
      'text embedding cosine similarity · all-MiniLM-L6-v2 (higher is better)',
    );
    expect(card({ kind: 'recall-at-k', k: 3, tolerance: 10 })).toBe(
      'recall at 3 within 10 s (R3@10) (higher is better)',
    );
    expect(
      metricDefinition(metricData.parse({ kind: 'bertscore', layer: 12 })).settings.layer,
    ).toBe(12);
  });
});

describe("the metric's card after a run", () => {
  it('shows the score under its definition, with the direction and the model', () => {
    const definition = metricDefinition(metricData.parse({ kind: 'vit-distance' }));
    const outputs = { score: 0.28354, report: { simulated: true }, definition };
    expect(metricCardValue(outputs)).toEqual({
      kind: 'choice',
      label: 'ViT hidden-state distance (OpenAGI)',
      value: '0.2835',
      detail: 'lower is better · nateraw/vit-base-beans · simulated',
    });
    // A run from before definitions were reported reads as before.
    expect(metricCardValue({ score: 1 })).toBe(undefined);
  });

  it('lists in the inspector what the settings compute', () => {
    expect(definitionLines(metricDefinition(metricData.parse({ kind: 'bertscore' })))).toEqual([
      'model: microsoft/deberta-xlarge-mnli',
      'layer: 40',
      'idf: false',
      'rescaleWithBaseline: false',
      'baselineF1: none',
      'markers: matched, weight 0',
      'higher is better',
    ]);
  });
});
