/**
 * What an eval's table says beyond each variant's mean: the interval when items run several
 * times, how many runs solved their item and what each solved item cost, and each variant
 * against the first (the baseline) by a paired test over the same items and repeats.
 */
import { pairedTest } from './paired.ts';
import { meanWithInterval } from './stats.ts';
import type { BaselineComparison, EvalItemRecord } from './types.ts';

/** A finished run's score as the table counts it: a failed run scores 0. */
const scoreOf = (i: EvalItemRecord) => i.score ?? 0;

/**
 * The mean and 95% interval of `runs` (one variant's finished runs). Run once, the mean over the
 * runs (Wilson for 0/1 scores, else Student t). With repeats, the runs of one item are not
 * independent (the same question is as hard each time), so the interval is over the items:
 * each item's mean over its repeats, then the interval of those means (Wilson again when every
 * item's repeats agree). The mean of the item means is the mean over the runs when every item
 * ran every repeat.
 */
export function scoreInterval(runs: readonly EvalItemRecord[]): {
  mean: number;
  ci95: [number, number];
} {
  if (!runs.some((i) => (i.repeat ?? 0) > 0)) return meanWithInterval(runs.map(scoreOf));
  const byItem = new Map<number, number[]>();
  for (const run of runs) {
    const scores = byItem.get(run.item) ?? [];
    scores.push(scoreOf(run));
    byItem.set(run.item, scores);
  }
  return meanWithInterval([...byItem.values()].map((s) => s.reduce((a, b) => a + b, 0) / s.length));
}

/**
 * How many of `runs` solved their item, or undefined when solving is not defined for the
 * scores: with `solvedAt` (a threshold the scorer declares), a score at or above it; without,
 * a score of 1 when every scored run scored 0 or 1 (an accuracy). Continuous scores with no
 * threshold (F1, similarities) have no "solved". A failed run solved nothing.
 */
export function solvedCount(
  runs: readonly EvalItemRecord[],
  solvedAt?: number,
): number | undefined {
  const scored = runs.filter((i) => i.status === 'scored' && i.score !== undefined);
  if (solvedAt !== undefined) return scored.filter((i) => i.score! >= solvedAt).length;
  if (!scored.every((i) => i.score === 0 || i.score === 1)) return undefined;
  return scored.filter((i) => i.score === 1).length;
}

/**
 * `variant`'s finished runs against `baseline`'s, paired by item and repeat; a failed run counts
 * as 0, as in the table's means. Runs without a partner (one side not run yet) are left out and
 * counted in `unmatched`. Undefined when no pair exists.
 */
export function compareWithBaseline(
  baselineName: string,
  baseline: readonly EvalItemRecord[],
  variant: readonly EvalItemRecord[],
): BaselineComparison | undefined {
  const key = (i: EvalItemRecord) => `${i.item}\u0000${i.repeat ?? 0}`;
  const theirs = new Map(baseline.map((i) => [key(i), i]));
  const a: number[] = [];
  const b: number[] = [];
  for (const run of variant) {
    const partner = theirs.get(key(run));
    if (!partner) continue;
    a.push(scoreOf(partner));
    b.push(scoreOf(run));
  }
  if (a.length === 0) return undefined;
  const test = pairedTest(a, b);
  return {
    baseline: baselineName,
    test: test.test,
    n: test.n,
    unmatched: baseline.length + variant.length - 2 * a.length,
    meanDiff: test.meanDiff,
    ci95: test.ci95,
    p: test.p,
    significant: test.significant,
  };
}
