/**
 * An eval's ratings added up: per variant, each scale's mean with its n and a 95% t interval.
 * What was rated — an item's run, or one agent of it (ITCMA-S's raters read each agent's
 * trajectory) — counts once, at the mean of its raters' scores, so n counts items or agent
 * trajectories (the units rated), not raters.
 */
import type { Rubric } from './rubrics.ts';
import { meanWithTInterval } from './stats.ts';
import type { EvalRating, ScaleRating } from './types.ts';

/**
 * The scales an eval's table shows: its rubric's, in order, then any other scale its items were
 * rated on (a rubric replaced since), by id.
 */
export function ratedScales(
  rubric: Rubric | undefined,
  ratings: readonly Pick<EvalRating, 'scale'>[],
): string[] {
  const scales = rubric?.scales.map((s) => s.id) ?? [];
  const others = [...new Set(ratings.map((r) => r.scale))].filter((s) => !scales.includes(s));
  return [...scales, ...others.sort()];
}

/** One variant's line of ratings: a `ScaleRating` per scale in `scales`, n = 0 when unrated. */
export function scaleRatings(
  scales: readonly string[],
  ratings: readonly EvalRating[],
  rubric?: Rubric,
): ScaleRating[] {
  return scales.map((scale) => {
    const byItem = new Map<string, number[]>();
    for (const r of ratings) {
      if (r.scale !== scale) continue;
      const key = `${r.item}\n${r.agent ?? ''}`;
      const scores = byItem.get(key) ?? [];
      scores.push(r.score);
      byItem.set(key, scores);
    }
    const itemMeans = [...byItem.values()].map((s) => s.reduce((a, b) => a + b, 0) / s.length);
    const n = itemMeans.length;
    if (n === 0) return { scale, n: 0, mean: 0 };
    const { mean, ci95 } = meanWithTInterval(itemMeans, rubric && [rubric.min, rubric.max]);
    return { scale, n, mean, ...(n >= 2 ? { ci95 } : {}) };
  });
}
