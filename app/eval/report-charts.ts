/**
 * The eval report's two charts, drawn as inline SVG text: a bar per variant with its 95%
 * interval as a whisker, and each variant's score against its cost. The page loads nothing
 * (its Content-Security-Policy forbids it), so the charts are made here rather than by a
 * charting script; hovering a mark shows its figures through SVG `<title>`.
 */
import { escapeHtml } from './html.ts';
import { hasNoScore } from './score-text.ts';
import type { VariantSummary } from './types.ts';

/** Colours per variant, in order; the Evals view in the editor uses the same ones. */
export const VARIANT_COLORS = [
  '#4f8ef7',
  '#f59e0b',
  '#10b981',
  '#e25c8a',
  '#8b5cf6',
  '#06b6d4',
  '#ef4444',
  '#84cc16',
];

export const variantColor = (index: number): string =>
  VARIANT_COLORS[index % VARIANT_COLORS.length]!;

/**
 * The score axis: [0, 1] when every interval lies there (accuracies, F1, ROUGE), otherwise
 * widened to take in every interval (a `cos` or a graph scorer may go past 1 or below 0).
 */
export function scoreDomain(variants: readonly VariantSummary[]): [number, number] {
  const los = variants.map((v) => Math.min(v.score.mean, v.score.ci95[0]));
  const his = variants.map((v) => Math.max(v.score.mean, v.score.ci95[1]));
  const lo = Math.min(0, ...los);
  const hi = Math.max(1, ...his);
  return [lo, hi];
}

/** About `count` round tick values covering [lo, hi] (steps of 1, 2 or 5 × 10^k). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  // Counted in whole steps and rounded to 12 digits, so 3 × 0.2 reads 0.6.
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++)
    ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

const n1 = (x: number) => (Math.round(x * 10) / 10).toString();
const tickText = (t: number) => (Math.abs(t) >= 100 ? t.toFixed(0) : String(Number(t.toFixed(4))));
const money = (usd: number) =>
  usd === 0 ? '$0' : usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`;
const cut = (name: string, max: number) =>
  name.length > max ? `${name.slice(0, max - 1)}…` : name;

const FONT = 'font-family="system-ui, sans-serif" font-size="11"';

/** A bar per variant: its mean score, its 95% interval as a whisker, the mean written above. */
export function scoreBarsSvg(variants: readonly VariantSummary[]): string {
  const margin = { top: 16, right: 12, bottom: 44, left: 44 };
  const slot = 72;
  const width = margin.left + margin.right + Math.max(3, variants.length) * slot;
  const height = 240;
  const plotH = height - margin.top - margin.bottom;
  const [lo, hi] = scoreDomain(variants);
  const y = (v: number) => margin.top + plotH - ((v - lo) / (hi - lo)) * plotH;
  const parts: string[] = [];
  for (const t of niceTicks(lo, hi)) {
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${n1(y(t))}" y2="${n1(y(t))}" class="grid"/>`,
      `<text x="${margin.left - 6}" y="${n1(y(t) + 4)}" text-anchor="end" class="tick">${tickText(t)}</text>`,
    );
  }
  variants.forEach((v, i) => {
    const cx = margin.left + slot * i + slot / 2;
    const barW = slot * 0.56;
    const top = y(Math.max(v.score.mean, 0));
    const base = y(Math.max(lo, Math.min(0, v.score.mean)));
    const [ciLo, ciHi] = v.score.ci95;
    const name = escapeHtml(v.name);
    if (hasNoScore(v)) {
      // No run was scored: no bar, which would read as a score of 0.
      parts.push(
        `<g class="bar" data-variant="${name}" data-failed><title>${name}: every run failed (n=${v.n}), no score</title>`,
        `<text x="${n1(cx)}" y="${n1(y(Math.max(lo, 0)) - 6)}" text-anchor="middle" class="value failed">${v.n ? 'failed' : '–'}</text>`,
        `<text x="${n1(cx)}" y="${height - margin.bottom + 16}" text-anchor="middle" class="label">${escapeHtml(cut(v.name, 11))}</text>`,
        '</g>',
      );
      return;
    }
    parts.push(
      `<g class="bar" data-variant="${name}"><title>${name}: ${v.score.mean.toFixed(3)} (95% CI ${ciLo.toFixed(3)}–${ciHi.toFixed(3)}, n=${v.n})</title>`,
      `<rect x="${n1(cx - barW / 2)}" y="${n1(Math.min(top, base))}" width="${n1(barW)}" height="${n1(Math.max(Math.abs(base - top), 0.5))}" fill="${variantColor(i)}"/>`,
      `<line x1="${n1(cx)}" x2="${n1(cx)}" y1="${n1(y(ciLo))}" y2="${n1(y(ciHi))}" class="whisker"/>`,
      `<line x1="${n1(cx - 8)}" x2="${n1(cx + 8)}" y1="${n1(y(ciLo))}" y2="${n1(y(ciLo))}" class="whisker"/>`,
      `<line x1="${n1(cx - 8)}" x2="${n1(cx + 8)}" y1="${n1(y(ciHi))}" y2="${n1(y(ciHi))}" class="whisker"/>`,
      `<text x="${n1(cx + 11)}" y="${n1(Math.max(y(v.score.mean) - 4, margin.top + 8))}" class="value">${v.score.mean.toFixed(3)}</text>`,
      `<text x="${n1(cx)}" y="${height - margin.bottom + 16}" text-anchor="middle" class="label">${escapeHtml(cut(v.name, 11))}</text>`,
      '</g>',
    );
  });
  parts.push(
    `<line x1="${margin.left}" x2="${width - margin.right}" y1="${n1(y(Math.max(lo, 0)))}" y2="${n1(y(Math.max(lo, 0)))}" class="axis"/>`,
    `<text x="${margin.left}" y="${height - 8}" class="tick">score by variant · whiskers: 95% interval</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Score by variant with 95% intervals" class="chart" data-chart="scores" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>${parts.join('')}</svg>`;
}

