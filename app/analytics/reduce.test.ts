import { describe, expect, it } from 'vitest';
import type { RunEventBody } from '../runtime/events.ts';
import { listenersOnly, runAnalytics, silentAgents, strongestPair } from './reduce.ts';

const chat = (from: string, to: string, x?: number, kind = 'chat'): RunEventBody => ({
  type: 'report',
  node: 'world',
  instance: 'world@r1',
  kind: 'interaction',
  data: { from, to, kind, ...(x === undefined ? {} : { x }) },
});
const point = (
  name: string,
  x: number,
  values: Record<string, number | string | null>,
  extra: { label?: string; unit?: string } = {},
): RunEventBody => ({
  type: 'report',
  node: 'state',
  instance: 'state@r1',
  kind: 'series',
  data: { name, x, values, ...extra },
});

describe('runAnalytics', () => {
  it('counts chats into an initiator × receiver matrix, agents in natural name order', () => {
    const started: RunEventBody = {
      type: 'run.started',
      graph: 'g',
      inputs: {},
      mode: 'simulated',
    };
    const { heatmap, kinds } = runAnalytics([
      started,
      chat('agent10', 'agent2'),
      chat('agent2', 'agent10'),
      chat('agent2', 'agent10'),
      chat('Bea', 'agent2'),
      chat('agent2', 'Bea', 3, 'trade'),
    ]);
    expect(kinds).toEqual(['chat', 'trade']);
    expect(heatmap).toEqual({
      kind: 'chat',
      agents: ['agent2', 'agent10', 'Bea'],
      counts: [
        [0, 2, 0],
        [1, 0, 0],
        [1, 0, 0],
      ],
      total: 4,
    });
    expect(strongestPair(heatmap)).toEqual({ from: 'agent2', to: 'agent10', count: 2 });
  });

  it('counts another kind when asked, and keeps everyone who took part in any kind', () => {
    const events = [chat('ann', 'bob'), chat('cy', 'ann', 1, 'trade')];
    const { heatmap } = runAnalytics(events, { kind: 'trade' });
    expect(heatmap.agents).toEqual(['ann', 'bob', 'cy']);
    expect(heatmap.total).toBe(1);
    expect(silentAgents(heatmap)).toEqual(['bob']);
    expect(silentAgents(runAnalytics(events).heatmap)).toEqual(['cy']);
    expect(listenersOnly(runAnalytics(events).heatmap)).toEqual([{ agent: 'bob', received: 1 }]);
  });

  it('falls back to the first kind the run has when it has no chats', () => {
    const { heatmap } = runAnalytics([chat('ann', 'bob', 1, 'wave')]);
    expect(heatmap).toMatchObject({ kind: 'wave', total: 1 });
  });

  it('gives an empty map and no series for a run without analytics', () => {
    const empty = runAnalytics([{ type: 'resumed' }]);
    expect(empty).toEqual({
      kinds: [],
      heatmap: { kind: 'chat', agents: [], counts: [], total: 0 },
      series: [],
    });
    expect(strongestPair(empty.heatmap)).toBeUndefined();
  });

  it('merges the points of a series at one step and orders steps, keys and series', () => {
    const { series } = runAnalytics([
      point('resources', 2, { bob: 4 }),
      point('resources', 1, { bob: 3, ann: 5 }, { label: 'Resources', unit: 'coins' }),
      point('resources', 2, { ann: 6, bob: 7 }),
      point('driver', 1, { ann: null }),
      point('topic', 1, { canteen: 'food', yard: 'games' }),
    ]);
    expect(series.map((s) => s.name)).toEqual(['driver', 'resources', 'topic']);
    expect(series[1]).toEqual({
      name: 'resources',
      label: 'Resources',
      unit: 'coins',
      kind: 'number',
      keys: ['ann', 'bob'],
      points: [
        { x: 1, values: { bob: 3, ann: 5 } },
        // The later point's value for bob wins.
        { x: 2, values: { bob: 7, ann: 6 } },
      ],
    });
    expect(series[0]).toMatchObject({ label: 'driver', kind: 'number', keys: ['ann'] });
    expect(series[2]).toMatchObject({ kind: 'category', keys: ['canteen', 'yard'] });
  });
});
