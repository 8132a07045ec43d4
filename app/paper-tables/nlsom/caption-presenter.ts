/**
 * NLSOM's captioning figures (Zhuge et al., Sec. 2.2: given in the text, not in a table) as a
 * table: the society's Sentence-BERT similarity ×100 beside the paper's 20.6 at 10 rounds, and
 * the paper's baselines, which this command does not run. `society nlsom caption-eval` prints
 * it, and `society eval-show` and `eval-export` print it again from the context stored with the
 * eval.
 */
import { z } from 'zod';
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../eval/paper-values.ts';
import { meanWithInterval } from '../../eval/stats.ts';
import type { TablePresenter } from '../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { columns } from '../../terminal/columns.ts';

/** The kind `society nlsom caption-eval` names its table by. */
export const NLSOM_CAPTION_TABLE = 'nlsom-caption';

const Context = z.object({
  /** The rounds the society ran (its `rounds` parameter); null when the document names none. */
  rounds: z.number().int().nullable(),
  /** What the data was: the file, how many photos, how many were found. */
  note: z.string(),
});

/** What the layout needs beyond the items, as stored with the eval. */
export type CaptionTableContext = z.infer<typeof Context>;

/** The rounds the paper's NLSOM figure was measured at. */
export const PAPER_ROUNDS = 10;

/** Sec. 2.2's figures (Sentence-BERT similarity ×100, 310 TARA photos), on the 0–1 scale. */
const NLSOM_FIGURE = 0.206;
const BASELINES = [
  { method: 'BLIP-2', value: 0.113 },
  { method: 'Socratic Models', value: 0.138 },
  { method: 'Best-of-N', value: 0.182 },
];

/** Where the paper's figures come from, printed with the table. */
export const CAPTION_SOURCE =
  "the paper's figures: NLSOM Sec. 2.2 text (no table): 310 TARA photos, 10 rounds of mindstorm, Sentence-BERT similarity between the caption and spaCy's named entities of the article's first paragraph, ×100";

/** One row: a method, its rounds, how many photos it scored, and its cell compared. */
export interface CaptionRow {
  method: string;
  rounds: number | null;
  n: number;
  failed: number;
  cell: PaperComparison;
}

const x100 = (x: number) => (x * 100).toFixed(1);

/** The society's row from its items (repeats averaged per photo first), then the baselines. */
export function captionRows(
  items: readonly EvalItemRecord[],
  context: CaptionTableContext,
): CaptionRow[] {
  const byItem = new Map<number, number[]>();
  const failedItems = new Set<number>();
  for (const i of items) {
    if (i.status === 'running') continue;
    if (i.status === 'scored' && typeof i.score === 'number')
      byItem.set(i.item, [...(byItem.get(i.item) ?? []), i.score]);
    else failedItems.add(i.item);
  }
  for (const item of byItem.keys()) failedItems.delete(item);
  const scores = [...byItem.values()].map((xs) => xs.reduce((a, b) => a + b, 0) / xs.length);
  const ours = scores.length ? { ...meanWithInterval(scores), n: scores.length } : null;
  const rounds = context.rounds;
  return [
    {
      method: 'NLSOM (ours)',
      rounds,
      n: scores.length,
      failed: failedItems.size,
      cell: compareWithPaper(rounds === PAPER_ROUNDS ? NLSOM_FIGURE : null, ours, x100),
    },
    ...BASELINES.map((b) => {
      const cell = compareWithPaper(b.value, null, x100);
      return {
        method: b.method,
        rounds: null,
        n: 0,
        failed: 0,
        cell: { ...cell, text: { ...cell.text, ours: 'not run (baseline)' } },
      };
    }),
  ];
}

/** The table as text: heading, the data, the rows and the paper's source. */
export function captionText(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  context: CaptionTableContext,
): string {
  const rows = captionRows(items, context);
  const lines = [['method', 'rounds', 'n', 'failed', ...comparisonHeadings('similarity×100')]];
  for (const r of rows)
    lines.push([
      r.method,
      r.rounds === null ? '–' : String(r.rounds),
      r.method.startsWith('NLSOM') ? String(r.n) : '–',
      r.method.startsWith('NLSOM') ? String(r.failed) : '–',
      r.cell.text.paper,
      r.cell.text.ours,
      r.cell.text.diff,
    ]);
  const roundsNote =
    context.rounds === PAPER_ROUNDS
      ? []
      : [
          `the paper's NLSOM figure is for ${PAPER_ROUNDS} rounds; at ${context.rounds ?? '?'} it has none (--set rounds=${PAPER_ROUNDS})`,
        ];
  return [
    `TARA news-photo captioning, similarity ×100 (NLSOM Sec. 2.2)${summary.simulated ? ' · simulated answers and embeddings: no model' : ''}`,
    context.note,
    ...columns(lines),
    ...roundsNote,
    CAPTION_SOURCE,
  ].join('\n');
}

export const present: TablePresenter = (summary, items, context) =>
  captionText(summary, items, Context.parse(context));
