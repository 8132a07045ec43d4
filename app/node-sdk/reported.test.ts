/**
 * The shared analytics vocabulary: what a node may report as a series point, an interaction or
 * its participants, refused in one line naming the field when no chart could draw it.
 */
import { describe, expect, it } from 'vitest';
import { parseReport } from '../runtime/reports.ts';
import { analyticsReportOf, analyticsReports, INTERACTION_TEXT_MAX } from './reported.ts';

const spec = { reports: analyticsReports };

describe('the analytics report kinds', () => {
  it('accepts numbers, categories and missing values', () => {
    const point = { name: 'resources', x: 3, values: { ann: 1.5, bob: null, yard: 'games' } };
    expect(parseReport(spec, 'series', point)).toEqual(point);
  });

  it.each([
    [
      { name: '', x: 1, values: {} },
      '"series" report does not fit its spec: name: must not be empty',
    ],
    [{ name: 'r', x: Number.NaN, values: {} }, 'x: must be a finite number (the step)'],
    [
      { name: 'r', x: 1, values: { ann: Number.POSITIVE_INFINITY } },
      'values.ann: must be a finite number, a string or null',
    ],
    [{ name: 'r', x: 1, values: {}, colour: 'red' }, 'unknown field "colour"'],
  ])('refuses %j with one line naming the field', (point, message) => {
    expect(() => parseReport(spec, 'series', point)).toThrow(message);
  });

  it('refuses an interaction without a receiver, clips a long text, lists participants once', () => {
    expect(() => parseReport(spec, 'interaction', { from: 'ann', to: ' ', kind: 'chat' })).toThrow(
      '"interaction" report does not fit its spec: to: must not be empty',
    );
    const long = parseReport(spec, 'interaction', {
      from: 'ann',
      to: 'bob',
      kind: 'chat',
      text: 'a'.repeat(2000),
    }) as { text: string };
    expect(long.text).toHaveLength(INTERACTION_TEXT_MAX + 1);
    expect(long.text.endsWith('…')).toBe(true);
    expect(parseReport(spec, 'participants', ['ann', 'bob', 'ann'])).toEqual(['ann', 'bob']);
  });

  it('reads an analytics report from any node by kind, and nothing else', () => {
    const chat = { from: 'ann', to: 'bob', kind: 'chat' };
    expect(analyticsReportOf({ type: 'report', kind: 'interaction', data: chat })).toEqual({
      kind: 'interaction',
      data: chat,
    });
    // A node that used the name for something else is not read as analytics.
    expect(analyticsReportOf({ type: 'report', kind: 'series', data: 'up' })).toBeUndefined();
    expect(analyticsReportOf({ type: 'report', kind: 'flip', data: {} })).toBeUndefined();
    expect(analyticsReportOf({ type: 'message' })).toBeUndefined();
  });
});
