/** The estimate as a small aligned table with its totals, as `society estimate` prints it. */
import type { EstimateTotals, NodeEstimate, RunEstimate } from './estimate.ts';
import { usd } from './money.ts';

/**
 * A small aligned table, one row per node and model, and the totals, e.g.
 * `worst case: 17 calls, ~9,800 tokens, $0.0031`. Unpriced models show as "no price". Every
 * number column says whose figure it is: given the same run estimated as likely
 * (`LIKELY_ANSWER_SHARE`), each row has its likely figures (its first attempts: a repair or
 * retry shows `-`) beside its worst case, under a header naming each group, and the likely
 * totals come first: `likely: 17 calls, ~3,900 tokens, $0.0014`.
 */
export function formatEstimate(e: RunEstimate, likely?: RunEstimate): string {
  const figures = ['calls', 'prompt', 'completion', 'cost'];
  const header = ['node', 'model', ...figures, ...(likely ? figures : [])];
  const likelyRow = new Map(likely?.byNode.map((r) => [rowKey(r), r]));
  const rows = e.byNode.map((r) => {
    // Behind a branch: made only when the branch is taken, so "at most" these.
    const notes = [r.phase, r.atMost ? `at most, ${percent(r.atMost.odds)} likely` : undefined]
      .filter(Boolean)
      .join(', ');
    const cells = [notes ? `${r.node} (${notes})` : r.node, r.model];
    if (likely) {
      const l = r.retry ? undefined : likelyRow.get(rowKey(r));
      cells.push(...(l ? numbers(l) : ['-', '-', '-', '-']));
    }
    return [...cells, ...numbers(r)];
  });
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const align = (row: string[]) =>
    row
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  // A line above the figures naming their group, so no number stands unlabelled.
  const span = (from: number, to: number) =>
    widths.slice(from, to).reduce((a, w) => a + w, 0) + 2 * (to - from - 1);
  const lead = span(0, 2) + 2;
  const groups = likely
    ? `${' '.repeat(lead)}${'likely'.padEnd(span(2, 6) + 2)}worst case`
    : `${' '.repeat(lead)}worst case`;
  const lines = [groups.trimEnd(), ...table.map(align)];
  const priced = e.byNode.some((r) => r.costUsd !== undefined);
  const cost = (t: EstimateTotals) =>
    [
      ...(priced || e.unpriced.length === 0 ? [usd(t.costUsd)] : []),
      ...(e.unpriced.length > 0 ? [`no price for ${e.unpriced.join(', ')}`] : []),
    ].join(' + ');
  const line = (t: EstimateTotals) => {
    const experts = t.expertCalls > 0 ? ` (${count(t.expertCalls)} to experts)` : '';
    return `${count(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}${experts}, ~${count(roughly(t.promptTokens + t.completionTokens))} tokens, ${cost(t)}`;
  };
  return [
    ...lines,
    ...(likely ? [`likely: ${line(likely.firstAttempts)}`] : []),
    `worst case: ${line(e)}`,
  ].join('\n');
}

/** A row's identity across two estimates of the same plan. */
function rowKey(r: NodeEstimate): string {
  return [r.node, r.model, r.phase ?? '', r.retry ? 'r' : '', r.expert ? 'e' : ''].join('\u0000');
}

/** A row's calls, prompt and completion tokens and cost, as the table shows them. */
function numbers(r: NodeEstimate): string[] {
  return [
    count(r.calls),
    r.expert ? '-' : count(r.promptTokens),
    r.expert ? '-' : count(r.completionTokens),
    r.expert ? 'expert' : r.costUsd === undefined ? 'no price' : usd(r.costUsd),
  ];
}

function count(n: number): string {
  // A likely count behind a branch is a share of a call: one decimal.
  return n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

function percent(odds: number): string {
  return `${Math.round(odds * 100)}%`;
}

/** Rounded to hundreds from 1,000 up and to tens below: the figures are estimates. */
function roughly(n: number): number {
  const step = n >= 1000 ? 100 : 10;
  return Math.round(n / step) * step;
}
