/** Text tables for the terminal. */

/**
 * The rows as lines of columns two spaces apart, each column as wide as its widest cell;
 * columns in `right` are aligned right (numbers), the others left. Trailing spaces are dropped.
 */
export function columns(
  rows: readonly (readonly string[])[],
  right: ReadonlySet<number> = new Set(),
): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  return rows.map((r) =>
    r
      .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}
