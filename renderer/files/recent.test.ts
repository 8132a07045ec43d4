import { describe, expect, it } from 'vitest';
import { orderForOpening } from './recent.ts';

describe('the Open dialog order', () => {
  it('puts recent files first, in the order used, then the rest newest first', () => {
    const files = [
      { name: 'a.society.json', modifiedAt: 1 },
      { name: 'b.society.json', modifiedAt: 3 },
      { name: 'c.society.json', modifiedAt: 2 },
      { name: 'd.society.json', modifiedAt: 4 },
    ];
    const order = orderForOpening(files, ['c.society.json', 'gone.society.json', 'a.society.json']);
    expect(order.map((f) => [f.name, f.recent])).toEqual([
      ['c.society.json', true],
      ['a.society.json', true],
      ['d.society.json', false],
      ['b.society.json', false],
    ]);
  });
});
