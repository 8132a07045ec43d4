/** Vector arithmetic for embeddings. */

/** The mean of equal-length rows (mean pooling of token or patch vectors); one row as it is. */
export function meanPool(rows: readonly (readonly number[])[]): number[] {
  if (rows.length === 1) return [...rows[0]!];
  const width = rows[0]?.length ?? 0;
  const mean = new Array<number>(width).fill(0);
  for (const row of rows) {
    for (let i = 0; i < width; i++) mean[i] = (mean[i] ?? 0) + (row[i] ?? 0) / rows.length;
  }
  return mean;
}
