/**
 * The collaboration score of MindAgent (Gong et al., Sec. 5): the mean, over the order-frequency
 * settings τ1…τ5, of the fraction of orders completed. The paper divides by completed + failed;
 * its public code also counts the orders still open when the episode ends. Both are computed and
 * labelled.
 */

/** The paper's five settings: alpha for τ1 (the busiest kitchen) to τ5. */
export const TAU_ALPHAS = [1.0, 1.5, 2.0, 2.5, 3.0] as const;

/** Orders counted over the episodes of one cell of a sweep (a level, an agent count, a τ). */
export interface CellCounts {
  completed: number;
  failed: number;
  open: number;
}

export interface CosScore {
  /** completed / (completed + failed), averaged over the τ settings. */
  cos: number;
  /** completed / (completed + failed + open), averaged over the τ settings. */
  cosWithOpen: number;
  /** The per-τ fractions, paper's denominator. */
  fractions: number[];
}

function fraction(numerator: number, denominator: number): number {
  return denominator > 0 ? numerator / denominator : 0;
}

/** The score of one level and agent count from its cells, in τ order. */
export function cosOf(cells: readonly CellCounts[]): CosScore {
  const fractions = cells.map((c) => fraction(c.completed, c.completed + c.failed));
  const withOpen = cells.map((c) => fraction(c.completed, c.completed + c.failed + c.open));
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return { cos: mean(fractions), cosWithOpen: mean(withOpen), fractions };
}

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
  taus.forEach((alpha, t) => {
    const cells = columns.map((c) => c.cells[t]!);
    const avg =
      cells.reduce((sum, c) => sum + fraction(c.completed, c.completed + c.failed + c.open), 0) /
      Math.max(1, cells.length);
    rows.push(
      `${`τ${t + 1} (α ${alpha})`.padEnd(14)}${cells
        .map((c) => pad(`${c.completed}/${c.completed + c.failed + c.open}`))
        .join('')}${pad(avg.toFixed(3))}`,
    );
  });
  const scores = columns.map((c) => cosOf(c.cells));
  const avg = (pick: (s: CosScore) => number) =>
    scores.reduce((sum, s) => sum + pick(s), 0) / Math.max(1, scores.length);
  rows.push(
    `${'CoS'.padEnd(14)}${scores.map((s) => pad(s.cos.toFixed(3))).join('')}${pad(avg((s) => s.cos).toFixed(3))}`,
  );
  rows.push(
    `${'CoS (+open)'.padEnd(14)}${scores.map((s) => pad(s.cosWithOpen.toFixed(3))).join('')}${pad(avg((s) => s.cosWithOpen).toFixed(3))}`,
  );
  rows.push(
    'CoS: mean over τ of completed/(completed+failed), as the paper defines it; CoS (+open) also counts the orders open at the end, as its code does.',
  );
  return rows.join('\n');
}
