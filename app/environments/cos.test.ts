import { describe, expect, it } from 'vitest';
import { cosOf, formatCosTable, TAU_ALPHAS } from './cos.ts';

/** Table 4 of the paper (GPT-4, 2 agents): completed/total per τ for three levels. */
const TABLE_4: Record<string, Array<[number, number]>> = {
  level_0: [
    [18, 54],
    [18, 31],
    [18, 25],
    [18, 18],
    [18, 18],
  ],
  level_3: [
    [10, 26],
    [10, 17],
    [11, 13],
    [12, 12],
    [11, 11],
  ],
  level_12: [
    [10, 36],
    [8, 21],
    [8, 17],
    [11, 12],
    [9, 12],
  ],
};

describe('the collaboration score', () => {
  it("reproduces the paper's scores from its own counts", () => {
    // The published fractions are completed/total; failed here stands for everything not done.
    const score = (level: string) =>
      cosOf(
        TABLE_4[level]!.map(([completed, total]) => ({
          completed,
          failed: total - completed,
          open: 0,
        })),
      );
    expect(score('level_0').cos?.toFixed(3)).toBe('0.727');
    expect(score('level_3').cos?.toFixed(3)).toBe('0.764');
    expect(score('level_12').cos?.toFixed(3)).toBe('0.559');
    // The same counts, read as the tables count them (everything not done was open).
    const asOpen = cosOf(
      TABLE_4.level_3!.map(([completed, total]) => ({
        completed,
        failed: 0,
        open: total - completed,
      })),
    );
    expect(asOpen.cosWithOpen?.toFixed(3)).toBe('0.764');
  });

  it('labels both denominators: with and without the orders still open', () => {
    const s = cosOf([
      { completed: 3, failed: 1, open: 4 },
      { completed: 2, failed: 0, open: 0 },
    ]);
    expect(s.fractions).toEqual([0.75, 1]);
    expect(s.cos).toBeCloseTo(0.875);
    expect(s.cosWithOpen).toBeCloseTo((3 / 8 + 1) / 2);
  });

  it('prints the grid as the paper lays it out', () => {
    const table = formatCosTable(
      '2 agents',
      [
        { level: 'level_0', cells: TAU_ALPHAS.map(() => ({ completed: 2, failed: 1, open: 1 })) },
        { level: 'level_3', cells: TAU_ALPHAS.map(() => ({ completed: 1, failed: 1, open: 0 })) },
      ],
      TAU_ALPHAS,
    ).split('\n');
    expect(table[0]).toBe('2 agents');
    expect(table[1]).toMatch(/^\s+level_0\s+level_3\s+average$/);
    expect(table[2]).toMatch(/^τ1 \(α 1\)\s+2\/4\s+1\/2\s+0\.500$/);
    expect(table.find((l) => /^CoS\s+\d/.test(l)) ?? '').toMatch(/0\.667\s+0\.500\s+0\.583$/);
    expect(table.find((l) => l.startsWith('CoS (+open)')) ?? '').toMatch(
      /0\.500\s+0\.500\s+0\.500$/,
    );
  });
});
