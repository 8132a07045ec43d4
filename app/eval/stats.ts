/**
 * The numbers of an eval's table: a mean with its 95% interval, and latency percentiles.
 *
 * Scores that are all 0 or 1 (accuracy) get the Wilson score interval, which stays inside
 * [0, 1] and behaves at small n and at 0% or 100%, where the normal approximation collapses to a
 * point (Wilson 1927; Brown, Cai & DasGupta 2001 recommend it for n < 40). Other scores get a
 * Student t interval on the mean, kept inside [0, 1] when every score is a fraction.
 */

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom; 1.96 beyond. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
];

const Z975 = 1.959964;

/** The mean and its 95% interval; an empty list gives 0 and [0, 0]. */
export function meanWithInterval(scores: readonly number[]): {
  mean: number;
  ci95: [number, number];
} {
  const n = scores.length;
  if (n === 0) return { mean: 0, ci95: [0, 0] };
  const mean = scores.reduce((a, b) => a + b, 0) / n;
  if (scores.every((s) => s === 0 || s === 1)) return { mean, ci95: wilson(mean, n) };
  // Fractions (F1, similarities) cannot leave [0, 1], so neither may their interval.
  const fractions = scores.every((s) => s >= 0 && s <= 1);
  return meanWithTInterval(scores, fractions ? [0, 1] : undefined);
}

/**
 * The mean and its 95% Student t interval, whatever the values (a rating of 1 on a 1–7 scale is
 * not a proportion, so never Wilson's). One value gives the point itself; none gives 0 and
 * [0, 0]. With `bounds`, the interval is kept inside them (a rating scale's ends).
 */
export function meanWithTInterval(
  values: readonly number[],
  bounds?: readonly [number, number],
): { mean: number; ci95: [number, number] } {
  const n = values.length;
  if (n === 0) return { mean: 0, ci95: [0, 0] };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, ci95: [mean, mean] };
  const variance = values.reduce((a, s) => a + (s - mean) ** 2, 0) / (n - 1);
  const t = T975[n - 2] ?? Z975;
  const half = t * Math.sqrt(variance / n);
  return {
    mean,
    ci95: bounds
      ? [Math.max(bounds[0], mean - half), Math.min(bounds[1], mean + half)]
      : [mean - half, mean + half],
  };
}

/** The Wilson score interval of a proportion `p` of `n` trials, at 95%. */
export function wilson(p: number, n: number): [number, number] {
  const z2 = Z975 * Z975;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z975 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Rounded so 0 and 1 read as 0 and 1, not 5.6e-17.
  const round = (x: number) => Math.round(x * 1e12) / 1e12;
  return [Math.max(0, round(centre - half)), Math.min(1, round(centre + half))];
}

/** The `q` quantile (0..1) of `values` by the nearest-rank method; 0 for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
