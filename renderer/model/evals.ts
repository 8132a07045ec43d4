/**
 * What the Evals view draws, from the API's eval table and items (`evals.list`, `evals.get`):
 * the rows of the score chart with their interval as an error bar, the points of score against
 * cost, the best variant, and the items in the order asked. Pure, so it is tested without a page.
 */
import type { ApiEvalItem, ApiEvalSummary } from '../../app/api/contract.ts';
import { scoreDomain, variantColor } from '../../app/eval/report-charts.ts';
import { hasNoScore } from '../../app/eval/score-text.ts';

// The view shows scores by the rule every table follows: a failed run reads "failed".
export {
  failedNote,
  itemScoreText,
  variantIntervalText,
  variantScoreText,
} from '../../app/eval/score-text.ts';

type Variant = ApiEvalSummary['variants'][number];

/** A variant's bar: its mean, and the interval as distances below and above it (recharts' ErrorBar). */
export interface ScoreBar {
  name: string;
  mean: number;
  err: [number, number];
  lo: number;
  hi: number;
  n: number;
  failed: number;
  /** Every run failed (or none finished): no bar is drawn, the variant reads "failed". */
  noScore: boolean;
  color: string;
}

export function scoreBars(summary: ApiEvalSummary): ScoreBar[] {
  return summary.variants.map((v, i) => {
    const noScore = hasNoScore(v);
    return {
      name: v.name,
      // A variant with no scored run has no bar, rather than a bar at 0.
      mean: noScore ? 0 : v.score.mean,
      err: noScore
        ? [0, 0]
        : [
            Math.max(0, v.score.mean - v.score.ci95[0]),
            Math.max(0, v.score.ci95[1] - v.score.mean),
          ],
      lo: v.score.ci95[0],
      hi: v.score.ci95[1],
      n: v.n,
      failed: v.failed,
      noScore,
      color: variantColor(i),
    };
  });
}

/** A variant's point: what it cost over the eval against its mean score. */
export interface CostPoint extends ScoreBar {
  costUsd: number;
  tokens: number;
}

/**
 * The points of score against cost. Variants that cost and score about the same (every
 * simulated variant costs $0) share a spot: the charts' legend names them by colour.
 */
export function costPoints(summary: ApiEvalSummary): CostPoint[] {
  // A variant with no scored run has no place on the score axis.
  return scoreBars(summary).flatMap((bar, i) => {
    if (bar.noScore) return [];
    const v = summary.variants[i]!;
    return [{ ...bar, costUsd: v.costUsd, tokens: v.tokens }];
  });
}

/** About how wide one character of an 11 px axis label is, in pixels. */
const LABEL_CHAR_PX = 6.5;

/**
 * The width of one bar's slot on the score chart: room for the longest name, within bounds, so
 * a few short names keep the chart small and long ones neither collide nor stretch it past use.
 */
export function barSlot(bars: readonly Pick<ScoreBar, 'name'>[]): number {
  const longest = Math.max(0, ...bars.map((b) => b.name.length));
  return Math.min(120, Math.max(56, Math.ceil(longest * LABEL_CHAR_PX) + 12));
}

/** A name as it fits a slot `px` wide on the axis: whole, or cut with an ellipsis. */
export function axisLabel(name: string, px: number): string {
  const fits = Math.max(3, Math.floor((px - 8) / LABEL_CHAR_PX));
  return name.length <= fits ? name : `${name.slice(0, fits - 1)}…`;
}

/** The score axis both charts share: [0, 1] unless an interval goes past it. */
export function scoreAxis(summary: ApiEvalSummary): [number, number] {
  return scoreDomain(summary.variants);
}

/** The variant with the highest mean score (the first of equals), if any had a run scored. */
export function bestVariant(summary: ApiEvalSummary): Variant | undefined {
  let best: Variant | undefined;
  for (const v of summary.variants)
    if (!hasNoScore(v) && (!best || v.score.mean > best.score.mean)) best = v;
  return best;
}

/** How the items table is ordered: as in the dataset, or the lowest scores (and failures) first. */
export type ItemOrder = 'dataset' | 'worst';

/** The items of one variant (or all), in the order asked; items still running come last. */
export function orderedItems(
  items: readonly ApiEvalItem[],
  options: { variant?: string; order: ItemOrder },
): ApiEvalItem[] {
  const shown = items.filter((i) => options.variant === undefined || i.variant === options.variant);
  const byDataset = (a: ApiEvalItem, b: ApiEvalItem) =>
    a.item - b.item || a.variant.localeCompare(b.variant);
  if (options.order === 'dataset') return [...shown].sort(byDataset);
  const running = (i: ApiEvalItem) => (i.status === 'running' ? 1 : 0);
  return [...shown].sort(
    (a, b) =>
      running(a) - running(b) ||
      (a.score ?? 0) - (b.score ?? 0) ||
      Number(b.status === 'failed') - Number(a.status === 'failed') ||
      byDataset(a, b),
  );
}

/** A prediction or reference as one short line of text (JSON for anything but a string). */
export function itemValue(value: unknown, max = 160): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Dollars at a precision that shows small evals' costs (a simulated eval's $0 reads $0). */
export function money(usd: number): string {
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`;
}

/** A column of the rating part of the eval's table: a scale, with its label and description. */
export interface RatingColumn {
  id: string;
  label: string;
  description: string;
}

/**
 * The rating columns of an eval's table: its rubric's scales, in order, then any other scale its
 * variants were rated on (a rubric replaced since), by id. None for an eval nobody rates.
 */
export function ratingScales(summary: ApiEvalSummary): RatingColumn[] {
  const rated = summary.variants.find((v) => v.ratings)?.ratings?.map((r) => r.scale) ?? [];
  const own = summary.rubric?.scales ?? [];
  return [
    ...own,
    ...rated
      .filter((id) => !own.some((s) => s.id === id))
      .map((id) => ({ id, label: id, description: 'a scale the eval’s rubric no longer has' })),
  ];
}
