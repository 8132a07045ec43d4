/**
 * NLSOM's Table 6 layout (3D generation, CLIP × 100): per prompt and on average, each arm and the
 * society's difference beside the paper's figures. `society nlsom 3d-eval` prints it, and
 * `society eval-show` and `eval-export` print it again from the prompts the command stores with
 * the eval.
 */
import { z } from 'zod';
import { pairedBootstrap } from '../../eval/paired.ts';
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../eval/paper-values.ts';
import { meanWithInterval } from '../../eval/stats.ts';
import type { TablePresenter } from '../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { columns } from '../../terminal/columns.ts';

/** The kind `society nlsom 3d-eval` names its table by. */
export const NLSOM_3D_TABLE = 'nlsom-3d';

const Context = z.object({
  /** Each item's prompt, by item index. */
  prompts: z.array(z.string()),
});

/** What the layout needs beyond the items, as stored with the eval. */
export type ThreeDTableContext = z.infer<typeof Context>;

/** The two arms, in the table's order: the baseline first. */
export const ARMS = [
  { name: 'original', template: 'nlsom-3d-original', label: 'original prompt (Imagine3D)' },
  { name: 'nlsom', template: 'nlsom-3d', label: "society's prompt (+NLSOM)" },
] as const;

/** Table 6 (CLIP × 100), by the word that names its prompt; the last entry is the average. */
const TABLE_6: Array<{ word: RegExp; name: string; original: number; nlsom: number }> = [
  { word: /ferrari/i, name: 'Ferrari', original: 30.0, nlsom: 29.0 },
  { word: /unicorn/i, name: 'Unicorn', original: 30.0, nlsom: 30.0 },
  { word: /flying/i, name: 'Flying', original: 28.6, nlsom: 26.0 },
  { word: /\bbee\b/i, name: 'Bee', original: 32.3, nlsom: 31.3 },
];
const TABLE_6_AVERAGE = { original: 30.3, nlsom: 29.1 };

/** Where the paper's figures come from, printed with the table. */
export const TABLE_6_SOURCE =
  "the paper's figures: NLSOM Table 6 (CLIP × 100 over the views; Luma Imagine3D designs, BLIP-2 critics, ChatGPT leader; the paper reads lower as better)";

/** One row: a prompt (or the average) with both arms and the difference compared. */
export interface ThreeDRow {
  prompt: string;
  paperColumn: string | null;
  original: PaperComparison;
  nlsom: PaperComparison;
  difference: PaperComparison & { p?: number; significant?: boolean };
}

const clip = (x: number) => (x * 100).toFixed(1);
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${clip(Math.abs(x))}`;
const single = (x: number) => ({ mean: x, ci95: [x, x] as [number, number], n: 1 });

/** Per prompt and on average: the two arms and their difference, beside Table 6. */
export function threeDRows(
  prompts: readonly string[],
  items: readonly EvalItemRecord[],
): { rows: ThreeDRow[]; pairs: number } {
  const scoreOf = (item: number, arm: string) => {
    const found = items.find((i) => i.item === item && i.variant === arm);
    return found?.status === 'scored' && typeof found.score === 'number' ? found.score : undefined;
  };
  const rows: ThreeDRow[] = [];
  const a: number[] = [];
  const b: number[] = [];
  prompts.forEach((prompt, item) => {
    const paper = TABLE_6.find((p) => p.word.test(prompt));
    const o = scoreOf(item, 'original');
    const s = scoreOf(item, 'nlsom');
    if (o !== undefined && s !== undefined) {
      a.push(o);
      b.push(s);
    }
    const fig = (x: number | undefined) => (x === undefined ? null : x / 100);
    rows.push({
      prompt,
      paperColumn: paper?.name ?? null,
      original: compareWithPaper(fig(paper?.original), o === undefined ? null : single(o), clip),
      nlsom: compareWithPaper(fig(paper?.nlsom), s === undefined ? null : single(s), clip),
      difference: compareWithPaper(
        paper ? (paper.nlsom - paper.original) / 100 : null,
        o === undefined || s === undefined ? null : single(s - o),
        signed,
        signed,
      ),
    });
  });
  const test = pairedBootstrap(a, b);
  const arm = (xs: number[]) => (xs.length ? { ...meanWithInterval(xs), n: xs.length } : null);
  rows.push({
    prompt: `average over ${a.length} prompt${a.length === 1 ? '' : 's'} with both arms`,
    paperColumn: 'Average',
    original: compareWithPaper(TABLE_6_AVERAGE.original / 100, arm(a), clip),
    nlsom: compareWithPaper(TABLE_6_AVERAGE.nlsom / 100, arm(b), clip),
    difference: {
      ...compareWithPaper(
        (TABLE_6_AVERAGE.nlsom - TABLE_6_AVERAGE.original) / 100,
        a.length ? { mean: test.meanDiff, ci95: test.ci95, n: a.length } : null,
        signed,
        signed,
      ),
      ...(a.length > 1 ? { p: test.p, significant: test.significant } : {}),
    },
  });
  return { rows, pairs: a.length };
}

/** The paper's layout: per prompt, each arm and the difference as paper / ours / Δ. */
export function formatThreeD(rows: readonly ThreeDRow[]): string[] {
  const lines = [['prompt', 'Table 6 column', 'arm', ...comparisonHeadings('CLIP×100')]];
  for (const r of rows) {
    const name = r.prompt.length > 40 ? `${r.prompt.slice(0, 39)}…` : r.prompt;
    const column = r.paperColumn ?? '–';
    lines.push([name, column, ARMS[0].label, ...texts(r.original)]);
    lines.push(['', '', ARMS[1].label, ...texts(r.nlsom)]);
    const sig =
      r.difference.p === undefined
        ? ''
        : ` (paired bootstrap p=${r.difference.p.toFixed(3)}${r.difference.significant ? ', significant' : ', not significant'})`;
    lines.push(['', '', 'society − original', ...texts(r.difference, sig)]);
  }
  return columns(lines);
}

const texts = (c: PaperComparison, suffix = ''): [string, string, string] => [
  c.text.paper,
  `${c.text.ours}${suffix}`,
  c.text.diff,
];

/** The table as text: heading, what both arms share, the rows and the paper's source. */
export function threeDText(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  context: ThreeDTableContext,
): string {
  const { rows } = threeDRows(context.prompts, items);
  return [
    `3D generation, CLIP × 100 over the views (NLSOM Table 6 layout)${summary.simulated ? ' · simulated answers and embeddings: no model' : ''}`,
    'both arms: the same stand-in designer, renderer (back, right, left) and CLIP score against the original prompt; higher is closer to the prompt',
    ...formatThreeD(rows),
    TABLE_6_SOURCE,
  ].join('\n');
}

export const present: TablePresenter = (summary, items, context) =>
  threeDText(summary, items, Context.parse(context));
