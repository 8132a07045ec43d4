import { describe, expect, it } from 'vitest';
import type { ApiEvalItem, ApiEvalSummary } from '../../app/api/contract.ts';
import {
  axisLabel,
  barSlot,
  bestVariant,
  costPoints,
  failedNote,
  itemScoreText,
  itemValue,
  money,
  orderedItems,
  ratingScales,
  scoreBars,
  variantIntervalText,
  variantScoreText,
} from './evals.ts';

const summary: ApiEvalSummary = {
  evalId: 'e1',
  name: 'capitals',
  status: 'finished',
  items: 2,
  scorer: 'exact',
  simulated: false,
  document: 'qa.society.json',
  data: 'data.jsonl',
  createdAt: 0,
  variants: [
    {
      name: 'small',
      n: 2,
      failed: 1,
      score: { mean: 0.5, ci95: [0.1, 0.9] },
      costUsd: 0.004,
      tokens: 60,
      latencyMs: { p50: 100, p95: 200 },
    },
    {
      name: 'big',
      n: 2,
      failed: 0,
      score: { mean: 1, ci95: [0.34, 1] },
      costUsd: 0.05,
      tokens: 70,
      latencyMs: { p50: 100, p95: 200 },
    },
  ],
};

const item = (patch: Partial<ApiEvalItem>): ApiEvalItem => ({
  item: 0,
  variant: 'small',
  status: 'scored',
  score: 1,
  costUsd: 0,
  tokens: 0,
  ...patch,
});

describe('the Evals view model', () => {
  it('gives each variant a bar whose error bar spans its 95% interval', () => {
    const [small, big] = scoreBars(summary);
    expect(small).toMatchObject({ name: 'small', mean: 0.5, failed: 1 });
    expect(small!.err[0]).toBeCloseTo(0.4);
    expect(small!.err[1]).toBeCloseTo(0.4);
    expect(big!.err[0]).toBeCloseTo(0.66);
    expect(big!.err[1]).toBe(0);
    expect(small!.color).not.toBe(big!.color);
    expect(costPoints(summary).map((p) => [p.name, p.costUsd])).toEqual([
      ['small', 0.004],
      ['big', 0.05],
    ]);
  });

  it('shows a variant whose every run failed as "failed": no bar, no point, never best', () => {
    const dead = {
      ...summary,
      variants: [
        summary.variants[0]!,
        {
          ...summary.variants[1]!,
          failed: 2,
          score: { mean: 0, ci95: [0, 0.66] as [number, number] },
        },
      ],
    };
    const [, big] = scoreBars(dead);
    expect(big).toMatchObject({ name: 'big', noScore: true, mean: 0, err: [0, 0] });
    expect(costPoints(dead).map((p) => p.name)).toEqual(['small']);
    expect(bestVariant(dead)?.name).toBe('small');
    expect(variantScoreText(dead.variants[1]!)).toBe('failed');
    expect(variantIntervalText(dead.variants[1]!)).toBe('–');
    expect(variantScoreText(dead.variants[0]!)).toBe('0.500');
    expect(failedNote(dead.variants)).toBe(
      "3 of 4 runs failed: a failed run has no score and counts as 0 in its variant's score and 95% CI",
    );
    // An item whose run failed reads "failed", whatever an older store kept as its score.
    expect(itemScoreText(item({ status: 'failed', score: 0 }))).toBe('failed');
    expect(itemScoreText(item({ score: 0 }))).toBe('0.000');
  });

  it('gives long variant names a wider slot, and cuts what still does not fit', () => {
    expect(barSlot([{ name: 'a' }, { name: 'bb' }])).toBe(56);
    expect(barSlot([{ name: 'no-reflection' }])).toBe(97);
    expect(barSlot([{ name: 'a'.repeat(40) }])).toBe(120);
    expect(axisLabel('small', 56)).toBe('small');
    expect(axisLabel('no-emotional-memory-at-all', 120)).toBe('no-emotional-mem…');
    expect(axisLabel('no-emotional-memory-at-all', 120).length).toBeLessThanOrEqual(17);
  });

  it('names the best variant, and none before anything is scored', () => {
    expect(bestVariant(summary)?.name).toBe('big');
    expect(
      bestVariant({ ...summary, variants: summary.variants.map((v) => ({ ...v, n: 0 })) }),
    ).toBeUndefined();
  });

  it('orders items as in the dataset, or the worst first with failures before wrong answers', () => {
    const items = [
      item({ item: 1, variant: 'small', score: 0 }),
      item({ item: 0, variant: 'small', score: 1 }),
      item({ item: 2, variant: 'small', status: 'failed', score: 0 }),
      item({ item: 0, variant: 'big', score: 1 }),
      item({ item: 3, variant: 'small', status: 'running', score: undefined }),
    ];
    const key = (i: ApiEvalItem) => `${i.item}${i.variant}`;
    expect(orderedItems(items, { order: 'dataset' }).map(key)).toEqual([
      '0big',
      '0small',
      '1small',
      '2small',
      '3small',
    ]);
    expect(orderedItems(items, { order: 'worst', variant: 'small' }).map(key)).toEqual([
      '2small',
      '1small',
      '0small',
      '3small',
    ]);
  });

  it('shows predictions on one short line, and small costs readably', () => {
    expect(itemValue('a\n  b')).toBe('a b');
    expect(itemValue({ city: 'Paris' })).toBe('{"city":"Paris"}');
    expect(itemValue('x'.repeat(10), 4)).toBe('xxx…');
    expect(money(0)).toBe('$0');
    expect(money(0.00123)).toBe('$0.0012');
    expect(money(1.5)).toBe('$1.50');
  });
});

describe('rating columns', () => {
  const rubric = {
    name: 'mine',
    min: 1,
    max: 5,
    scales: [
      { id: 'tone', label: 'Tone', description: 'Polite?' },
      { id: 'focus', label: 'Focus', description: 'On topic?' },
    ],
  };

  it('has none for an eval nobody rates', () => {
    expect(ratingScales(summary)).toEqual([]);
  });

  it("gives the rubric's scales in order, then scales rated under an earlier rubric", () => {
    const rated: ApiEvalSummary = {
      ...summary,
      rubric,
      variants: summary.variants.map((v) => ({
        ...v,
        ratings: [
          { scale: 'tone', n: 1, mean: 4 },
          { scale: 'focus', n: 0, mean: 0 },
          { scale: 'humour', n: 2, mean: 3, ci95: [1, 5] },
        ],
      })),
    };
    expect(ratingScales(rated).map((s) => [s.id, s.label])).toEqual([
      ['tone', 'Tone'],
      ['focus', 'Focus'],
      ['humour', 'humour'],
    ]);
  });
});
