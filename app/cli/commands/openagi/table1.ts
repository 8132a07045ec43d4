/**
 * OpenAGI's Table 1 from an eval's items: the CLIP score over text-to-image tasks, the BERT
 * score over tasks that answer in text, the ViT score over tasks that answer with a picture
 * (Ge et al., Sec. 3.1.3), and Overall, their unweighted average. A metric with no task in the
 * eval has no number: the cell says so, and Overall averages the metrics that have one.
 */
import { meanWithInterval } from '../../../eval/stats.ts';
import type { EvalItemRecord } from '../../../eval/types.ts';
import { OPENAGI_CATEGORIES, type OpenAgiCategory } from '../../../experts/openagi.ts';
import { SIMULATED_LABEL } from '../../../schema/simulated.ts';
import { columns } from '../../columns.ts';

export const TABLE1_METRICS = ['CLIP', 'BERT', 'ViT'] as const;
export type Table1Metric = (typeof TABLE1_METRICS)[number];

/** The metric the paper scores a category with. */
export function table1Metric(category: OpenAgiCategory): Table1Metric {
  if (category === 'text->image') return 'CLIP';
  if (category === 'image->image') return 'ViT';
  return 'BERT';
}

/**
 * One cell: tasks finished, and their mean with a 95% interval, a failed task counting as 0 (as
 * a wrong answer); the table says how many failed, and a cell whose every task failed reads
 * "failed", not a score.
 */
export interface Table1Cell {
  tasks: number;
  failed: number;
  /** Null when no task was scored. */
  mean: number | null;
  ci95: [number, number] | null;
}

export interface Table1 {
  metrics: Array<{ metric: Table1Metric; categories: OpenAgiCategory[] } & Table1Cell>;
  /** The average of the metrics that have a number; `of` says how many of the three. */
  overall: { mean: number | null; of: number };
  categories: Array<{ category: OpenAgiCategory; metric: Table1Metric } & Table1Cell>;
}

function cellOf(items: readonly EvalItemRecord[]): Table1Cell {
  const done = items.filter((i) => i.status !== 'running');
  if (done.length === 0) return { tasks: 0, failed: 0, mean: null, ci95: null };
  const { mean, ci95 } = meanWithInterval(done.map((i) => i.score ?? 0));
  return {
    tasks: done.length,
    failed: done.filter((i) => i.status === 'failed').length,
    mean,
    ci95,
  };
}

/** The table from the eval's items; `categoryOf` gives each item's task category. */
export function table1(
  items: readonly EvalItemRecord[],
  categoryOf: ReadonlyMap<number, OpenAgiCategory>,
): Table1 {
  const byCategory = (c: OpenAgiCategory) => items.filter((i) => categoryOf.get(i.item) === c);
  const metrics = TABLE1_METRICS.map((metric) => {
    const categories = OPENAGI_CATEGORIES.filter((c) => table1Metric(c) === metric);
    return { metric, categories, ...cellOf(categories.flatMap(byCategory)) };
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
      ...cellOf(byCategory(category)),
    })),
  };
}

const num = (x: number) => x.toFixed(4);
const interval = (c: Table1Cell) =>
  c.mean === null
    ? 'no task'
    : c.failed >= c.tasks
      ? `failed (${c.tasks === 1 ? 'its task' : `all ${c.tasks} tasks`})`
      : `${c.tasks < 2 ? `${num(c.mean)} (one task, no interval)` : `${num(c.mean)} [${num(c.ci95![0])}, ${num(c.ci95![1])}]`}${c.failed ? `, ${c.failed} failed counted as 0` : ''}`;

/** The table as text: Table 1's rows for the planner's column, then the categories behind it. */
export function formatTable1(
  table: Table1,
  planner: string,
  about: { simulated: boolean; tasks: number },
): string {
  const head = `OpenAGI Table 1 layout · planner: ${planner} · ${about.tasks} task${about.tasks === 1 ? '' : 's'}, one sample each`;
  const lines = [head];
  if (about.simulated)
    lines.push(
      `${SIMULATED_LABEL}: simulated plans, experts and metrics; the scores measure no model`,
    );
  lines.push(
    ...columns(
      [
        ['Metric', planner, 'tasks', 'scored over'],
        ...table.metrics.map((m) => [
          m.metric,
          interval(m),
          String(m.tasks),
          m.categories.join(', '),
        ]),
        [
          'Overall',
          table.overall.mean === null
            ? 'no task'
            : table.metrics.every((m) => m.mean === null || m.failed >= m.tasks)
              ? 'failed'
              : `${num(table.overall.mean)}${table.overall.of < 3 ? ` (mean of ${table.overall.of} of 3 metrics)` : ''}`,
          '',
          'the average of CLIP, BERT and ViT',
        ],
      ],
      new Set([2]),
    ),
    '',
    ...columns(
      [
        ['category', 'metric', 'tasks', 'failed', 'score [95% CI]'],
        ...table.categories.map((c) => [
          c.category,
          c.metric,
          String(c.tasks),
          c.mean === null ? '–' : String(c.failed),
          interval(c),
        ]),
      ],
      new Set([2, 3]),
    ),
  );
  const failed = table.categories.reduce((a, c) => a + c.failed, 0);
  if (failed > 0)
    lines.push(
      `${failed} of ${about.tasks} task${about.tasks === 1 ? '' : 's'} failed: a failed task has no score and counts as 0 in its metric and in Overall`,
    );
  return lines.join('\n');
}
