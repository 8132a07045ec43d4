/**
 * MindAgent's CoS tables for a sweep, from its items: one table per agent count, a column per
 * level, a row per order frequency α. `society cuisineworld sweep` prints them, and `society
 * eval-show` and `eval-export` print them again from the layout it stores with the eval.
 */
import { z } from 'zod';
import { type CellCounts, formatCosTable, type SweepColumn } from '../../../environments/cos.ts';
import type { TablePresenter } from '../../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../../eval/types.ts';
import { simulatedPrefix } from '../../../schema/simulated.ts';

const Layout = z.object({
  /** Each item's cell of the grid, by item index. */
  cells: z.array(z.looseObject({ level: z.string(), agents: z.number(), alpha: z.number() })),
  levels: z.array(z.string()),
  agentCounts: z.array(z.number()),
  alphas: z.array(z.number()),
  /** Who dispatched, and the ablation when it is not the full dispatcher. */
  title: z.string(),
  episodes: z.number(),
  maxSteps: z.number(),
});

/** What a sweep stores with its eval to print its tables again. */
export type SweepLayout = z.infer<typeof Layout>;

/** Orders completed, failed and open per level × agents × α, summed over episodes. */
export function sweepTables(items: readonly EvalItemRecord[], layout: SweepLayout) {
  const results: Record<string, Record<number, CellCounts[]>> = {};
  const byItem = new Map(items.map((i) => [i.item, i]));
  let failed = 0;
  for (const agents of layout.agentCounts)
    for (const level of layout.levels) {
      const row = layout.alphas.map((alpha) => {
        const counts: CellCounts = { completed: 0, failed: 0, open: 0 };
        layout.cells.forEach((c, item) => {
          if (c.level !== level || c.agents !== agents || c.alpha !== alpha) return;
          const record = byItem.get(item);
          const m = record?.prediction as Partial<CellCounts> & { simulated?: boolean };
          if (record?.status !== 'scored' || !m) {
            failed++;
            return;
          }
          counts.completed += m.completed ?? 0;
          counts.failed += m.failed ?? 0;
          counts.open += m.open ?? 0;
        });
        return counts;
      });
      results[level] ??= {};
      results[level]![agents] = row;
    }
  return { results, failed };
}

/** The tables as text, one per agent count, and a line for failed episodes. */
export function sweepText(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  layout: SweepLayout,
): string {
  const { results, failed } = sweepTables(items, layout);
  const blocks = layout.agentCounts.map((agents) => {
    const columns: SweepColumn[] = layout.levels.map((level) => ({
      level,
      cells: results[level]![agents]!,
    }));
    return formatCosTable(
      `${simulatedPrefix(summary.simulated)}${agents} agents · ${layout.title} · ${layout.episodes} episode${layout.episodes === 1 ? '' : 's'} of ${layout.maxSteps} steps per cell`,
      columns,
      layout.alphas,
    );
  });
  if (failed > 0)
    blocks.push(
      `${failed} episode${failed === 1 ? '' : 's'} failed and count no order (see society eval-show ${summary.evalId} --items)`,
    );
  return blocks.join('\n\n');
}

export const present: TablePresenter = (summary, items, context) =>
  sweepText(summary, items, Layout.parse(context));
