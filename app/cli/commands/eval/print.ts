/** How an eval shows itself on a terminal: its progress while it runs, then its table. */

import type { EvalProgress } from '../../../eval/runner.ts';
import {
  costPerSolvedText,
  failedNote,
  itemScoreText,
  pValueText,
  signedText,
  variantIntervalText,
  variantScoreText,
} from '../../../eval/score-text.ts';
import type { EvalItemRecord, EvalSummary, VariantSummary } from '../../../eval/types.ts';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { columns } from '../../../terminal/columns.ts';

const seconds = (ms: number) =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`
    : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;

/**
 * A progress display on `stream`: on a terminal one line redrawn in place, in a log a line
 * every tenth of the way. It shows the count, failures, money spent, the rate and an ETA
 * from this session's pace.
 */
export function evalProgress(stream: NodeJS.WriteStream) {
  const live = stream.isTTY === true;
  let logged = -1;
  let shown = false;
  return {
    update(p: EvalProgress) {
      const width = 24;
      const filled = p.total ? Math.round((p.done / p.total) * width) : width;
      const ranNow = p.done - p.resumed;
      const elapsed = Date.now() - p.startedAt;
      const rate = ranNow > 0 ? ranNow / (elapsed / 1000) : 0;
      const eta = rate > 0 ? seconds(((p.total - p.done) / rate) * 1000) : '…';
      const line = [
        `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.done}/${p.total} runs`,
        `${p.failed} failed`,
        `$${p.costUsd.toFixed(4)}`,
        rate > 0 ? `${rate.toFixed(2)} runs/s` : undefined,
        p.done < p.total ? `ETA ${eta}` : undefined,
      ]
        .filter(Boolean)
        .join(' · ');
      if (live) {
        stream.write(`\r\x1b[2K${line}`);
        shown = true;
        return;
      }
      const tenth = p.total ? Math.floor((p.done / p.total) * 10) : 10;
      if (tenth !== logged) {
        logged = tenth;
        stream.write(`${line}\n`);
      }
    },
    done() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

/**
 * The table: one line per variant with its score, interval, failures, cost, cost per solved
 * item and latency, and with two variants or more the difference from the first (`*` when a
 * paired test finds it significant at 0.05). A variant whose every run failed reads "failed",
 * not a score; a line under the table says how many runs failed and how the means count them,
 * and the paired tests follow in full.
 */
export function formatSummary(summary: EvalSummary): string {
  const repeats = summary.repeats ?? 1;
  const head = [
    `eval ${summary.evalId} · ${summary.name} over ${summary.data} · ${summary.items} item${summary.items === 1 ? '' : 's'}${repeats > 1 ? ` × ${repeats} repeats` : ''} · scorer ${summary.scorer} · ${summary.status}`,
  ];
  if (summary.simulated)
    head.push(`${SIMULATED_LABEL} answers: these scores say nothing about any model`);
  const compared = summary.variants.length > 1;
  const rows = [
    [
      'variant',
      'n',
      'failed',
      'score',
      '95% CI',
      ...(compared ? ['vs first'] : []),
      'cost',
      '$/solved',
      'tokens',
      'p50',
      'p95',
    ],
    ...summary.variants.map((v, index) => [
      v.name,
      String(v.n),
      String(v.failed),
      variantScoreText(v),
      variantIntervalText(v),
      ...(compared ? [index === 0 ? 'baseline' : differenceText(v.vsBaseline)] : []),
      `$${v.costUsd.toFixed(4)}`,
      costPerSolvedText(v),
      v.tokens.toLocaleString('en-US'),
      seconds(v.latencyMs.p50),
      seconds(v.latencyMs.p95),
    ]),
  ];
  // Every column but the variant's name holds a number.
  const numbers = new Set(rows[0]!.map((_, c) => c).filter((c) => c > 0));
  const ratings = formatRatings(summary);
  const failed = failedNote(summary.variants);
  const paired = formatPairedTests(summary);
  return [
    ...head,
    ...columns(rows, numbers),
    ...(repeats > 1
      ? [
          `n counts runs (items × repeats); the 95% CI is over the items' means across their repeats`,
        ]
      : []),
    ...(failed ? [failed] : []),
    ...(paired ? ['', paired] : []),
    ...(ratings ? ['', ratings] : []),
  ].join('\n');
}

