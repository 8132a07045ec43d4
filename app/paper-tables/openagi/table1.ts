/**
 * OpenAGI's Table 1 from an eval's items: the CLIP score over text-to-image tasks, the BERT
 * score over tasks that answer in text, the ViT score over tasks that answer with a picture
 * (Ge et al., Sec. 3.1.3), and Overall, their unweighted average. As in OpenAGI's code, a task's
 * score is the mean over its samples and a metric's the mean over its tasks. A metric with no
 * task in the eval has no number: the cell says so, and Overall averages the metrics that have
 * one. Each row prints the paper's figure for the chosen column beside ours and the difference.
 */
import { compareWithPaper, NOT_IN_PAPER } from '../../eval/paper-values.ts';
import { meanWithInterval } from '../../eval/stats.ts';
import type { EvalItemRecord } from '../../eval/types.ts';
import { OPENAGI_CATEGORIES, type OpenAgiCategory } from '../../experts/openagi.ts';
import { SIMULATED_LABEL } from '../../schema/simulated.ts';
import { columns } from '../../terminal/columns.ts';
import { paperFigure, type Table1Row } from './paper-values.ts';

export const TABLE1_METRICS = ['CLIP', 'BERT', 'ViT'] as const;
export type Table1Metric = (typeof TABLE1_METRICS)[number];

/** The metric the paper scores a category with. */
export function table1Metric(category: OpenAgiCategory): Table1Metric {
  if (category === 'text->image') return 'CLIP';
  if (category === 'image->image') return 'ViT';
  return 'BERT';
}

/**
 * One cell: tasks and samples finished, and the mean over tasks of each task's mean with a 95%
 * interval across tasks, a failed sample counting as 0 (as a wrong answer); the table says how
 * many failed, and a cell whose every sample failed reads "failed", not a score.
 */
export interface Table1Cell {
  tasks: number;
  /** Samples (eval items) finished. */
  items: number;
  /** Samples that failed. */
  failed: number;
  /** Null when no task was scored. */
  mean: number | null;
  ci95: [number, number] | null;
}

/** What a metric definition says about its direction (the metric node's `definition`). */
export interface MetricDefinition {
  kind?: string;
  name?: string;
  model?: string;
  settings?: unknown;
  better?: 'higher' | 'lower';
}

export interface Table1 {
  metrics: Array<
    { metric: Table1Metric; categories: OpenAgiCategory[]; lowerIsBetter: boolean } & Table1Cell
  >;
  /** The average of the metrics that have a number; `of` says how many of the three. */
  overall: { mean: number | null; of: number };
  categories: Array<{ category: OpenAgiCategory; metric: Table1Metric } & Table1Cell>;
}

/** Where each item belongs: its task's id and category. */
export interface ItemTask {
  task: number;
  category: OpenAgiCategory;
}

function cellOf(items: readonly EvalItemRecord[], taskOf: (item: number) => number): Table1Cell {
  const done = items.filter((i) => i.status !== 'running');
  if (done.length === 0) return { tasks: 0, items: 0, failed: 0, mean: null, ci95: null };
  const byTask = new Map<number, number[]>();
  for (const i of done) {
    const t = taskOf(i.item);
    byTask.set(t, [...(byTask.get(t) ?? []), i.score ?? 0]);
  }
  const taskMeans = [...byTask.values()].map((s) => s.reduce((a, b) => a + b, 0) / s.length);
  const { mean, ci95 } = meanWithInterval(taskMeans);
  return {
    tasks: byTask.size,
    // Samples, not runs: under --repeats each sample runs several times.
    items: new Set(done.map((i) => i.item)).size,
    failed: done.filter((i) => i.status === 'failed').length,
    mean,
    ci95,
  };
}

/**
 * The table from the eval's items (of one variant); `of` gives each item's category, or its
 * task and category (an item alone is its own task). `definitions` are the metric definitions
 * the items recorded, by item: a ViT whose definition is lower-is-better is a distance.
 */
export function table1(
  items: readonly EvalItemRecord[],
  of: ReadonlyMap<number, OpenAgiCategory | ItemTask>,
  definitions: ReadonlyMap<number, MetricDefinition> = new Map(),
): Table1 {
  const info = (item: number): ItemTask | undefined => {
    const v = of.get(item);
    return typeof v === 'string' ? { task: item, category: v } : v;
  };
  const taskOf = (item: number) => info(item)?.task ?? item;
  const byCategory = (c: OpenAgiCategory) => items.filter((i) => info(i.item)?.category === c);
  const metrics = TABLE1_METRICS.map((metric) => {
    const categories = OPENAGI_CATEGORIES.filter((c) => table1Metric(c) === metric);
    const mine = categories.flatMap(byCategory);
    const lowerIsBetter = mine.some((i) => definitions.get(i.item)?.better === 'lower');
    return { metric, categories, lowerIsBetter, ...cellOf(mine, taskOf) };
  });
  const scored = metrics.filter((m) => m.mean !== null);
  return {
    metrics,
    overall: {
      mean: scored.length ? scored.reduce((a, m) => a + m.mean!, 0) / scored.length : null,
      of: scored.length,
    },
    categories: OPENAGI_CATEGORIES.map((category) => ({
      category,
      metric: table1Metric(category),
      ...cellOf(byCategory(category), taskOf),
    })),
  };
}

