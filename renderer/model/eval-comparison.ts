/**
 * How the Evals view words a variant against the eval's first (its paired test) and its cost per
 * solved item, from the API's eval table: the same figures and notation `society eval-show`
 * prints (app/eval/score-text.ts), with the details a terminal lists under its table in a tooltip.
 * Pure, so it is tested without a page.
 */
import type { ApiEvalSummary } from '../../app/api/contract.ts';
import { pValueText, signedText } from '../../app/eval/score-text.ts';

export { costPerSolvedText } from '../../app/eval/score-text.ts';

type Variant = ApiEvalSummary['variants'][number];

/** One "vs first" cell: the difference, p, whether it is significant, and the tooltip. */
export interface VsFirstCell {
  /** "baseline" on the first variant, "–" before any pair, else the signed mean difference. */
  text: string;
  /** `p 0.031`, or empty when there is no test. */
  p: string;
  significant: boolean;
  title: string;
}

/** The "vs first" cell of `v`, the `index`th variant of its eval. */
export function vsFirstCell(v: Variant, index: number): VsFirstCell {
  if (index === 0)
    return {
      text: 'baseline',
      p: '',
      significant: false,
      title: 'The other variants are compared with this one, item by item and repeat by repeat',
    };
  const c = v.vsBaseline;
  if (!c)
    return {
      text: '–',
      p: '',
      significant: false,
      title: 'No item has run under both variants yet: nothing to compare',
    };
  const interval = `[${signedText(c.ci95[0])}, ${signedText(c.ci95[1])}]`;
  return {
    text: signedText(c.meanDiff),
    p: `p ${pValueText(c.p)}`,
    significant: c.significant,
    title: [
      `${c.test} test against ${c.baseline}, paired by item and repeat: ${c.n} pair${c.n === 1 ? '' : 's'}`,
      ...(c.unmatched
        ? [`${c.unmatched} run${c.unmatched === 1 ? '' : 's'} without a partner left out`]
        : []),
      `mean difference ${signedText(c.meanDiff)}, 95% interval ${interval}`,
      `${c.p < 0.001 ? 'p' : 'p ='} ${pValueText(c.p)}: ${c.significant ? 'significant' : 'not significant'} at 0.05`,
      'a failed run counts 0',
    ].join('\n'),
  };
}

/** The tooltip of a "$/solved" cell: what was solved, or why there is no figure. */
export function costPerSolvedTitle(v: Variant): string {
  if (v.solved === undefined) return "This scorer's scores define no solved item";
  if (v.solved === 0) return 'No run solved its item';
  return `${v.solved} run${v.solved === 1 ? '' : 's'} solved ${v.solved === 1 ? 'its item' : 'their items'}; the cost of all ${v.n} divided by ${v.solved}`;
}
