/**
 * `--structure` and `--set rounds=…` of `society nlsom eval`: which of NLSOM's table rows
 * (app/paper-tables/nlsom/table.ts) to run.
 */
import { STRUCTURES, type StructureName } from '../../../paper-tables/nlsom/table.ts';
import { UsageError } from '../../errors.ts';

/** What `--structure table4` stands for. */
const TABLE4: StructureName[] = ['monarchy', 'monarchy+rtk', 'monarchy+rtk+rtc', 'democracy'];

/** `--structure monarchy,democracy` or `table4` → the rows, each named once. */
export function parseStructures(text: string | undefined): StructureName[] {
  const named = (text ?? 'monarchy')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .flatMap((s) => (s === 'table4' ? TABLE4 : [s]));
  for (const s of named)
    if (!Object.hasOwn(STRUCTURES, s))
      throw new UsageError(
        `--structure ${s}: use monarchy, monarchy+rtk, monarchy+rtk+rtc, democracy, a list of them, or table4 (all four)`,
      );
  if (named.length === 0 || new Set(named).size !== named.length)
    throw new UsageError('--structure: name each structure once (or table4 for all four)');
  return named as StructureName[];
}

/**
 * `--set rounds=1,3,5,10` → [1, 3, 5, 10] (Table 1's rows) and the other `--set`s; a single
 * value stays an ordinary `--set`, so the rows are then structures alone.
 */
export function splitRounds(sets: readonly string[]): { rounds: number[]; rest: string[] } {
  const rest: string[] = [];
  let rounds: number[] = [];
  for (const s of sets) {
    const match = /^\s*rounds\s*=\s*(.+)$/.exec(s);
    if (!match || !match[1]!.includes(',')) {
      rest.push(s);
      continue;
    }
    rounds = match[1]!.split(',').map((r) => {
      const n = Number(r.trim());
      if (!Number.isInteger(n) || n < 1)
        throw new UsageError(`--set ${s.trim()}: rounds is a list of whole numbers, e.g. 1,3,5,10`);
      return n;
    });
    if (new Set(rounds).size !== rounds.length)
      throw new UsageError(`--set ${s.trim()}: name each number of rounds once`);
  }
  return { rounds, rest };
}