/** A variant's difference from the first, `*` marking a significant one; "–" with no pairs. */
function differenceText(c: VariantSummary['vsBaseline']): string {
  return c ? `${signedText(c.meanDiff)}${c.significant ? '*' : ''}` : '–';
}

/**
 * The paired tests of every variant against the first, when there are two or more: the test,
 * the pairs (item × repeat) and those left out, the mean difference with its 95% interval, p,
 * and whether it is significant at 0.05.
 */
export function formatPairedTests(summary: EvalSummary): string | undefined {
  const [first, ...others] = summary.variants;
  if (!first || others.length === 0) return undefined;
  const rows = [['variant', 'test', 'pairs', 'unpaired', 'Δ mean', '95% CI', 'p', 'significant']];
  for (const v of others) {
    const c = v.vsBaseline;
    rows.push(
      c
        ? [
            v.name,
            c.test,
            String(c.n),
            String(c.unmatched),
            signedText(c.meanDiff),
            `[${signedText(c.ci95[0])}, ${signedText(c.ci95[1])}]`,
            pValueText(c.p),
            c.significant ? 'yes' : 'no',
          ]
        : [v.name, '–', '0', '–', '–', '–', '–', 'no pairs yet'],
    );
  }
  return [
    `paired tests vs ${first.name} (by item and repeat; a failed run counts 0; * is p < 0.05)`,
    ...columns(rows, new Set([2, 3, 4, 5, 6])),
  ].join('\n');
}

const rating = (x: number) => x.toFixed(2);

/**
 * The ratings people gave, when the eval has a rubric or ratings: per variant and scale, the
 * items rated (n), the mean and its 95% t interval (from n = 2).
 */
export function formatRatings(summary: EvalSummary): string | undefined {
  if (!summary.variants.some((v) => v.ratings)) return undefined;
  const { rubric } = summary;
  const rows = [['variant', 'scale', 'n', 'mean', '95% CI']];
  for (const v of summary.variants)
    for (const r of v.ratings ?? [])
      if (r.n > 0)
        rows.push([
          v.name,
          r.scale,
          String(r.n),
          rating(r.mean),
          r.ci95 ? `[${rating(r.ci95[0])}, ${rating(r.ci95[1])}]` : '–',
        ]);
  return [
    `ratings${rubric ? ` · rubric ${rubric.name}, ${rubric.min} to ${rubric.max}` : ''} · n items rated (several raters' scores of an item are averaged; scales not rated yet are left out)`,
    ...(rows.length > 1
      ? columns(rows, new Set([2, 3, 4]))
      : [`no item is rated yet: society rate RUN --scale ID=SCORE, or the Evals view`]),
  ].join('\n');
}

/** Per item: each variant's score, status and run id (and repeat, when items ran several times). */
export function formatItems(items: readonly EvalItemRecord[]): string {
  const repeated = items.some((i) => (i.repeat ?? 0) > 0);
  const rows = [
    ['item', ...(repeated ? ['repeat'] : []), 'variant', 'score', 'status', 'run', 'label / error'],
  ];
  for (const i of items)
    rows.push([
      String(i.item + 1),
      ...(repeated ? [String((i.repeat ?? 0) + 1)] : []),
      i.variant,
      itemScoreText(i),
      i.status,
      i.runId ?? '–',
      (i.error ?? i.label ?? '').replace(/\s+/g, ' ').slice(0, 80),
    ]);
  return columns(rows).join('\n');
}
