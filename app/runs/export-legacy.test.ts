/**
 * An export written before votes and analytics were reports holds them as events of their own:
 * it still reads, each as the report it is now, so replay, import and the run views see today's
 * events only.
 */
import { describe, expect, it } from 'vitest';
import { tallyOf } from '../node-sdk/tally.ts';
import { EXPORT_FORMAT, parseExport } from './export.ts';

const TALLY = {
  rule: 'plurality',
  candidates: ['tea', 'coffee'],
  ballots: [
    { voter: 'a', value: 'tea', choices: ['tea'], valid: true },
    { voter: 'b', value: 'tea', choices: ['tea'], valid: true },
  ],
  counts: { tea: 2, coffee: 0 },
  ranking: ['tea', 'coffee'],
  winner: 'tea',
  reason: 'tea has the most votes (2)',
  tied: [],
  totals: { ballots: 2, valid: 2 },
};

describe('an export older builds wrote', () => {
  it('reads its vote and interaction events as tally and interaction reports', () => {
    const at = { runId: 'r1', time: 1 };
    const text = JSON.stringify({
      format: EXPORT_FORMAT,
      version: 1,
      run: { id: 'r1', graphName: 'g', documentText: '{}', inputs: {} },
      events: [
        { ...at, type: 'vote', seq: 1, node: 'pick', instance: 'pick', tally: TALLY },
        {
          ...{ ...at, type: 'interaction', seq: 2, node: 'world', instance: 'world@r1' },
          ...{ from: 'ann', to: 'bob', kind: 'chat', x: 1 },
        },
        {
          ...at,
          type: 'participants',
          seq: 3,
          node: 'world',
          instance: 'world@r1',
          names: ['ann'],
        },
      ],
      calls: { format: 'society-cassette' },
      blobs: {},
    });
    const { events } = parseExport(text, 'old.json');
    expect(events.map((e) => (e.type === 'report' ? e.kind : e.type))).toEqual([
      'tally',
      'interaction',
      'participants',
    ]);
    expect(tallyOf(events[0]!)?.winner).toBe('tea');
    expect(events[1]).toMatchObject({
      node: 'world',
      instance: 'world@r1',
      data: { from: 'ann', to: 'bob', kind: 'chat', x: 1 },
    });
    expect(events[2]).toMatchObject({ data: ['ann'] });
  });
});
