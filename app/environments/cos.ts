/**
 * The collaboration score of MindAgent (Gong et al., Sec. 5): the mean, over the order-frequency
 * settings τ1…τ5, of the fraction of orders completed. The paper divides by completed + failed;
 * its public code also counts the orders still open when the episode ends. Both are computed and
 * labelled.
 */

import { TAU_ALPHAS } from './cuisineworld/levels.ts';

export { TAU_ALPHAS };

/** Orders counted over the episodes of one cell of a sweep (a level, an agent count, a τ). */
export interface CellCounts {
  completed: number;
  failed: number;
  open: number;
}

export interface CosScore {
  /** completed / (completed + failed), averaged over the τ settings: the paper's formula. */
  cos: number | undefined;
  /**
   * completed / (completed + failed + open), averaged over the τ settings: what the paper's
   * tables report (their denominators count open orders) and its code computes.
   */
  cosWithOpen: number | undefined;
  /** The per-τ fractions, formula's denominator; undefined where no order closed. */
  fractions: Array<number | undefined>;
}

/** A fraction, or undefined when there is nothing to divide by (no order to count). */
export function fraction(numerator: number, denominator: number): number | undefined {
  return denominator > 0 ? numerator / denominator : undefined;
}

/** The mean of the defined values; undefined when there are none. */
function mean(values: ReadonlyArray<number | undefined>): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length > 0 ? defined.reduce((a, b) => a + b, 0) / defined.length : undefined;
}

/** The score of one level and agent count from its cells, in τ order. */
export function cosOf(cells: readonly CellCounts[]): CosScore {
  const fractions = cells.map((c) => fraction(c.completed, c.completed + c.failed));
  const withOpen = cells.map((c) => fraction(c.completed, c.completed + c.failed + c.open));
  return { cos: mean(fractions), cosWithOpen: mean(withOpen), fractions };
}

const shown = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));

export interface SweepColumn {
  level: string;
  /** Counts by τ index. */
  cells: CellCounts[];
}

/**
 * The table in the paper's layout (Tables 4–6): one row per τ with completed/total per level
 * (total = completed + failed + open, as the published denominators count), then the score
 * rows, with an average column.
 */
export function formatCosTable(
  title: string,
  columns: readonly SweepColumn[],
  taus: readonly number[],
): string {
  const width = Math.max(9, ...columns.map((c) => c.level.length + 1));
  const pad = (text: string) => text.padStart(width);
  const header = `${''.padEnd(14)}${columns.map((c) => pad(c.level)).join('')}${pad('average')}`;
  const rows: string[] = [title, header];
  // Rows are the paper's τ1…τ5 when the alphas are its five; otherwise they are named by alpha.
  const paperTaus =
    taus.length === TAU_ALPHAS.length && taus.every((alpha, i) => alpha === TAU_ALPHAS[i]);
  taus.forEach((alpha, t) => {
    const cells = columns.map((c) => c.cells[t]!);
    const avg = mean(cells.map((c) => fraction(c.completed, c.completed + c.failed + c.open)));
    rows.push(
      `${(paperTaus ? `τ${t + 1} (α ${alpha})` : `α ${alpha}`).padEnd(14)}${cells
        .map((c) => pad(`${c.completed}/${c.completed + c.failed + c.open}`))
        .join('')}${pad(shown(avg))}`,
    );
  });
  const scores = columns.map((c) => cosOf(c.cells));
  rows.push(
    `${'CoS (+open)'.padEnd(14)}${scores.map((s) => pad(shown(s.cosWithOpen))).join('')}${pad(shown(mean(scores.map((s) => s.cosWithOpen))))}`,
  );
  rows.push(
    `${'CoS'.padEnd(14)}${scores.map((s) => pad(shown(s.cos))).join('')}${pad(shown(mean(scores.map((s) => s.cos))))}`,
  );
  rows.push(
    "CoS (+open): mean of the rows above, completed/(completed+failed+open), as the paper's tables count; CoS: completed/(completed+failed), the paper's formula. – where no order closed.",
  );
  return rows.join('\n');
}
