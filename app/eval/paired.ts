/**
 * Paired comparisons of two variants over the same items (and repeats): McNemar's test for
 * accuracies (every score 0 or 1) and a paired bootstrap for other scores. Both look only at
 * the per-item differences, which is what makes two variants run on the same items comparable
 * at a sample size where their separate intervals still overlap (Dietterich 1998; Koehn 2004
 * for the bootstrap over paired items).
 */

/** The outcome of a paired test of B against A. */
export interface PairedTest {
  test: 'McNemar' | 'paired bootstrap';
  /** Pairs compared. */
  n: number;
  /** Mean of B − A over the pairs. */
  meanDiff: number;
  /** The 95% interval of that difference (bootstrap percentiles; for McNemar, Newcombe's). */
  ci95: [number, number];
  /** Two-sided p-value. */
  p: number;
  /** p < 0.05. */
  significant: boolean;
  /** McNemar: pairs only A got right, and only B. */
  discordant?: [number, number];
}

/** The binary outcomes of paired trials: McNemar's test, exact when few pairs disagree. */
export function mcnemar(a: readonly number[], b: readonly number[]): PairedTest {
  checkPairs(a, b);
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === 1 && b[i] === 0) onlyA++;
    else if (a[i] === 0 && b[i] === 1) onlyB++;
  }
  const discordant = onlyA + onlyB;
  let p: number;
  if (discordant === 0) p = 1;
  else if (discordant < 25) p = Math.min(1, 2 * binomialTail(Math.min(onlyA, onlyB), discordant));
  else {
    // With continuity correction; one degree of freedom.
    const chi = (Math.abs(onlyA - onlyB) - 1) ** 2 / discordant;
    p = erfc(Math.sqrt(chi / 2));
  }
  const n = a.length;
  const meanDiff = n === 0 ? 0 : (onlyB - onlyA) / n;
  return {
    test: 'McNemar',
    n,
    meanDiff,
    ci95: newcombeDifference(a, b, onlyA, onlyB),
    p,
    significant: p < 0.05,
    discordant: [onlyA, onlyB],
  };
}

/**
 * Scores of paired items: the paired bootstrap. Pairs are resampled with replacement `resamples`
 * times from a fixed seed (so the same items print the same p); p is twice the share of
 * resampled mean differences on the far side of 0.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): PairedTest {
  checkPairs(a, b);
  const n = a.length;
  const diffs = a.map((x, i) => b[i]! - x);
  const meanDiff = n === 0 ? 0 : diffs.reduce((s, d) => s + d, 0) / n;
  if (n === 0 || diffs.every((d) => d === diffs[0]))
    return {
      test: 'paired bootstrap',
      n,
      meanDiff,
      ci95: [meanDiff, meanDiff],
      p: meanDiff === 0 ? 1 : 0,
      significant: meanDiff !== 0 && n > 1,
    };
  const resamples = options.resamples ?? 10_000;
  const random = mulberry32(options.seed ?? 0x5eed);
  const means = new Float64Array(resamples);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)]!;
    const mean = sum / n;
    means[r] = mean;
    if (mean <= 0) atOrBelow++;
    if (mean >= 0) atOrAbove++;
  }
  means.sort();
  const p = Math.min(1, (2 * Math.min(atOrBelow, atOrAbove)) / resamples);
  return {
    test: 'paired bootstrap',
    n,
    meanDiff,
    ci95: [means[Math.floor(0.025 * (resamples - 1))]!, means[Math.ceil(0.975 * (resamples - 1))]!],
    p,
    significant: p < 0.05,
  };
}

/** McNemar when every score is 0 or 1, the paired bootstrap otherwise. */
export function pairedTest(a: readonly number[], b: readonly number[]): PairedTest {
  const binary = (xs: readonly number[]) => xs.every((x) => x === 0 || x === 1);
  return binary(a) && binary(b) ? mcnemar(a, b) : pairedBootstrap(a, b);
}

function checkPairs(a: readonly number[], b: readonly number[]): void {
  if (a.length !== b.length)
    throw new Error(
      `a paired test needs as many scores on each side (${a.length} and ${b.length})`,
    );
}

/** P(X ≤ k) for X ~ Binomial(n, 1/2), summed in log space so large n stays finite. */
function binomialTail(k: number, n: number): number {
  let sum = 0;
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  for (let i = 0; i <= k; i++) {
    sum += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1));
  }
  return sum;
}

/**
 * The complementary error function (Numerical Recipes' erfcc, fractional error below 1.2e-7),
 * enough for a p-value printed to three places.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t *
                              (-1.13520398 +
                                t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/**
 * Newcombe's interval (method 10, 1998) for the difference of paired proportions pB − pA, from
 * the two Wilson intervals and the correlation of the pairs.
 */
function newcombeDifference(
  a: readonly number[],
  b: readonly number[],
  onlyA: number,
  onlyB: number,
): [number, number] {
  const n = a.length;
  if (n === 0) return [0, 0];
  const pA = a.reduce((s, x) => s + x, 0) / n;
  const pB = b.reduce((s, x) => s + x, 0) / n;
  const [lA, uA] = wilsonBounds(pA, n);
  const [lB, uB] = wilsonBounds(pB, n);
  const both = a.filter((x, i) => x === 1 && b[i] === 1).length;
  const neither = n - both - onlyA - onlyB;
  const rowA = both + onlyA;
  const rowNotA = onlyB + neither;
  const colB = both + onlyB;
  const colNotB = onlyA + neither;
  const product = rowA * rowNotA * colB * colNotB;
  let phi = product === 0 ? 0 : (both * neither - onlyA * onlyB) / Math.sqrt(product);
  // Newcombe's correction: a positive correlation is shrunk by n/2.
  if (phi > 0) phi = Math.max(0, both * neither - onlyA * onlyB - n / 2) / Math.sqrt(product);
  const d = pB - pA;
  const lower = d - Math.sqrt((pB - lB) ** 2 - 2 * phi * (pB - lB) * (uA - pA) + (uA - pA) ** 2);
  const upper = d + Math.sqrt((uB - pB) ** 2 - 2 * phi * (uB - pB) * (pA - lA) + (pA - lA) ** 2);
  return [Math.max(-1, lower), Math.min(1, upper)];
}

function wilsonBounds(p: number, n: number): [number, number] {
  const z = 1.959964;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** A small seeded generator (mulberry32): the same seed gives the same resamples everywhere. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
