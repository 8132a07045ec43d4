/**
 * ITCMA-S's Table 1 (Zhang et al. 2024) beside ours: the paper's five architectures, its mean
 * ratings on the five 7-point scales, and the table `society itcma eval`, `eval-show` and the
 * studio's Evals view print from an eval's summary (people's ratings per architecture, and the
 * share of agent pairs that chatted).
 */
import {
  compareWithPaper,
  comparisonHeadings,
  type PaperComparison,
} from '../../eval/paper-values.ts';
import { RUBRICS } from '../../eval/rubrics.ts';
import { hasNoScore, variantScoreText } from '../../eval/score-text.ts';
import type { EvalSummary } from '../../eval/types.ts';
import { columns } from '../../terminal/columns.ts';
import { type RanVariant, ranWithLine } from '../ran-with.ts';

/** One of the paper's five architectures: its Table 1 row and the template's switches for it. */
export interface Architecture {
  /** The row's name in the paper's Table 1. */
  paper: string;
  /** The template parameters that make it (docs/itcma.md, "Parameters and the ablation"). */
  set: Readonly<Record<string, string>>;
}

/**
 * The paper's five architectures (Sec. 5.2), in Table 1's order. The base row is ITCMA as it
 * was: memory replayed as it was stored (6 earlier steps), ITCMA's driver (the previous driver
 * plus the mean of P, A and D), no Elim and no LTRHA. Each ablation adds one of ITCMA-S's parts
 * to that base: LTRHA (with the Elim filter, which the paper credits to it: "LTRHA filters and
 * marks actions"), the compressed memory (fewer memories searched: 3 steps), or ITCMA-S's driver
 * (Eqs. 13–15, with the demand term). ITCMA-S has all of them.
 */
export const ARCHITECTURES: Readonly<Record<string, Architecture>> = {
  original: {
    paper: 'ITCMA',
    set: { filter: 'false', ltrha: 'false', driver: 'false', memory: '6' },
  },
  'ltrha-only': {
    paper: 'LTRHA',
    set: { filter: 'true', ltrha: 'true', driver: 'false', memory: '6' },
  },
  'memory-only': {
    paper: 'Compressed Memory',
    set: { filter: 'false', ltrha: 'false', driver: 'false', memory: '3' },
  },
  'driver-only': {
    paper: 'Driver',
    set: { filter: 'false', ltrha: 'false', driver: 'true', memory: '6' },
  },
  full: { paper: 'ITCMA-S', set: { filter: 'true', ltrha: 'true', driver: 'true', memory: '3' } },
};

/**
 * The paper's Table 1 (48 raters, 7-point scales), per architecture: the means on
 * personification, consistency, logicality, exploration and proactiveness, in that order.
 */
export const PAPER_TABLE_1: Readonly<Record<string, readonly number[]>> = {
  original: [2.88, 2.46, 2.5, 2.85, 2.65],
  'ltrha-only': [4.88, 5.02, 4.75, 5.25, 4.6],
  'memory-only': [3.55, 4.21, 4.0, 3.75, 4.02],
  'driver-only': [4.29, 4.31, 4.63, 4.29, 4.06],
  full: [6.29, 6.0, 5.98, 6.02, 6.17],
};

/** The scales of Table 1's columns, in the order `PAPER_TABLE_1` lists them. */
const PAPER_SCALES = [
  'personification',
  'consistency',
  'logicality',
  'exploration',
  'proactiveness',
];

/** One cell of Table 1 compared: an architecture on a scale, the paper's mean beside ours. */
export interface Table1Cell {
  architecture: string;
  /** The row's name in the paper, or null for a variant that is not one of its rows. */
  paperRow: string | null;
  scale: string;
  comparison: PaperComparison;
}

/** Where the paper's figures come from, as the table says it. */
export const PAPER_SOURCE = 'Table 1, 48 raters, 7-point Likert scales';

/**
 * Table 1's cells from an eval's summary: per architecture and scale, the paper's mean and ours
 * (the mean over rated agent trajectories, with its 95% t interval; n = agents × seeds rated).
 */
export function table1Cells(summary: EvalSummary): Table1Cell[] {
  const scales = summary.rubric?.scales.map((s) => s.id) ?? PAPER_SCALES;
  const two = (x: number) => x.toFixed(2);
  return summary.variants.flatMap((v) =>
    scales.map((scale) => {
      const r = v.ratings?.find((x) => x.scale === scale);
      const column = PAPER_SCALES.indexOf(scale);
      const value = column >= 0 ? PAPER_TABLE_1[v.name]?.[column] : undefined;
      const ours =
        r && r.n > 0
          ? { mean: r.mean, ci95: r.ci95 ?? ([r.mean, r.mean] as [number, number]), n: r.n }
          : null;
      return {
        architecture: v.name,
        paperRow: ARCHITECTURES[v.name]?.paper ?? null,
        scale,
        comparison: compareWithPaper(
          value === undefined ? null : { value, where: PAPER_SOURCE },
          ours,
          two,
        ),
      };
    }),
  );
}

/** The paper's Table 1 beside ours, cell by cell, then the share of agent pairs that talked. */
export function formatTable(summary: EvalSummary, ran: readonly RanVariant[]): string {
  const labels = new Map(
    (summary.rubric?.scales ?? RUBRICS.itcma!.scales).map((s) => [s.id, s.label]),
  );
  const cells = table1Cells(summary);
  const rows = [['architecture', 'paper row', 'scale', ...comparisonHeadings('mean'), 'n']];
  for (const c of cells)
    rows.push([
      c.architecture,
      c.paperRow ?? '–',
      labels.get(c.scale) ?? c.scale,
      c.comparison.text.paper,
      // A cell with no rating yet is a run nobody rated, not a missing run.
      c.comparison.ours === null ? 'not rated' : c.comparison.text.ours,
      c.comparison.text.diff,
      String(c.comparison.ours?.n ?? 0),
    ]);
  const talked = [['architecture', 'pairs that talked']];
  for (const v of summary.variants)
    talked.push([
      v.name,
      hasNoScore(v) ? variantScoreText(v) : `${(v.score.mean * 100).toFixed(0)}%`,
    ]);
  const rated = cells.some((c) => c.comparison.ours !== null);
  return [
    `ITCMA-S, ${PAPER_SOURCE}: the paper's mean beside ours (mean over the agent trajectories rated, 95% t interval, n = agents × seeds rated)${summary.simulated ? ' · simulated answers: no model acted' : ''}`,
    ...[ranWithLine(ran)].filter((line) => line !== undefined),
    ...columns(rows),
    '',
    ...columns(talked),
    rated
      ? "Ours and the paper's are different raters and runs; the paper's ± (not printed) is unlabelled."
      : `No ratings yet: give raters the blinded sheet (\`society itcma rating-sheet ${summary.evalId} --out DIR\`, then \`society itcma rating-import\`), or rate one agent with \`society rate RUN --agent AY --scale personification=5 …\`; this command again then prints the table (nothing is run twice).`,
  ].join('\n');
}
