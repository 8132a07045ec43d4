import { describe, expect, it } from 'vitest';
import { toVector } from './outputs.ts';

describe('toVector', () => {
  it('keeps a vector, unwraps one row or a batch of one, and rejects ragged rows', () => {
    expect(toVector([1, 2])).toEqual([1, 2]);
    expect(toVector(3)).toEqual([3]);
    expect(
      toVector([
        [
          [0, 4],
          [2, 0],
        ],
      ]),
    ).toEqual([1, 2]);
    expect(toVector([[1], [2, 3]])).toBeUndefined();
    expect(toVector([])).toBeUndefined();
  });
});
