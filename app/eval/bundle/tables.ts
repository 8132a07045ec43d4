/**
 * An eval's table as files a paper or a spreadsheet takes: CSV, Markdown and LaTeX. The same
 * columns and figures as the terminal's table (`society eval-show`), from the same summary.
 */
import { basename } from 'node:path';
import { variantIntervalText, variantScoreText } from '../score-text.ts';
import type { EvalSummary } from '../types.ts';

const HEAD = [
  'variant',
  'n',
  'failed',
  'score',
  '95% CI',
  'vs first',
  'p (paired)',
  'cost (USD)',
  'USD per solved',
  'tokens',
  'p50 (s)',
  'p95 (s)',
];

/** The table's rows, header first, every figure as text. */
export function tableRows(summary: EvalSummary): string[][] {
  return [
    HEAD,
    ...summary.variants.map((v, i) => [
      v.name,
      String(v.n),
      String(v.failed),
      variantScoreText(v),
      variantIntervalText(v),
      // The paired test against the first variant (the baseline row has none).
      v.vsBaseline ? signed(v.vsBaseline.meanDiff) : i === 0 ? 'baseline' : '–',
      v.vsBaseline
        ? `${v.vsBaseline.p.toFixed(3)} (${v.vsBaseline.test}${v.vsBaseline.significant ? ', significant' : ''})`
        : '–',
      v.costUsd.toFixed(4),
      v.costPerSolvedUsd === undefined ? '–' : v.costPerSolvedUsd.toFixed(6),
      String(v.tokens),
      (v.latencyMs.p50 / 1000).toFixed(2),
      (v.latencyMs.p95 / 1000).toFixed(2),
    ]),
  ];
}

const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(3)}`;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: readonly (readonly string[])[]): string {
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** A Markdown table cell: pipes escaped, line breaks as spaces. */
const mdCell = (text: string) =>
  text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');

export function toMarkdown(rows: readonly (readonly string[])[], caption?: string): string {
  const [head = [], ...body] = rows;
  const line = (r: readonly string[]) => `| ${r.map(mdCell).join(' | ')} |`;
  return [
    ...(caption ? [`${mdCell(caption)}`, ''] : []),
    line(head),
    `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...body.map(line),
    '',
  ].join('\n');
}

const LATEX_SPECIALS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '#': '\\#',
  '%': '\\%',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

/** Text made safe inside a LaTeX document: its ten special characters written as text. */
export function escapeLatex(text: string): string {
  return text.replace(/[\\{}$&#%_^~]/g, (c) => LATEX_SPECIALS[c]!).replace(/\s*\n\s*/g, ' ');
}

/** A `tabular` (booktabs rules) in a `table` float, its caption escaped like every cell. */
export function toLatex(rows: readonly (readonly string[])[], caption: string): string {
  const [head = [], ...body] = rows;
  const line = (r: readonly string[]) => `${r.map(escapeLatex).join(' & ')} \\\\`;
  return [
    '% Needs \\usepackage{booktabs}.',
    '\\begin{table}[t]',
    '\\centering',
    `\\begin{tabular}{l${'r'.repeat(Math.max(0, head.length - 1))}}`,
    '\\toprule',
    line(head),
    '\\midrule',
    ...body.map(line),
    '\\bottomrule',
    '\\end{tabular}',
    `\\caption{${escapeLatex(caption)}}`,
    '\\end{table}',
    '',
  ].join('\n');
}

/** What the table shows, for captions: the eval, its data, its scorer and whether it was simulated. */
export function tableCaption(summary: EvalSummary): string {
  return `${summary.name} over ${basename(summary.data)}: ${summary.items} items, scorer ${summary.scorer}, mean score with its 95% interval per variant (eval ${summary.evalId})${summary.simulated ? '. Simulated answers: these scores say nothing about any model' : ''}.`;
}
