/**
 * NLSOM's Table 7 layout (Ego4D NLQ recall): random and grid on the eval's queries, and each
 * structure's rows as answered (its runs' `report-raw` output) and after "w. exec." (the items'
 * predictions). `society nlsom ego-eval` prints it, and `society eval-show` and `eval-export`
 * print it again from the context the command stores with the eval and the runs' outputs.
 */
import { z } from 'zod';
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../eval/paper-values.ts';
import { meanWithInterval } from '../../eval/stats.ts';
import type { RunOutputs, TablePresenter } from '../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { columns } from '../../terminal/columns.ts';
import { ranWithLine } from '../ran-with.ts';
import { RanVariants } from '../ran-with-schema.ts';

/** The kind `society nlsom ego-eval` names its table by. */
export const NLSOM_EGO_TABLE = 'nlsom-ego';

/**
 * What the heuristic rows need of a query (an `EgoQuery` of the command's data reader): its
 * answer window from the clip's start, and its clip's place in the video.
 */
const EgoWindow = z.object({
  start: z.number(),
  end: z.number(),
  clipStartInVideo: z.number(),
  clipEndInVideo: z.number(),
});
export type EgoWindow = z.infer<typeof EgoWindow>;

const Context = z.object({
  /** Each item's query window and clip, by item index. */
  queries: z.array(EgoWindow),
  /** Exchange rounds by structure (the row label's second figure), where the document says. */
  rounds: z.record(z.string(), z.number()),
  /** The values each structure ran with. */
  ran: RanVariants,
  /** Where the queries and narrations came from. */
  note: z.string(),
});

/** What the layout needs beyond the items, as stored with the eval. */
export type EgoTableContext = z.infer<typeof Context>;

/** Table 7's columns, in its order: R_k plain, @1 s, @10 s for k = 1, 3, 5. */
export const EGO_COLUMNS = ['R1', 'R1@1', 'R1@10', 'R3', 'R3@1', 'R3@10', 'R5', 'R5@1', 'R5@10'];

/** Table 7's rows (percent), by our row key: the heuristics, and each structure w. exec. by rounds. */
const TABLE_7: Record<string, { label: string; values: number[] }> = {
  random: {
    label: 'random (0)',
    values: [4.69, 5.21, 12.5, 7.29, 7.81, 20.31, 10.42, 11.46, 30.21],
  },
  grid: { label: 'grid (0)', values: [3.12, 3.65, 7.81, 6.25, 7.81, 15.1, 11.98, 14.06, 27.6] },
  'monarchy:1': {
    label: 'm. w.exec (4, 1)',
    values: [7.81, 9.9, 13.02, 16.67, 18.75, 29.17, 25.0, 27.08, 40.62],
  },
  'democracy:1': {
    label: 'd. w.exec (4, 1)',
    values: [9.38, 10.42, 17.19, 17.71, 18.23, 29.17, 22.92, 25.0, 39.58],
  },
  'raw:monarchy:1': {
    label: 'm. (4, 1)',
    values: [6.77, 8.33, 9.9, 14.58, 16.15, 21.88, 19.27, 20.83, 25.52],
  },
  'raw:democracy:1': {
    label: 'd. (4, 1)',
    values: [8.85, 9.35, 14.58, 16.67, 16.67, 23.96, 18.75, 20.31, 28.12],
  },
  'monarchy:2': {
    label: 'm. w.exec (4, 2)',
    values: [7.14, 8.79, 13.19, 14.29, 17.03, 24.18, 23.63, 25.82, 37.36],
  },
  'democracy:2': {
    label: 'd. w.exec (4, 2)',
    values: [8.85, 11.98, 16.67, 16.15, 18.75, 29.18, 23.44, 27.05, 40.1],
  },
};

/** Where the paper's figures come from, printed with the table. */
export const TABLE_7_SOURCE =
  "the paper's figures: NLSOM Table 7 (Ego4D NLQ, 5% of val: 192 queries, ChatGPT debaters, human narrations)";

/** A query's clip length, T, in seconds. */
export const durationOf = (q: EgoWindow) => q.clipEndInVideo - q.clipStartInVideo;
const parse = (key: string) => {
  const [k, tau] = key.slice(1).split('@');
  return { k: Number(k), tau: tau === undefined ? 0 : Number(tau) };
};
const hit = (times: readonly number[], q: EgoWindow, k: number, tau: number) =>
  times.slice(0, k).some((t) => t >= q.start - tau && t <= q.end + tau) ? 1 : 0;

/** The grid baseline: k + 1 equal parts of the clip, the k boundaries as predictions. */
export function gridHit(q: EgoWindow, key: string): number {
  const { k, tau } = parse(key);
  const T = durationOf(q);
  return hit(
    Array.from({ length: k }, (_, i) => (T * (i + 1)) / (k + 1)),
    q,
    k,
    tau,
  );
}

