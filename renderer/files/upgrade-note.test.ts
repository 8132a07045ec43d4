import { describe, expect, it } from 'vitest';
import { upgradeNote } from './actions.ts';

describe('the note on opening a document whose nodes were brought up to date', () => {
  it('names a data version step, and a node whose type was split', () => {
    expect(
      upgradeNote('old.society.json', [
        { node: 'shout1', type: 'shout', from: 1, to: 2 },
        { node: 'dispatcher', type: 'dispatcher', from: 1, to: 1, was: 'planner' },
      ]),
    ).toBe(
      'Upgraded shout1 (shout data v1 → v2), dispatcher (planner → dispatcher) in old.society.json; save to keep it.',
    );
  });
});
