/**
 * ITCMA-S's resource allocation (Zhang et al. 2024, §4.2, Eq. 19, as the digest reconstructs
 * the garbled brace): of n ranked agents, the upper half gain from s_max down to s_min, the
 * next one gains nothing, the rest lose increasing amounts. For six: s_max, (s_min + s_max)/2,
 * s_min, 0, −(s_min + s_max)/2, −s_max.
 *
 * Eq. 19 is written for n > 2 and an even n. For other counts we keep its shape: the zero goes
 * to rank ⌊n/2⌋ + 1, the step size is (s_max − s_min) / max(|n/2 − 1|, 1), and every amount
 * other than the zero is kept within [s_min, s_max] in size.
 */
export function allocation(n: number, sMin: number, sMax: number): number[] {
  if (n <= 0) return [];
  if (n === 1) return [sMax];
  const half = n / 2;
  const zero = Math.floor(half) + 1;
  const span = Math.max(Math.abs(half - 1), 1);
  const size = (offset: number) =>
    clamp(
      sMin + (Math.abs(offset) / span) * (sMax - sMin),
      Math.min(sMin, sMax),
      Math.max(sMin, sMax),
    );
  const amounts: number[] = [];
  for (let j = 1; j <= n; j++) {
    if (j < zero) amounts.push(size(j - half));
    else if (j === zero) amounts.push(0);
    else amounts.push(-size(j - zero));
  }
  return amounts.map(tidy);
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** Amounts as people read them: 2 rather than 1.9999999999999998. */
export function tidy(x: number): number {
  return Math.round(x * 1e9) / 1e9 || 0;
}
