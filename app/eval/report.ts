/**
 * An eval as one HTML page (`society eval … --report FILE.html`, `society eval-show ID --report
 * FILE.html`): the table per variant, a bar chart of scores with their intervals, score against
 * cost, the worst items with their run ids, and every item behind a disclosure.
 *
 * The page is self-contained so it can be mailed, attached to a paper's artefacts or opened
 * offline: inline CSS, inline SVG, no script, and a Content-Security-Policy that forbids loading
 * anything, so even a model's answer that slipped markup past the escaping could not fetch.
 * Every text (names, paths, labels, predictions, errors) is escaped: predictions are model text.
 */
import { SIMULATED_LABEL } from '../schema/simulated.ts';
import { escapeHtml, shortText } from './html.ts';
import { scoreBarsSvg, scoreCostSvg, variantColor } from './report-charts.ts';
import {
  costPerSolvedText,
  failedNote,
  hasNoScore,
  itemScoreText,
  pValueText,
  signedText,
  variantIntervalText,
  variantScoreText,
} from './score-text.ts';
import { worstItems } from './summary.ts';
import type { EvalItemRecord, EvalSummary, VariantSummary } from './types.ts';

/** The policy the page declares: nothing may load; only its own inline styles apply. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface EvalReportOptions {
  /** How many of the lowest-scored items to list (default 20). */
  worst?: number;
  /** At most this many items in the full list (default 5,000); the rest are counted. */
  allItems?: number;
}

const h = escapeHtml;
const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
const money = (usd: number) => `$${usd.toFixed(4)}`;
const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

const STYLE = `
:root { color-scheme: light dark; --bg:#fff; --fg:#1b1f27; --muted:#5f6b7a; --line:#d8dde5;
  --panel:#f5f7fa; --warn-bg:#fff4d6; --warn-fg:#6b4b00; --bad:#c62828; }
@media (prefers-color-scheme: dark) { :root { --bg:#0f1115; --fg:#e6e9ef; --muted:#8b94a5;
  --line:#2a303b; --panel:#161a21; --warn-bg:#3a2d0c; --warn-fg:#f5d27a; --bad:#f26b6b; } }
body { margin: 24px auto; max-width: 1100px; padding: 0 16px; background: var(--bg);
  color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
.meta { color: var(--muted); margin: 0 0 12px; } .meta code { color: var(--fg); }
code, .mono { font: 12px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.banner { background: var(--warn-bg); color: var(--warn-fg); border-radius: 6px;
  padding: 8px 12px; font-weight: 600; }
.note { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 320px; overflow-wrap: anywhere; white-space: pre-wrap; }
.failed { color: var(--bad); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
figure { margin: 0; } figcaption { color: var(--muted); font-size: 13px; margin-bottom: 4px; }
.chart .grid { stroke: var(--line); } .chart .axis { stroke: var(--muted); }
.chart .tick { fill: var(--muted); } .chart .label, .chart .value { fill: var(--fg); }
.chart .whisker { stroke: var(--fg); stroke-width: 1.5; }
.chart .whisker-light { stroke-width: 2; opacity: .6; }
details summary { cursor: pointer; margin: 8px 0; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
`;

