import { describe, expect, it } from 'vitest';
import { askedBudget, runLimits } from './budget.ts';

describe('a request`s budget against the server`s', () => {
  it('says what the server has left in dollars a person reads, however little', () => {
    expect(() => runLimits(askedBudget({ usd: 1 }), 0.00003)).toThrow(
      'budget.usd: asks $1 but the server has $0.00003 of its budget left',
    );
    expect(() => runLimits(askedBudget({ usd: 1 }), 0.9999996)).toThrow(
      'the server has $0.999999 of its budget left',
    );
    expect(runLimits(askedBudget({ usd: 0.00002 }), 0.00003)).toEqual({ maxCostUsd: 0.00002 });
  });
});
