/** Text tables for the terminal. */
import { terminalText } from './terminal-text.ts';

/**
 * The rows as lines of columns two spaces apart, each column as wide as its widest cell;
 * columns in `right` are aligned right (numbers), the others left. Trailing spaces are dropped;
 * control sequences in a cell are removed (terminal-text.ts).
 */
export function columns(
  rows: readonly (readonly string[])[],
  right: ReadonlySet<number> = new Set(),
): string[] {
  // Cells quote labels, answers and errors from datasets, documents and models.
  rows = rows.map((r) => r.map(terminalText));
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  return rows.map((r) =>
    r
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}