function variantTable(summary: EvalSummary): string {
  const compared = summary.variants.length > 1;
  const rows = summary.variants.map(
    (v, i) => `<tr data-variant="${h(v.name)}">
<td><span class="swatch" style="background:${variantColor(i)}"></span>${h(v.name)}</td>
<td class="num">${v.n}</td><td class="num${v.failed ? ' failed' : ''}">${v.failed}</td>
<td class="num${hasNoScore(v) && v.n ? ' failed' : ''}">${variantScoreText(v)}</td>
<td class="num">${variantIntervalText(v)}</td>
${compared ? comparisonCell(v, i) : ''}
<td class="num">${money(v.costUsd)}</td><td class="num" data-cost-per-solved>${costPerSolvedText(v)}</td>
<td class="num">${v.tokens.toLocaleString('en-US')}</td>
<td class="num">${seconds(v.latencyMs.p50)}</td><td class="num">${seconds(v.latencyMs.p95)}</td></tr>`,
  );
  const first = summary.variants[0]?.name ?? '';
  return `<table class="variants"><thead><tr><th>variant</th><th class="num">n</th>
<th class="num">failed</th><th class="num">score</th><th class="num">95% interval</th>
${compared ? `<th class="num">vs ${h(first)} (paired)</th>` : ''}
<th class="num">cost</th><th class="num">cost per solved item</th><th class="num">tokens</th>
<th class="num">p50 latency</th><th class="num">p95 latency</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A variant against the first: the mean difference, p and whether it is significant. */
function comparisonCell(v: VariantSummary, index: number): string {
  if (index === 0) return '<td class="num note">baseline</td>';
  const c = v.vsBaseline;
  if (!c) return '<td class="num note">no pairs yet</td>';
  return `<td class="num" data-significant="${c.significant}">${signedText(c.meanDiff)}${c.significant ? '*' : ''}
<br><span class="note">p ${h(pValueText(c.p))} · ${h(c.test)}, ${c.n} pairs${c.unmatched ? `, ${c.unmatched} unpaired` : ''}</span></td>`;
}

/**
 * The ratings people gave, when the eval has a rubric or ratings: a row per variant, a column per
 * scale, each cell the mean with its n and (from n = 2) its 95% t interval.
 */
function ratingTable(summary: EvalSummary): string {
  const scales = summary.variants.find((v) => v.ratings)?.ratings?.map((r) => r.scale) ?? [];
  if (scales.length === 0) return '';
  const { rubric } = summary;
  const scale = (id: string) => rubric?.scales.find((s) => s.id === id);
  const head = scales
    .map(
      (id) =>
        `<th class="num" title="${h(scale(id)?.description ?? '')}">${h(scale(id)?.label ?? id)}</th>`,
    )
    .join('');
  const rows = summary.variants.map((v, i) => {
    const cells = scales.map((id) => {
      const r = v.ratings?.find((x) => x.scale === id);
      if (!r || r.n === 0) return '<td class="num">–</td>';
      const ci = r.ci95
        ? `<br><span class="note">[${r.ci95[0].toFixed(2)}, ${r.ci95[1].toFixed(2)}]</span>`
        : '';
      return `<td class="num" data-scale="${h(id)}">${r.mean.toFixed(2)} <span class="note">n=${r.n}</span>${ci}</td>`;
    });
    return `<tr data-variant="${h(v.name)}"><td><span class="swatch" style="background:${variantColor(i)}"></span>${h(v.name)}</td>${cells.join('')}</tr>`;
  });
  const range = rubric
    ? ` on rubric <code>${h(rubric.name)}</code> (${rubric.min} to ${rubric.max})`
    : '';
  return `<h2>Ratings</h2>
<table class="ratings"><thead><tr><th>variant</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>
<p class="note">Mean rating per scale${range} over the items rated (n), with its 95% Student t interval from n = 2. An item rated by several people counts once, at the mean of their scores. Rate items with <code>society rate RUN</code> or in the studio's Evals view.</p>`;
}

function itemRows(items: readonly EvalItemRecord[], repeated: boolean): string {
  return items
    .map(
      (
        i,
      ) => `<tr data-item="${i.item}" data-variant="${h(i.variant)}"${repeated ? ` data-repeat="${i.repeat ?? 0}"` : ''}>
<td class="num">${i.item + 1}</td>${repeated ? `<td class="num">${(i.repeat ?? 0) + 1}</td>` : ''}<td>${h(i.variant)}</td>
<td class="num${i.status === 'failed' ? ' failed' : ''}">${itemScoreText(i)}</td>
<td${i.status === 'failed' ? ' class="failed"' : ''}>${h(i.status)}</td>
<td class="text">${h(shortText(i.label, 200))}</td>
<td class="text">${h(shortText(i.prediction))}</td>
<td class="text">${h(shortText(i.reference))}</td>
<td class="text failed">${h(shortText(i.error, 300))}</td>
<td><code class="run-id">${h(i.runId ?? '–')}</code></td></tr>`,
    )
    .join('');
}

function itemTable(items: readonly EvalItemRecord[], testId: string, repeated: boolean): string {
  return `<table class="items" data-table="${testId}"><thead><tr><th class="num">item</th>
${repeated ? '<th class="num">repeat</th>' : ''}<th>variant</th><th class="num">score</th><th>status</th><th>item text</th><th>prediction</th>
<th>reference</th><th>error</th><th>run</th></tr></thead><tbody>${itemRows(items, repeated)}</tbody></table>`;
}