/** The random baseline's expected hit: 1 − (1 − p)^k, p the widened window's share of [0, T]. */
export function randomHit(q: EgoWindow, key: string): number {
  const { k, tau } = parse(key);
  const T = durationOf(q);
  const inside = Math.min(T, q.end + tau) - Math.max(0, q.start - tau);
  const p = Math.max(0, Math.min(1, inside / T));
  return 1 - (1 - p) ** k;
}

/** One row of the table: its cells compared with the paper's. */
export interface EgoRow {
  key: string;
  label: string;
  n: number;
  failed: number;
  cells: Array<{ column: string } & PaperComparison>;
}

const pct = (x: number) => (x * 100).toFixed(2);

function row(key: string, label: string, perQuery: (column: string) => number[], failed = 0) {
  const paper = TABLE_7[key];
  const cells = EGO_COLUMNS.map((column, c) => {
    const scores = perQuery(column);
    const ours = scores.length ? { ...meanWithInterval(scores), n: scores.length } : null;
    const figure = paper ? { value: paper.values[c]! / 100, where: 'Table 7' } : null;
    return { column, ...compareWithPaper(figure, ours, pct) };
  });
  return { key, label, n: perQuery(EGO_COLUMNS[0]!).length, failed, cells };
}

/** A run's recall table as answered, before "w. exec." (its `report-raw` output), by run id. */
export type RawTables = (runId: string) => Record<string, unknown> | undefined;

/** The recall table of a run's `report-raw` output, read through the eval's store. */
export const rawTables =
  (outputs: RunOutputs): RawTables =>
  (runId) => {
    const report = outputs(runId)?.['report-raw'];
    const table =
      report && typeof report === 'object' ? (report as Record<string, unknown>).table : undefined;
    return table && typeof table === 'object' ? (table as Record<string, unknown>) : undefined;
  };

/**
 * The table: random and grid on these queries, then each structure's runs as answered (the
 * list the editor or the vote gave) and after "w. exec." (the list the eval scores).
 */
export function egoRows(
  queries: readonly EgoWindow[],
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  rounds: Readonly<Record<string, number | undefined>>,
  raw: RawTables = () => undefined,
): EgoRow[] {
  const rows: EgoRow[] = [
    row('random', 'random (expected, 0 calls)', (c) => queries.map((q) => randomHit(q, c))),
    row('grid', 'grid (0 calls)', (c) => queries.map((q) => gridHit(q, c))),
  ];
  for (const v of summary.variants) {
    const own = items.filter((i) => i.variant === v.name && i.status !== 'running');
    const R = rounds[v.name];
    const short = v.name === 'monarchy' ? 'm.' : 'd.';
    const failed = own.filter((i) => i.status === 'failed').length;
    // A failed run is a query not retrieved: a miss in every column, and counted.
    const cell = (table: Record<string, unknown> | undefined, column: string) =>
      Number(table?.[column] ?? 0);
    const exec = (i: EvalItemRecord) =>
      i.status === 'failed'
        ? undefined
        : (i.prediction as { table?: Record<string, unknown> } | undefined)?.table;
    const asAnswered = (i: EvalItemRecord) =>
      i.status === 'failed' || i.runId === undefined ? undefined : raw(i.runId);
    // Runs stored before the document had a report-raw output give no such row.
    if (own.some((i) => asAnswered(i) !== undefined))
      rows.push(
        row(
          `raw:${v.name}:${R}`,
          `${short} (4, ${R ?? '?'})`,
          (c) => own.map((i) => cell(asAnswered(i), c)),
          failed,
        ),
      );
    rows.push(
      row(
        `${v.name}:${R}`,
        `${short} w.exec (4, ${R ?? '?'})`,
        (c) => own.map((i) => cell(exec(i), c)),
        failed,
      ),
    );
  }
  return rows;
}

/** The paper's layout: one line per row × column, paper, ours [95% CI], Δ (percent). */
export function formatEgoTable(rows: readonly EgoRow[]): string[] {
  const [paper, ours, diff] = comparisonHeadings('%');
  const lines = [['method', 'n', 'column', paper, ours, diff]];
  for (const r of rows)
    for (const cell of r.cells)
      lines.push([
        r.label,
        `${r.n}${r.failed ? ` (${r.failed} failed)` : ''}`,
        cell.column,
        cell.text.paper,
        cell.text.ours,
        cell.text.diff,
      ]);
  return columns(lines);
}

/** The table as text: heading, settings, where the data came from, the rows and the source. */
export function egoText(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  context: EgoTableContext,
  outputs: RunOutputs,
): string {
  const settings = ranWithLine(context.ran);
  const rows = egoRows(context.queries, summary, items, context.rounds, rawTables(outputs));
  return [
    `Ego4D NLQ recall, % (NLSOM Table 7 layout)${summary.simulated ? ' · simulated answers: made-up timestamps, no model' : ''}`,
    ...(settings ? [settings] : []),
    context.note,
    ...formatEgoTable(rows),
    TABLE_7_SOURCE,
    'random is its expected value over uniform draws; grid and random use no model; a failed run counts as a miss',
  ].join('\n');
}

export const present: TablePresenter = (summary, items, context, outputs) =>
  egoText(summary, items, Context.parse(context), outputs);
