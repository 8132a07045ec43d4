import { describe, expect, it } from 'vitest';
import type { ApiEvalSummary } from '../../app/api/contract.ts';
import { costPerSolvedText, costPerSolvedTitle, vsFirstCell } from './eval-comparison.ts';

type Variant = ApiEvalSummary['variants'][number];

const variant = (name: string, extra: Partial<Variant> = {}): Variant => ({
  name,
  n: 20,
  failed: 0,
  score: { mean: 0.5, ci95: [0.3, 0.7] },
  costUsd: 0.12,
  tokens: 1000,
  latencyMs: { p50: 100, p95: 200 },
  ...extra,
});

describe('a variant against the first', () => {
  it('calls the first the baseline and a variant with no pairs yet "–"', () => {
    expect(vsFirstCell(variant('small'), 0)).toMatchObject({ text: 'baseline', p: '' });
    expect(vsFirstCell(variant('big'), 1)).toMatchObject({ text: '–', significant: false });
  });

  it('gives the difference, p and the mark, and names the test on hover', () => {
    const cell = vsFirstCell(
      variant('big', {
        vsBaseline: {
          baseline: 'small',
          test: 'McNemar',
          n: 20,
          unmatched: 2,
          meanDiff: 0.25,
          ci95: [0.05, 0.45],
          p: 0.0004,
          significant: true,
        },
      }),
      1,
    );
    expect(cell).toMatchObject({ text: '+0.250', p: 'p < 0.001', significant: true });
    expect(cell.title.split('\n')).toEqual([
      'McNemar test against small, paired by item and repeat: 20 pairs',
      '2 runs without a partner left out',
      'mean difference +0.250, 95% interval [+0.050, +0.450]',
      'p < 0.001: significant at 0.05',
      'a failed run counts 0',
    ]);
    const worse = vsFirstCell(
      variant('tiny', {
        vsBaseline: {
          baseline: 'small',
          test: 'paired bootstrap',
          n: 20,
          unmatched: 0,
          meanDiff: -0.04,
          ci95: [-0.1, 0.02],
          p: 0.21,
          significant: false,
        },
      }),
      2,
    );
    expect(worse).toMatchObject({ text: '−0.040', p: 'p 0.210', significant: false });
    expect(worse.title).toMatch(
      /^paired bootstrap test against small.*\n.*\np = 0\.210: not significant/,
    );
  });
});

describe('cost per solved item', () => {
  it('reads the figure, or says why there is none', () => {
    const solved = variant('big', { solved: 8, costPerSolvedUsd: 0.015 });
    expect(costPerSolvedText(solved)).toBe('$0.0150');
    expect(costPerSolvedTitle(solved)).toBe(
      '8 runs solved their items; the cost of all 20 divided by 8',
    );
    expect(costPerSolvedText(variant('f1'))).toBe('–');
    expect(costPerSolvedTitle(variant('f1'))).toBe("This scorer's scores define no solved item");
    expect(costPerSolvedTitle(variant('none', { solved: 0 }))).toBe('No run solved its item');
  });
});
