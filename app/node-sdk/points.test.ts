import { describe, expect, it } from 'vitest';
import { INTERACTION_TEXT_MAX, parseInteraction, parseSeriesPoint } from './points.ts';

describe('what a node may report', () => {
  it('accepts numbers, categories and missing values', () => {
    const point = { name: 'resources', x: 3, values: { ann: 1.5, bob: null, yard: 'games' } };
    expect(parseSeriesPoint(point)).toEqual(point);
  });

  it.each([
    [{ name: '', x: 1, values: {} }, 'series point: name: must not be empty'],
    [
      { name: 'r', x: Number.NaN, values: {} },
      'series point: x: must be a finite number (the step)',
    ],
    [
      { name: 'r', x: 1, values: { ann: Number.POSITIVE_INFINITY } },
      'series point: values.ann: must be a finite number, a string or null',
    ],
    [{ name: 'r', x: 1, values: {}, colour: 'red' }, 'series point: unknown field "colour"'],
  ])('refuses %j with one line naming the field', (point, message) => {
    expect(() => parseSeriesPoint(point)).toThrow(message);
  });

  it('refuses an interaction without a receiver, and clips a long text', () => {
    expect(() => parseInteraction({ from: 'ann', to: ' ', kind: 'chat' })).toThrow(
      'interaction: to: must not be empty',
    );
    const long = parseInteraction({ from: 'ann', to: 'bob', kind: 'chat', text: 'a'.repeat(2000) });
    expect(long.text).toHaveLength(INTERACTION_TEXT_MAX + 1);
    expect(long.text?.endsWith('…')).toBe(true);
  });
});