/** The report of an eval as one self-contained HTML page. */
export function evalReport(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  options: EvalReportOptions = {},
): string {
  const worst = worstItems(items, options.worst ?? 20);
  const done = items.filter((i) => i.status !== 'running');
  const listed = [...done]
    .sort(
      (a, b) =>
        a.item - b.item || (a.repeat ?? 0) - (b.repeat ?? 0) || a.variant.localeCompare(b.variant),
    )
    .slice(0, options.allItems ?? 5000);
  const repeats = summary.repeats ?? 1;
  const repeated = repeats > 1;
  const expected = summary.items * summary.variants.length * repeats;
  const scored = summary.variants.reduce((a, v) => a + v.n, 0);
  const title = `${summary.name} · eval ${summary.evalId}`;
  const banner = summary.simulated
    ? `<p class="banner" role="note" data-simulated>${h(SIMULATED_LABEL)} answers: every prediction here came from the simulated provider, so these scores say nothing about any model.</p>`
    : '';
  const unfinished =
    summary.status === 'finished'
      ? ''
      : `<p class="banner" role="note">This eval is ${h(summary.status)}: ${scored} of ${expected} item × variant runs are scored. The same <code>society eval</code> command resumes it.</p>`;
  const charts = summary.variants.length
    ? `<div class="charts">
<figure><figcaption>Score per variant, with its 95% interval</figcaption>${scoreBarsSvg(summary.variants)}</figure>
<figure><figcaption>Score against cost</figcaption>${scoreCostSvg(summary.variants)}</figure>
</div>`
    : '<p class="note">No variant has a scored item yet.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${h(summary.name)}</h1>
<p class="meta">eval <code>${h(summary.evalId)}</code> · document <code>${h(summary.document)}</code> · data <code>${h(summary.data)}</code> · ${summary.items} item${summary.items === 1 ? '' : 's'} × ${summary.variants.length} variant${summary.variants.length === 1 ? '' : 's'}${repeated ? ` × ${repeats} repeats` : ''} · scorer <code>${h(summary.scorer)}</code> · status <strong data-status>${h(summary.status)}</strong> · started ${when(summary.createdAt)}${summary.finishedAt !== undefined ? ` · finished ${when(summary.finishedAt)}` : ''} (UTC)</p>
${banner}${unfinished}
</header>
<main>
<h2>Scores by variant</h2>
${variantTable(summary)}
<p class="note"${summary.variants.some((v) => v.failed) ? ' data-failed-note' : ''}>${h(failedNote(summary.variants) ?? 'No run failed.')} A variant whose every run failed reads “failed”: it has no score. Accuracies (scores of 0 or 1) get the Wilson interval; other scores a Student t interval on the mean.${repeated ? ' With repeats, n counts runs (items × repeats) and the interval is over the items’ means across their repeats.' : ''} Cost per solved item is the variant’s cost over the runs that solved their item (a score of 1, or at least the scorer’s threshold); “–” when none did or the scorer defines no solving.${summary.variants.length > 1 ? ` Each variant is compared with ${h(summary.variants[0]!.name)} over the runs of the same item and repeat (McNemar’s test for 0/1 scores, else a paired bootstrap; a failed run counts as 0); * marks p &lt; 0.05.` : ''}</p>
${ratingTable(summary)}
<h2>Charts</h2>
${charts}
<h2>Worst items</h2>
<p class="note">The lowest scores first, failures first among equals. Each run id opens the item's whole run: paste it into <code>society show RUN</code>, or click the item in the studio's Evals view.</p>
${worst.length ? itemTable(worst, 'worst', repeated) : '<p class="note">No item is scored yet.</p>'}
<details>
<summary>All ${done.length} scored item × variant${repeated ? ' × repeat' : ''} runs${listed.length < done.length ? ` (the first ${listed.length} listed)` : ''}</summary>
${itemTable(listed, 'all', repeated)}
</details>
</main>
<footer>Made by <code>society eval</code>. The same table again: <code>society eval-show ${h(summary.evalId)} --items</code>.</footer>
</body>
</html>
`;
}
