/** How an eval shows itself on a terminal: its progress while it runs, then its table. */

import type { EvalProgress } from '../../../eval/runner.ts';
import {
  failedNote,
  itemScoreText,
  variantIntervalText,
  variantScoreText,
} from '../../../eval/score-text.ts';
import type { EvalItemRecord, EvalSummary } from '../../../eval/types.ts';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { columns } from '../../columns.ts';

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
 * The table: one line per variant with its score, interval, failures, cost and latency. A
 * variant whose every run failed reads "failed", not a score; a line under the table says how
 * many runs failed and how the means count them.
 */
export function formatSummary(summary: EvalSummary): string {
  const head = [
    `eval ${summary.evalId} · ${summary.name} over ${summary.data} · ${summary.items} item${summary.items === 1 ? '' : 's'} · scorer ${summary.scorer} · ${summary.status}`,
  ];
  if (summary.simulated)
    head.push(`${SIMULATED_LABEL} answers: these scores say nothing about any model`);
  const rows = [
    ['variant', 'n', 'failed', 'score', '95% CI', 'cost', 'tokens', 'p50', 'p95'],
    ...summary.variants.map((v) => [
      v.name,
      String(v.n),
      String(v.failed),
      variantScoreText(v),
      variantIntervalText(v),
      `$${v.costUsd.toFixed(4)}`,
      v.tokens.toLocaleString('en-US'),
      seconds(v.latencyMs.p50),
      seconds(v.latencyMs.p95),
    ]),
  ];
  // Every column but the variant's name holds a number.
  const numbers = new Set(rows[0]!.map((_, c) => c).filter((c) => c > 0));
  const ratings = formatRatings(summary);
  const failed = failedNote(summary.variants);
  return [
    ...head,
    ...columns(rows, numbers),
    ...(failed ? [failed] : []),
    ...(ratings ? ['', ratings] : []),
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

/** Per item: each variant's score, status and run id. */
export function formatItems(items: readonly EvalItemRecord[]): string {
  const rows = [['item', 'variant', 'score', 'status', 'run', 'label / error']];
  for (const i of items)
    rows.push([
      String(i.item + 1),
      i.variant,
      itemScoreText(i),
      i.status,
      i.runId ?? '–',
      (i.error ?? i.label ?? '').replace(/\s+/g, ' ').slice(0, 80),
    ]);
  return columns(rows).join('\n');
}
