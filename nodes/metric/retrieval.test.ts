import { describe, expect, it } from 'vitest';
import { hitAt, readTimestamps, readWindow, recallTable } from './retrieval.ts';

describe('recall at k with a tolerance (NLSOM App. I)', () => {
  it('reads timestamps from lists and from text, in order, as seconds', () => {
    expect(readTimestamps([12, '40', 75.5])).toEqual([12, 40, 75.5]);
    expect(readTimestamps('Timestamps: 1:05, 0:01:10 and 3')).toEqual([65, 70, 3]);
    expect(readTimestamps('maybe -4 or 9')).toEqual([-4, 9]);
    expect(readTimestamps('no times here')).toEqual([]);
  });

  it('reads the window as an object, a pair or a range', () => {
    expect(readWindow({ start: 30, end: 42 })).toEqual({ start: 30, end: 42 });
    expect(readWindow([30, 42])).toEqual({ start: 30, end: 42 });
    expect(readWindow('124-131')).toEqual({ start: 124, end: 131 });
    expect(() => readWindow('124')).toThrow(/two times/);
    expect(() => readWindow([50, 40])).toThrow(/ends \(40\) before it starts \(50\)/);
  });

  it('hits when one of the first k lies in [start − τ, end + τ], edges included', () => {
    const window = { start: 30, end: 42 };
    // 29 is inside [29, 43] with τ = 1; 28.9 is not.
    expect(hitAt([29], window, 1, 1)).toBe(1);
    expect(hitAt([28.9], window, 1, 1)).toBe(0);
    expect(hitAt([43], window, 1, 1)).toBe(1);
    // The hit is third: R1 and R2 miss, R3 hits.
    expect(hitAt([0, 100, 35], window, 2, 1)).toBe(0);
    expect(hitAt([0, 100, 35], window, 3, 1)).toBe(1);
    // τ = 10 widens to [20, 52].
    expect(hitAt([51], window, 1, 10)).toBe(1);
  });

  it("fills the paper's table of k = 1, 3, 5 and τ = 0 (plain R_k), 1, 10", () => {
    // Window [124, 131]: 140 is 9 s after it (a hit only at τ = 10), 125 is inside, fourth.
    expect(recallTable([140, 10, 20, 125, 60], { start: 124, end: 131 })).toEqual({
      R1: 0,
      R3: 0,
      R5: 1,
      'R1@1': 0,
      'R3@1': 0,
      'R5@1': 1,
      'R1@10': 1,
      'R3@10': 1,
      'R5@10': 1,
    });
    // 123.5 is half a second early: a miss for plain R1, a hit once widened by τ = 1.
    expect(recallTable([123.5], { start: 124, end: 131 })).toMatchObject({ R1: 0, 'R1@1': 1 });
  });
});
