/**
 * How an eval's scores read in every table, report and view. One rule, said once: a failed run
 * has no score, so it reads "failed", never a number; in a variant's mean and interval it counts
 * as 0 (as a wrong answer counts in a paper's accuracy), and every table that counts it so says
 * how many failed. A variant none of whose runs was scored has no mean: it reads "failed" too.
 */
import type { EvalItemRecord } from './types.ts';

/** What a variant's line needs to say whether its mean means anything. */
interface Counted {
  n: number;
  failed: number;
}

/** No run of the variant was scored: every one failed, or none has finished. */
export function hasNoScore(v: Counted): boolean {
  return v.n === 0 || v.failed >= v.n;
}

/** A variant's mean as a table shows it: the number, "failed" when every run failed, "–" before any finished. */
export function variantScoreText(v: Counted & { score: { mean: number } }, digits = 3): string {
  if (v.n === 0) return '–';
  if (v.failed >= v.n) return 'failed';
  return v.score.mean.toFixed(digits);
}

/** A variant's 95% interval as `[lo, hi]`, or "–" when it has no score. */
export function variantIntervalText(
  v: Counted & { score: { ci95: readonly [number, number] } },
  digits = 3,
): string {
  if (hasNoScore(v)) return '–';
  return `[${v.score.ci95[0].toFixed(digits)}, ${v.score.ci95[1].toFixed(digits)}]`;
}

/** A difference with its sign (+, −, ± for none), as the paper tables print theirs. */
export function signedText(x: number, digits = 3): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(digits)}`;
}

/** A p-value to three places, a tiny one as "< 0.001". */
export function pValueText(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toFixed(3);
}

/**
 * A variant's cost per solved item: "–" when it solved none or its scorer defines no solving.
 * Cents and up read to four places as the cost column; below a cent, two significant digits,
 * so a cheap model's figure is not $0.0000.
 */
export function costPerSolvedText(v: { costPerSolvedUsd?: number }): string {
  const x = v.costPerSolvedUsd;
  if (x === undefined) return '–';
  if (x >= 0.01 || x === 0) return `$${x.toFixed(4)}`;
  return `$${x.toFixed(Math.min(20, 1 - Math.floor(Math.log10(x))))}`;
}

/** An item's score as a table shows it: "failed" for a failed run, "–" before it is scored. */
export function itemScoreText(i: Pick<EvalItemRecord, 'status' | 'score'>, digits = 3): string {
  if (i.status === 'failed') return 'failed';
  return i.score === undefined ? '–' : i.score.toFixed(digits);
}

/**
 * The line under a table whose variants have failed runs: how many, and how the mean counts
 * them. Undefined when nothing failed.
 */
export function failedNote(variants: readonly Counted[]): string | undefined {
  const failed = variants.reduce((a, v) => a + v.failed, 0);
  if (failed === 0) return undefined;
  const runs = variants.reduce((a, v) => a + v.n, 0);
  return `${failed} of ${runs} run${runs === 1 ? '' : 's'} failed: a failed run has no score and counts as 0 in its variant's score and 95% CI`;
}

/** The failures of `items`, most common first: each distinct error with how many items had it. */
export function failureCounts(
  items: readonly Pick<EvalItemRecord, 'status' | 'error'>[],
): Array<{ error: string; count: number }> {
  const counts = new Map<string, number>();
  for (const i of items)
    if (i.status === 'failed') {
      const error = i.error ?? 'no reason recorded';
      counts.set(error, (counts.get(error) ?? 0) + 1);
    }
  return [...counts].map(([error, count]) => ({ error, count })).sort((a, b) => b.count - a.count);
}

/**
 * What an eval whose runs failed says on stderr: undefined when fewer than half failed, a
 * warning when more did, and `all: true` when every one failed (the eval measured nothing).
 * The text names the most common failure and how often it happened.
 */
export function failureVerdict(
  items: readonly Pick<EvalItemRecord, 'status' | 'error' | 'variant'>[],
): { all: boolean; text: string } | undefined {
  const done = items.filter((i) => i.status !== 'running');
  const failures = failureCounts(done);
  const failed = failures.reduce((a, f) => a + f.count, 0);
  if (failed === 0) return undefined;
  const top = failures[0]!;
  const common = `most common failure (${top.count}×): ${oneLine(top.error)}`;
  const runs = new Set(done.map((i) => i.variant)).size > 1 ? 'runs' : 'items';
  if (failed === done.length)
    return { all: true, text: `all ${done.length} ${runs} failed; ${common}` };
  const dead = [...new Set(done.map((i) => i.variant))].filter((variant) =>
    done.filter((i) => i.variant === variant).every((i) => i.status === 'failed'),
  );
  if (dead.length > 0)
    return {
      all: false,
      text: `every run of variant${dead.length === 1 ? '' : 's'} ${dead.join(', ')} failed (${failed} of ${done.length} ${runs} in all); ${common}`,
    };
  if (failed * 2 <= done.length) return undefined;
  return { all: false, text: `${failed} of ${done.length} ${runs} failed; ${common}` };
}

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
};