/**
 * Where each point's name goes: beside its point, moved down a line while it would cover a name
 * already placed (variants that score and cost the same sit on one spot).
 */
function labelPlaces(points: readonly { x: number; y: number }[]): { x: number; y: number }[] {
  const placed: { x: number; y: number }[] = [];
  const order = points.map((p, i) => ({ ...p, i })).sort((a, b) => a.y - b.y || a.x - b.x);
  const result: { x: number; y: number }[] = [];
  for (const p of order) {
    let y = p.y;
    while (placed.some((q) => Math.abs(q.y - y) < 12 && Math.abs(q.x - p.x) < 90)) y += 12;
    placed.push({ x: p.x, y });
    result[p.i] = { x: p.x, y };
  }
  return result;
}

/**
 * Each variant as a point: its cost across the eval (x) against its mean score (y), with its
 * interval as a vertical whisker and its name beside it. The cheaper and better variant is the
 * one up and to the left.
 */
export function scoreCostSvg(variants: readonly VariantSummary[]): string {
  const margin = { top: 16, right: 90, bottom: 44, left: 44 };
  const width = 460;
  const height = 240;
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const [lo, hi] = scoreDomain(variants);
  const maxCost = Math.max(0, ...variants.map((v) => v.costUsd));
  const costHi = maxCost > 0 ? maxCost * 1.1 : 1;
  // Points keep clear of the score axis, even at $0.
  const inset = 12;
  const x = (usd: number) => margin.left + inset + (usd / costHi) * (plotW - inset);
  const y = (v: number) => margin.top + plotH - ((v - lo) / (hi - lo)) * plotH;
  const parts: string[] = [];
  for (const t of niceTicks(lo, hi)) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${n1(y(t))}" y2="${n1(y(t))}" class="grid"/>`,
      `<text x="${margin.left - 6}" y="${n1(y(t) + 4)}" text-anchor="end" class="tick">${tickText(t)}</text>`,
    );
  }
  const costTicks = maxCost > 0 ? niceTicks(0, costHi, 4) : [0];
  for (const t of costTicks) {
    parts.push(
      `<text x="${n1(x(t))}" y="${margin.top + plotH + 16}" text-anchor="middle" class="tick">${money(t)}</text>`,
    );
  }
  const labels = labelPlaces(
    variants.map((v) => ({ x: x(v.costUsd) + 8, y: y(v.score.mean) + 4 })),
  );
  variants.forEach((v, i) => {
    // A variant with no scored run has no place on the score axis (the table says it failed).
    if (hasNoScore(v)) return;
    const cx = x(v.costUsd);
    const cy = y(v.score.mean);
    const name = escapeHtml(v.name);
    parts.push(
      `<g class="point" data-variant="${name}"><title>${name}: score ${v.score.mean.toFixed(3)}, cost ${money(v.costUsd)}, ${v.tokens} tokens</title>`,
      `<line x1="${n1(cx)}" x2="${n1(cx)}" y1="${n1(y(v.score.ci95[0]))}" y2="${n1(y(v.score.ci95[1]))}" stroke="${variantColor(i)}" class="whisker-light"/>`,
      `<circle cx="${n1(cx)}" cy="${n1(cy)}" r="5" fill="${variantColor(i)}"/>`,
      `<text x="${n1(labels[i]!.x)}" y="${n1(labels[i]!.y)}" class="label">${escapeHtml(cut(v.name, 14))}</text>`,
      '</g>',
    );
  });
  parts.push(
    `<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" class="axis"/>`,
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" class="axis"/>`,
    `<text x="${margin.left}" y="${height - 8}" class="tick">${maxCost > 0 ? 'score (y) against cost in US dollars (x)' : 'score (y) against cost: every variant cost $0'}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Score against cost per variant" class="chart" data-chart="cost" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT}>${parts.join('')}</svg>`;
}
