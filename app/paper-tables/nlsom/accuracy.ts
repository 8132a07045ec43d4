/**
 * NLSOM's A-OKVQA accuracy table (Tables 1 and 4) from an eval's items: per structure (and
 * rounds), the paper's figure beside ours with its interval, the photo split and McNemar's test
 * against the first row, as `society nlsom eval`, `eval-show` and the studio's Evals view print it.
 */
import { meanWithInterval } from '../../eval/stats.ts';
import type { EvalItemRecord, EvalSummary } from '../../eval/types.ts';
import { columns } from '../../terminal/columns.ts';
import { type RanVariant, ranWithLine } from '../ran-with.ts';
import {
  againstFirst,
  compareRow,
  pairedText,
  paperFigure,
  type StructureName,
  type TableRow,
} from './table.ts';

/** Accuracy per structure: all questions, those seen with their photo, those without. */
export function accuracyBySight(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  missing: ReadonlySet<number>,
) {
  return summary.variants.map((v) => {
    const own = items.filter((i) => i.variant === v.name && i.status !== 'running');
    // A failed run is a question not answered right: it counts as wrong (0), and is counted.
    const part = (keep: (i: EvalItemRecord) => boolean) => {
      const kept = own.filter(keep);
      const failed = kept.filter((i) => i.status === 'failed').length;
      const scores = kept.map((i) => (i.status === 'failed' ? 0 : (i.score ?? 0)));
      return { n: scores.length, failed, ...meanWithInterval(scores) };
    };
    return {
      structure: v.name,
      all: part(() => true),
      withPhoto: part((i) => !missing.has(i.item)),
      withoutPhoto: part((i) => missing.has(i.item)),
    };
  });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const cell = (p: { n: number; failed: number; mean: number; ci95: [number, number] }) =>
  p.n === 0
    ? 'no question'
    : p.failed >= p.n
      ? `failed (all ${p.n})`
      : `${pct(p.mean)} [${pct(p.ci95[0])}, ${pct(p.ci95[1])}] n=${p.n}${p.failed ? `, ${p.failed} failed` : ''}`;

/** A part of the accuracy as `compareWithPaper` takes it; none when no question ran. */
const ours = (p: { n: number; mean: number; ci95: [number, number] }) =>
  p.n === 0 ? null : { mean: p.mean, ci95: p.ci95, n: p.n };

/** The paper's figure for each row, from the rounds and members its runs used. */
export function paperColumn(table: readonly TableRow[], ran: readonly RanVariant[]) {
  return table.map((row, i) => {
    const params = ran[i]?.params ?? {};
    const rounds = typeof params.rounds === 'number' ? params.rounds : row.rounds;
    // The expert members' template has the paper's three members, fixed; a document that does
    // not say how many members it has is compared as the paper's three too.
    const members = Array.isArray(params.vlms) ? params.vlms.length : 3;
    const figure =
      rounds === undefined
        ? undefined
        : paperFigure(row.structure as StructureName, rounds, members);
    return { figure };
  });
}

/**
 * `--json`'s accuracy per row: the photo split, the paper's figure and the difference, and the
 * paired test against the first row.
 */
export function comparedAccuracy(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  missing: ReadonlySet<number>,
  paper: ReadonlyArray<{ figure: ReturnType<typeof paperFigure> }>,
) {
  const accuracy = accuracyBySight(summary, items, missing);
  const tests = againstFirst(
    accuracy.map((a) => a.structure),
    items,
  );
  return accuracy.map((a, i) => {
    const figure = paper[i]?.figure;
    const c = compareRow(figure, ours(a.all));
    const test = tests[i];
    return {
      ...a,
      paper: figure ? { value: figure.value, where: figure.where } : null,
      diff: c.diff,
      paperInInterval: c.paperInInterval,
      ...(test ? { againstFirst: { row: accuracy[0]!.structure, ...test } } : {}),
    };
  });
}

/**
 * NLSOM's Table 1 and Table 4 in one table: a row per structure (and per rounds when several),
 * the paper's accuracy beside ours with its interval and the difference, the photo split, and
 * where the paper's figure comes from; a row the paper has no figure for says `not in paper`.
 */
export function formatAccuracy(
  summary: EvalSummary,
  items: readonly EvalItemRecord[],
  missing: ReadonlySet<number>,
  imageNote: string,
  ran: readonly RanVariant[],
  paper: ReadonlyArray<{ figure: ReturnType<typeof paperFigure> }>,
): string {
  const rows = [
    [
      'structure',
      'paper',
      'ours (95% CI)',
      'Δ',
      'with photo',
      'without photo (example picture)',
      "paper's figure",
    ],
  ];
  const accuracy = accuracyBySight(summary, items, missing);
  const paired = againstFirst(
    accuracy.map((a) => a.structure),
    items,
  );
  const several = accuracy.length > 1;
  if (several) rows[0]!.push(`vs ${accuracy[0]!.structure} (McNemar)`);
  accuracy.forEach((a, i) => {
    const figure = paper[i]?.figure;
    const c = compareRow(figure, ours(a.all));
    const ourText =
      a.all.n === 0
        ? 'no question'
        : a.all.failed >= a.all.n
          ? `failed (all ${a.all.n})`
          : `${c.text.ours} n=${a.all.n}${a.all.failed ? `, ${a.all.failed} failed` : ''}`;
    rows.push([
      a.structure,
      c.text.paper,
      ourText,
      c.text.diff,
      cell(a.withPhoto),
      cell(a.withoutPhoto),
      figure?.where ?? '–',
      ...(several ? [pairedText(paired[i])] : []),
    ]);
  });
  const settings = ranWithLine(ran);
  const failed = accuracy.reduce((n, a) => n + a.all.failed, 0);
  const runs = accuracy.reduce((n, a) => n + a.all.n, 0);
  return [
    `A-OKVQA multiple-choice accuracy (NLSOM Tables 1 and 4)${summary.simulated ? ' · simulated answers: a guess among the options, no model' : ''}`,
    ...(settings ? [settings] : []),
    ...columns(rows),
    ...(failed
      ? [
          `${failed} of ${runs} runs failed, counted as wrong (society eval-show ${summary.evalId} --items says why)`,
        ]
      : []),
    ...(several
      ? [
          `vs ${accuracy[0]!.structure}: each row's accuracy minus the first row's over the same questions, McNemar's test; * marks p < 0.05`,
        ]
      : []),
    imageNote,
    // Where the paper's figures come from: its own models, so a difference is not a bug.
    "the paper's figures: InstructGPT leading BLIP-2, OFA and mPLUG on A-OKVQA val (1,145 questions); Table 1 by rounds (monarchy), Table 4 by structure at 5 rounds",
  ].join('\n');
}
