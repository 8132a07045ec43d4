import { describe, expect, it } from 'vitest';
import {
  failedNote,
  failureVerdict,
  itemScoreText,
  variantIntervalText,
  variantScoreText,
} from './score-text.ts';

const variant = (n: number, failed: number, mean = 0.5) => ({
  n,
  failed,
  score: { mean, ci95: [0.25, 0.75] as [number, number] },
});

const run = (variant: string, error?: string) => ({
  variant,
  status: error === undefined ? ('scored' as const) : ('failed' as const),
  ...(error !== undefined ? { error } : {}),
});

describe('how scores read', () => {
  it('never shows a failed run as a number', () => {
    expect(itemScoreText({ status: 'failed', score: 0 })).toBe('failed');
    expect(itemScoreText({ status: 'failed' })).toBe('failed');
    expect(itemScoreText({ status: 'scored', score: 0 })).toBe('0.000');
    expect(itemScoreText({ status: 'running' })).toBe('–');
  });

  it('reads "failed" for a variant none of whose runs was scored, "–" before any finished', () => {
    expect(variantScoreText(variant(4, 4, 0))).toBe('failed');
    expect(variantIntervalText(variant(4, 4, 0))).toBe('–');
    expect(variantScoreText(variant(0, 0, 0))).toBe('–');
    expect(variantScoreText(variant(4, 1))).toBe('0.500');
    expect(variantIntervalText(variant(4, 1))).toBe('[0.250, 0.750]');
  });

  it('says how many runs failed and how the means count them', () => {
    expect(failedNote([variant(4, 0), variant(4, 0)])).toBeUndefined();
    expect(failedNote([variant(4, 1), variant(4, 2)])).toBe(
      "3 of 8 runs failed: a failed run has no score and counts as 0 in its variant's score and 95% CI",
    );
  });
});

describe('failureVerdict', () => {
  it('fails the eval when every run failed, naming the most common failure and its count', () => {
    const verdict = failureVerdict([
      run('default', 'budget exceeded at node "leader"'),
      run('default', 'HTTP 500'),
      run('default', 'budget exceeded at node "leader"'),
    ]);
    expect(verdict).toEqual({
      all: true,
      text: 'all 3 items failed; most common failure (2×): budget exceeded at node "leader"',
    });
  });

  it('warns when a variant failed every run while another scored', () => {
    const verdict = failureVerdict([
      run('monarchy'),
      run('monarchy'),
      run('democracy', 'budget exceeded'),
      run('democracy', 'budget exceeded'),
    ]);
    expect(verdict).toEqual({
      all: false,
      text: 'every run of variant democracy failed (2 of 4 runs in all); most common failure (2×): budget exceeded',
    });
  });

  it('warns when most runs failed, and says nothing when most were scored', () => {
    expect(failureVerdict([run('a', 'x'), run('a', 'x'), run('a')])?.text).toBe(
      '2 of 3 items failed; most common failure (2×): x',
    );
    expect(failureVerdict([run('a', 'x'), run('a'), run('a')])).toBeUndefined();
    expect(failureVerdict([run('a'), run('a')])).toBeUndefined();
  });
});
