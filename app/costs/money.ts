/**
 * Dollars as estimates print them, in the terminal and in the studio alike: cents from $1 up,
 * two significant digits below (`$0.013`, `$0.0019`). Pure, so the page imports it too.
 */
export function usd(n: number): string {
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n < 0.000001) return '<$0.000001';
  return `$${Number(n.toPrecision(2)).toString()}`;
}