const num = (x: number) => x.toFixed(4);
const counted = (c: Table1Cell) =>
  c.items === c.tasks ? `${c.tasks}` : `${c.tasks} (${c.items} samples)`;
const failedNote = (c: Table1Cell) => (c.failed ? `, ${c.failed} failed counted as 0` : '');
const interval = (c: Table1Cell) =>
  c.mean === null
    ? 'no task'
    : c.failed >= c.items
      ? `failed (${c.items === 1 ? 'its task' : `all ${c.items} ${c.items === c.tasks ? 'tasks' : 'samples'}`})`
      : `${c.tasks < 2 ? `${num(c.mean)} (one task, no interval)` : `${num(c.mean)} [${num(c.ci95![0])}, ${num(c.ci95![1])}]`}${failedNote(c)}`;

/** How a row is labelled: a ViT whose definition is lower-is-better says it is a distance. */
function rowLabel(m: Table1['metrics'][number]): string {
  return m.metric === 'ViT' && m.lowerIsBetter ? 'ViT distance (lower is better)' : m.metric;
}

/** The paper's figure and the difference for a row, through compareWithPaper. */
function paperCells(column: string | undefined, row: Table1Row, cell: Table1Cell | null) {
  if (column === undefined) return [NOT_IN_PAPER, '–'];
  const ours =
    cell && cell.mean !== null && cell.failed < cell.items
      ? { mean: cell.mean, ci95: cell.ci95 ?? [cell.mean, cell.mean], n: cell.tasks }
      : null;
  const c = compareWithPaper(paperFigure(column, row), ours, num);
  return [c.text.paper, c.text.diff];
}

/**
 * The table as text: Table 1's rows for the planner's column (the paper's figure for `paper`,
 * ours with its 95% interval, the difference), then the categories behind it.
 */
export function formatTable1(
  table: Table1,
  planner: string,
  about: { simulated: boolean; tasks: number; samples?: number; paper?: string },
): string {
  const each =
    about.samples === undefined
      ? 'one sample each'
      : `${about.samples} sample${about.samples === 1 ? '' : 's'} in all`;
  const head = `OpenAGI Table 1 layout · planner: ${planner} · ${about.tasks} task${about.tasks === 1 ? '' : 's'}, ${each}`;
  const lines = [head];
  lines.push(
    about.paper
      ? `paper: Ge et al., Table 1, column "${about.paper}" (the paper's 100 samples per task; Δ = ours − paper)`
      : 'paper: no Table 1 column matches this planner (--paper-column NAME picks one)',
  );
  if (about.simulated)
    lines.push(
      `${SIMULATED_LABEL}: simulated plans, experts and metrics; the scores measure no model`,
    );
  const overall = table.overall;
  const overallOurs =
    overall.mean === null
      ? 'no task'
      : table.metrics.every((m) => m.mean === null || m.failed >= m.items)
        ? 'failed'
        : `${num(overall.mean)}${overall.of < 3 ? ` (mean of ${overall.of} of 3 metrics)` : ''}`;
  const overallPaper = (() => {
    if (about.paper === undefined) return [NOT_IN_PAPER, '–'];
    const ours =
      overall.mean === null || overallOurs === 'failed'
        ? null
        : { mean: overall.mean, ci95: [overall.mean, overall.mean] as [number, number], n: 1 };
    const c = compareWithPaper(paperFigure(about.paper, 'Overall'), ours, num);
    return [c.text.paper, c.text.diff];
  })();
  lines.push(
    ...columns(
      [
        ['Metric', 'paper', `${planner} [95% CI]`, 'Δ', 'tasks', 'scored over'],
        ...table.metrics.map((m) => {
          const [paper, diff] = paperCells(about.paper, m.metric, m);
          return [rowLabel(m), paper!, interval(m), diff!, counted(m), m.categories.join(', ')];
        }),
        [
          'Overall',
          overallPaper[0]!,
          overallOurs,
          overallPaper[1]!,
          '',
          'the average of CLIP, BERT and ViT',
        ],
      ],
      new Set([4]),
    ),
  );
  if (table.metrics.some((m) => m.metric === 'ViT' && m.lowerIsBetter))
    lines.push(
      "ViT here is OpenAGI's distance (lower is better); Overall averages it with the scores as the paper does",
    );
  lines.push(
    '',
    ...columns(
      [
        ['category', 'metric', 'tasks', 'failed', 'score [95% CI]'],
        ...table.categories.map((c) => [
          c.category,
          c.metric,
          counted(c),
          c.mean === null ? '–' : String(c.failed),
          interval(c),
        ]),
      ],
      new Set([2, 3]),
    ),
  );
  const failed = table.categories.reduce((a, c) => a + c.failed, 0);
  const items = table.categories.reduce((a, c) => a + c.items, 0);
  const unit = items === about.tasks ? 'task' : 'sample';
  if (failed > 0)
    lines.push(
      `${failed} of ${items} ${unit}${items === 1 ? '' : 's'} failed: a failed ${unit} has no score and counts as 0 in its metric and in Overall`,
    );
  return lines.join('\n');
}
