/**
 * NLSOM's A-OKVQA tables as `society nlsom eval` rows: Table 4's four structures (monarchy, then
 * the members' rights to know, change and execute added one by one) and Table 1's rounds, each
 * row a variant of the VQA template set through its parameters, printed beside the paper's figure.
 */
import { mcnemar, type PairedTest } from '../../eval/paired.ts';
import { compareWithPaper, type PaperFigure } from '../../eval/paper-values.ts';

/** Table 4's rows, in the paper's order, with the template parameters each sets. */
export const STRUCTURES = {
  monarchy: { structure: 'monarchy', rtk: false, rtc: false },
  'monarchy+rtk': { structure: 'monarchy', rtk: true, rtc: false },
  'monarchy+rtk+rtc': { structure: 'monarchy', rtk: true, rtc: true },
  democracy: { structure: 'democracy', rtk: true, rtc: true },
} as const;
export type StructureName = keyof typeof STRUCTURES;

/** Table 4 (5 rounds, InstructGPT with BLIP-2, OFA and mPLUG): accuracy in %. */
const PAPER_TABLE4: Record<StructureName, number> = {
  monarchy: 66.2,
  'monarchy+rtk': 64.23,
  'monarchy+rtk+rtc': 63.15,
  democracy: 63.41,
};

/** Table 1, the (G,B,O,M) row: the monarchy's accuracy in % by rounds. */
const PAPER_TABLE1: Record<number, number> = { 1: 55.78, 3: 64.15, 5: 66.2, 10: 67.42 };

/** One row: its variant name and the `--set`s it adds. */
export interface TableRow {
  name: string;
  structure: StructureName;
  rounds?: number;
  set: string[];
}

/** Structures × rounds, in that order; a row's name says both when rounds vary (`monarchy@5`). */
export function tableRows(structures: readonly StructureName[], rounds: readonly number[]) {
  const perRounds = rounds.length ? rounds : [undefined];
  return structures.flatMap((structure) =>
    perRounds.map((r): TableRow => {
      const p = STRUCTURES[structure];
      return {
        name: r === undefined ? structure : `${structure}@${r}`,
        structure,
        ...(r === undefined ? {} : { rounds: r }),
        // Only the rights a row adds are set (a democracy holds all three), so a document
        // without rights (the expert members' template) runs the plain monarchy too.
        set: [
          `structure=${p.structure}`,
          ...(p.structure === 'monarchy' && p.rtk ? ['rtk=true'] : []),
          ...(p.structure === 'monarchy' && p.rtc ? ['rtc=true'] : []),
          ...(r === undefined ? [] : [`rounds=${r}`]),
        ],
      };
    }),
  );
}

/**
 * The paper's figure for a row run at `rounds` with `members` vision members, as a fraction:
 * Table 4 for a structure at 5 rounds, Table 1's (G,B,O,M) row for the monarchy at 1, 3, 5 or
 * 10 rounds; none for anything else (other rounds, or not three members).
 */
export function paperFigure(
  structure: StructureName,
  rounds: number,
  members: number,
): PaperFigure | undefined {
  if (members !== 3) return undefined;
  if (structure === 'monarchy' && PAPER_TABLE1[rounds] !== undefined)
    return {
      value: PAPER_TABLE1[rounds]! / 100,
      where:
        rounds === 5
          ? 'Tables 1 and 4, 5 rounds'
          : `Table 1 (G,B,O,M), ${rounds} round${rounds === 1 ? '' : 's'}`,
    };
  if (rounds === 5) return { value: PAPER_TABLE4[structure] / 100, where: 'Table 4, 5 rounds' };
  return undefined;
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
const pctDiff = (x: number) =>
  `${x > 0 ? '+' : x < 0 ? '−' : '±'}${(Math.abs(x) * 100).toFixed(2)} pts`;

/** A row's accuracy beside the paper's: the texts and numbers of `compareWithPaper`. */
export function compareRow(
  paper: PaperFigure | undefined,
  ours: { mean: number; ci95: [number, number]; n: number } | null,
) {
  return compareWithPaper(paper ?? null, ours, pct, pctDiff);
}

/**
 * Each row against the table's first row over the same questions: McNemar's test on which
 * questions each got right (a failed run counts as wrong), as the paper's rows differ by one
 * setting from the monarchy. Undefined for the first row, or when the rows share no question.
 */
export function againstFirst(
  rows: readonly string[],
  items: readonly { item: number; variant: string; status: string; score?: number | null }[],
): (PairedTest | undefined)[] {
  const scores = (variant: string) => {
    const byItem = new Map<number, number>();
    for (const i of items)
      if (i.variant === variant && i.status !== 'running')
        byItem.set(i.item, i.status === 'failed' ? 0 : (i.score ?? 0));
    return byItem;
  };
  const first = rows[0] === undefined ? new Map<number, number>() : scores(rows[0]);
  return rows.map((row, index) => {
    if (index === 0) return undefined;
    const own = scores(row);
    const shared = [...first.keys()].filter((k) => own.has(k)).sort((a, b) => a - b);
    if (shared.length === 0) return undefined;
    return mcnemar(
      shared.map((k) => first.get(k)!),
      shared.map((k) => own.get(k)!),
    );
  });
}

/** `+12.5 pts, p=0.031 *` (the star: significant at 0.05), or `–` for the first row. */
export function pairedText(test: PairedTest | undefined): string {
  if (!test) return '–';
  const d = test.meanDiff * 100;
  const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
  const p = test.p < 0.001 ? 'p<0.001' : `p=${test.p.toFixed(3)}`;
  return `${sign}${Math.abs(d).toFixed(1)} pts, ${p}${test.significant ? ' *' : ''}`;
}
