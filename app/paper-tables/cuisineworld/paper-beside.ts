/**
 * The sweep's cells beside MindAgent's published GPT-4 figures: per level and τ the fraction of
 * orders completed (completed/total, total counting the orders still open, as the paper's
 * tables do), then the CoS, each as paper · ours [95% CI] · Δ through `compareWithPaper`.
 */
import type { CellCounts } from '../../environments/cos.ts';
import { paperColumn, paperTau } from '../../environments/cuisineworld/paper-tables.ts';
import {
  compareWithPaper,
  comparisonHeadings,
  NOT_IN_PAPER,
  type OurFigure,
  type PaperComparison,
} from '../../eval/paper-values.ts';
import { wilson } from '../../eval/stats.ts';
import { seededRandom } from '../../node-sdk/random.ts';

/** Our counts for one level and agent count: per τ (in the sweep's α order), per episode. */
export interface EpisodeCounts {
  level: string;
  agents: number;
  /** By α index, then episode. */
  episodes: CellCounts[][];
}

const total = (c: CellCounts) => c.completed + c.failed + c.open;

function pooled(episodes: readonly CellCounts[]): { completed: number; total: number } {
  let completed = 0;
  let all = 0;
  for (const e of episodes) {
    completed += e.completed;
    all += total(e);
  }
  return { completed, total: all };
}

/** A τ cell: the pooled fraction, with the Wilson interval over the orders counted. */
function tauFigure(episodes: readonly CellCounts[]): OurFigure | null {
  const { completed, total: n } = pooled(episodes);
  if (n === 0) return null;
  const mean = completed / n;
  return { mean, ci95: wilson(mean, n), n };
}

/**
 * The CoS over the paper's five τ (the mean of their pooled fractions), with a 95% percentile
 * bootstrap interval that resamples the episodes of each τ (seeded, so the same sweep prints
 * the same interval).
 */
function cosFigure(byTau: readonly CellCounts[][]): OurFigure | null {
  const value = (cells: readonly (readonly CellCounts[])[]) => {
    let sum = 0;
    for (const episodes of cells) {
      const p = pooled(episodes);
      if (p.total === 0) return null;
      sum += p.completed / p.total;
    }
    return sum / cells.length;
  };
  const mean = value(byTau);
  if (mean === null) return null;
  const n = Math.min(...byTau.map((e) => e.length));
  const random = seededRandom('cos-bootstrap');
  const draws: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const resampled = byTau.map((episodes) =>
      episodes.map(() => episodes[Math.floor(random() * episodes.length)]!),
    );
    const v = value(resampled);
    if (v !== null) draws.push(v);
  }
  draws.sort((a, b) => a - b);
  const at = (q: number) => draws[Math.min(draws.length - 1, Math.floor(q * draws.length))] ?? mean;
  return { mean, ci95: [at(0.025), at(0.975)], n };
}

const three = (x: number) => x.toFixed(3);

/** One compared cell, for `--json`. */
export interface ComparedCell {
  level: string;
  agents: number;
  cell: string;
  /** The paper's completed/total, when it has the cell. */
  paperCounts: string | null;
  comparison: PaperComparison;
}

/**
 * The comparison block for one agent count: a row per level and τ, then per level the CoS.
 * The paper's figures are its GPT-4 columns; which table each comes from is said per level.
 */
export function paperBeside(
  variant: string,
  alphas: readonly number[],
  columns: readonly EpisodeCounts[],
): { text: string; cells: ComparedCell[] } {
  const cells: ComparedCell[] = [];
  const sources: string[] = [];
  for (const column of columns) {
    const paper = paperColumn(variant, column.level, column.agents);
    if (paper) sources.push(`${column.level}: ${paper.where}`);
    alphas.forEach((alpha, i) => {
      const tau = paperTau(alpha);
      const printed = paper && tau >= 0 ? paper.taus[tau]! : null;
      cells.push({
        level: column.level,
        agents: column.agents,
        cell: tau >= 0 ? `τ${tau + 1}` : `α ${alpha}`,
        paperCounts: printed ? `${printed.completed}/${printed.total}` : null,
        comparison: compareWithPaper(
          printed?.value ?? null,
          tauFigure(column.episodes[i] ?? []),
          three,
        ),
      });
    });
    // The CoS is the paper's only over its five τ: another grid has no CoS row here.
    const all = alphas.length === 5 && alphas.every((a, i) => paperTau(a) === i);
    if (all)
      cells.push({
        level: column.level,
        agents: column.agents,
        cell: 'CoS',
        paperCounts: null,
        comparison: compareWithPaper(paper?.cos ?? null, cosFigure(column.episodes), three),
      });
  }
  const [paperHead, oursHead, diffHead] = comparisonHeadings('').map((h) => h.trim());
  const rows = [
    ['cell', paperHead!, oursHead!, diffHead!],
    ...cells.map((c) => [
      `${c.level} ${c.cell}`,
      c.paperCounts ? `${c.comparison.text.paper} (${c.paperCounts})` : c.comparison.text.paper,
      c.comparison.text.ours,
      c.comparison.text.diff,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) =>
    r
      .map((text, i) => text.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  const agents = columns[0]?.agents;
  const heading = `The paper beside ours (${agents} agents, ${variant}): completed/total per τ, total counting open orders as the paper's tables do`;
  const from =
    sources.length > 0
      ? `Paper figures: ${sources.join('; ')}. Ours: 95% Wilson interval over the orders counted; CoS: 95% bootstrap interval over episodes. ${NOT_IN_PAPER}: a cell the paper has no figure for.`
      : `The paper has no GPT-4 figures for this grid and variant (Tables 4–6: full, 2–4 agents; Table 8: 2 agents on level 3 with demo-steps-2, no-hints or no-feedback; Table 9: 3 or 4 agents on level 3 with demo-agents-2).`;
  return { text: [heading, ...lines, from].join('\n'), cells };
}
