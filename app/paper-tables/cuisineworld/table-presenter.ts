/**
 * MindAgent's CoS tables for a sweep, from its items: one table per agent count, a column per
 * level, a row per order frequency α. `society cuisineworld sweep` prints them, and `society
 * eval-show` and `eval-export` print them again from the layout it stores with the eval.
 */
import { z } from 'zod';
import { type CellCounts, formatCosTable, type SweepColumn } from '../../environments/cos.ts';
import type { TablePresenter } from '../../eval/table-presenters.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { simulatedPrefix } from '../../schema/simulated.ts';
import { type EpisodeCounts, paperBeside } from './paper-beside.ts';

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
  /** The ablation's name (`full`, `no-feedback`…): it picks the paper's figures to compare. */
  ablation: z.string().default('full'),
  /** Whose runner semantics the episodes followed. */
  runner: z.enum(['ours', 'paper']).default('ours'),
});

/** What a sweep stores with its eval to print its tables again. */
export type SweepLayout = z.infer<typeof Layout>;

/** Orders completed, failed and open per level × agents × α, summed over episodes. */
export function sweepTables(items: readonly EvalItemRecord[], layout: SweepLayout) {
  const results: Record<string, Record<number, CellCounts[]>> = {};
  const perEpisode: EpisodeCounts[] = [];
  const byItem = new Map(items.map((i) => [i.item, i]));
  let failed = 0;
  for (const agents of layout.agentCounts)
    for (const level of layout.levels) {
      const episodesByAlpha: CellCounts[][] = [];
      const row = layout.alphas.map((alpha) => {
        const counts: CellCounts = { completed: 0, failed: 0, open: 0 };
        const episodes: CellCounts[] = [];
        layout.cells.forEach((c, item) => {
          if (c.level !== level || c.agents !== agents || c.alpha !== alpha) return;
          const record = byItem.get(item);
          const m = record?.prediction as Partial<CellCounts> & { simulated?: boolean };
          if (record?.status !== 'scored' || !m) {
            failed++;
            return;
          }
          const one = { completed: m.completed ?? 0, failed: m.failed ?? 0, open: m.open ?? 0 };
          episodes.push(one);
          counts.completed += one.completed;
          counts.failed += one.failed;
          counts.open += one.open;
        });
        episodesByAlpha.push(episodes);
        return counts;
      });
      results[level] ??= {};
      results[level]![agents] = row;
      perEpisode.push({ level, agents, episodes: episodesByAlpha });
    }
  return { results, perEpisode, failed };
}

/** The paper's figures beside ours, per agent count, for `--json`. */
export function sweepPaperCells(items: readonly EvalItemRecord[], layout: SweepLayout) {
  const { perEpisode } = sweepTables(items, layout);
  return layout.agentCounts.flatMap(
    (agents) =>
      paperBeside(
        layout.ablation,
        layout.alphas,
        perEpisode.filter((c) => c.agents === agents),
      ).cells,
  );
}

/**
 * The tables as text, one per agent count with the paper's figures beside ours under it, the
 * runner the episodes followed, and a line for failed episodes.
 */
export function sweepText(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  layout: SweepLayout,
): string {
  const { results, perEpisode, failed } = sweepTables(items, layout);
  const simulated = simulatedPrefix(summary.simulated);
  const blocks = layout.agentCounts.map((agents) => {
    const columns: SweepColumn[] = layout.levels.map((level) => ({
      level,
      cells: results[level]![agents]!,
    }));
    const table = formatCosTable(
      `${simulated}${agents} agents · ${layout.title} · ${layout.episodes} episode${layout.episodes === 1 ? '' : 's'} of ${layout.maxSteps} steps per cell`,
      columns,
      layout.alphas,
    );
    const beside = paperBeside(
      layout.ablation,
      layout.alphas,
      perEpisode.filter((c) => c.agents === agents),
    );
    // The paper's cells are 3 episodes of 60 steps: other lengths are compared, and said.
    const unlike =
      layout.episodes !== 3 || layout.maxSteps !== 60
        ? `\nThe paper ran 3 episodes of 60 steps per cell; this sweep ran ${layout.episodes} of ${layout.maxSteps}, so its totals are not the paper's scale.`
        : '';
    return `${table}\n\n${simulated}${beside.text}${unlike}`;
  });
  blocks.push(
    layout.runner === 'paper'
      ? "runner: paper (MindAgent's: a turn with no readable command does not move the game but uses up a turn; at most one expired order counts per step)"
      : "runner: ours (every turn plays a game step; every expired order counts; --runner paper for MindAgent's)",
  );
  if (failed > 0)
    blocks.push(
      `${failed} episode${failed === 1 ? '' : 's'} failed and count no order (see society eval-show ${summary.evalId} --items)`,
    );
  return blocks.join('\n\n');
}

export const present: TablePresenter = (summary, items, context) =>
  sweepText(summary, items, Layout.parse(context));
