/** The estimate as a small aligned table with its totals, as `society estimate` prints it. */
import type { RunEstimate } from './estimate.ts';

/**
 * A small aligned table, one row per node and model, and the totals, e.g.
 * `worst case: 17 calls, ~9,800 tokens, $0.0031`. Unpriced models show as "no price".
 */
export function formatEstimate(e: RunEstimate): string {
  const header = ['node', 'model', 'calls', 'prompt', 'completion', 'cost'];
  const rows = e.byNode.map((r) => [
    r.phase ? `${r.node} (${r.phase})` : r.node,
    r.model,
    count(r.calls),
    count(r.promptTokens),
    count(r.completionTokens),
    r.costUsd === undefined ? 'no price' : usd(r.costUsd),
  ]);
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const tokens = e.promptTokens + e.completionTokens;
  const priced = e.byNode.some((r) => r.costUsd !== undefined);
  const cost = [
    ...(priced || e.unpriced.length === 0 ? [usd(e.costUsd)] : []),
    ...(e.unpriced.length > 0 ? [`no price for ${e.unpriced.join(', ')}`] : []),
  ].join(' + ');
  const total = `worst case: ${count(e.calls)} ${e.calls === 1 ? 'call' : 'calls'}, ~${count(roughly(tokens))} tokens, ${cost}`;
  return [...lines, total].join('\n');
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** Rounded to hundreds from 1,000 up and to tens below: the figures are estimates. */
function roughly(n: number): number {
  const step = n >= 1000 ? 100 : 10;
  return Math.round(n / step) * step;
}

/** Dollars and cents from $1 up, two significant digits below: `$0.0031`, `$0.000026`. */
function usd(n: number): string {
  if (n === 0) return '$0';
  if (n >= 1) return `$${n.toFixed(2)}`;
  if (n < 0.000001) return '<$0.000001';
  return `$${Number(n.toPrecision(2)).toString()}`;
}
