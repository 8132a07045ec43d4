import { describe, expect, it } from 'vitest';
import { erfc, mcnemar, pairedBootstrap, pairedTest } from './paired.ts';
import { compareWithPaper } from './paper-values.ts';

describe('paired tests', () => {
  it("McNemar is exact for few discordant pairs: 1 against 9 gives the binomial's two tails", () => {
    // A right alone on 1 pair, B right alone on 9, both right on 10.
    const a = [1, ...Array(9).fill(0), ...Array(10).fill(1)];
    const b = [0, ...Array(9).fill(1), ...Array(10).fill(1)];
    const test = mcnemar(a, b);
    // 2 · P(X ≤ 1), X ~ Bin(10, 1/2) = 2 · 11/1024.
    expect(test.p).toBeCloseTo(22 / 1024, 12);
    expect(test.discordant).toEqual([1, 9]);
    expect(test.meanDiff).toBeCloseTo(8 / 20, 12);
    expect(test.significant).toBe(true);
  });

  it('McNemar uses the corrected chi-square beyond 25 discordant pairs', () => {
    const a = [...Array(10).fill(1), ...Array(30).fill(0)];
    const b = [...Array(10).fill(0), ...Array(30).fill(1)];
    // (|10 − 30| − 1)² / 40 = 9.025; p = erfc(√(9.025/2)).
    expect(mcnemar(a, b).p).toBeCloseTo(erfc(Math.sqrt(9.025 / 2)), 12);
    expect(erfc(Math.sqrt(3.841459 / 2))).toBeCloseTo(0.05, 6);
  });

  it('identical variants are not different; the bootstrap is seeded', () => {
    const a = [0.2, 0.4, 0.9, 0.5];
    expect(pairedTest(a, a).p).toBe(1);
    const b = [0.3, 0.6, 0.95, 0.7];
    const one = pairedBootstrap(a, b);
    expect(one).toEqual(pairedBootstrap(a, b));
    expect(one.test).toBe('paired bootstrap');
    expect(one.meanDiff).toBeCloseTo(0.1375, 12);
    // Every difference is positive: no resample reaches 0.
    expect(one.p).toBe(0);
    expect(one.ci95[0]).toBeGreaterThan(0);
  });

  it('refuses unpaired lists', () => {
    expect(() => pairedTest([1], [1, 0])).toThrow(/as many scores/);
  });
});

describe('paper values beside ours', () => {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  it('prints both sides and the signed difference', () => {
    const c = compareWithPaper(
      { value: 0.662, where: 'Table 4' },
      { mean: 0.6, ci95: [0.5, 0.7], n: 40 },
      pct,
    );
    expect(c.text).toEqual({ paper: '66.2%', ours: '60.0% [50.0%, 70.0%]', diff: '−6.2%' });
    expect(c.paperInInterval).toBe(true);
  });
  it('marks a cell the paper does not have', () => {
    const c = compareWithPaper(undefined, { mean: 0.5, ci95: [0.5, 0.5], n: 1 }, pct);
    expect(c.text).toEqual({ paper: 'not in paper', ours: '50.0% (n=1, no interval)', diff: '–' });
  });
});
