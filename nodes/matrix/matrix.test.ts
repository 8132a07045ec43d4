import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { edge, graph, input, node, output, run } from '../../tests/support/graphs.ts';
import { allocation } from './allocation.ts';
import { readRanking } from './ranking.ts';

const IDS = ['AY', 'SG', 'MD', 'WL', 'LL', 'WM'];

function society(data: Record<string, unknown> = {}) {
  return graph(
    [
      input('agents', { modality: 'json' }),
      input('resources', { modality: 'json' }),
      input('topics'),
      input('events'),
      node('matrix', 'matrix', { model: 'm', ...data }),
      output('ranking'),
      output('held'),
    ],
    [
      edge('agents.value', 'matrix.agents'),
      edge('resources.value', 'matrix.resources'),
      edge('topics.value', 'matrix.topics'),
      edge('events.value', 'matrix.events'),
      edge('matrix.ranking', 'ranking.value'),
      edge('matrix.resources', 'held.value'),
    ],
  );
}

describe('matrix node', () => {
  it('gives six ranked agents s_max, (s_min+s_max)/2, s_min, 0, −(s_min+s_max)/2, −s_max (Eq. 19)', () => {
    expect(allocation(6, 1, 3)).toEqual([3, 2, 1, 0, -2, -3]);
    expect(allocation(6, 2, 4)).toEqual([4, 3, 2, 0, -3, -4]);
    expect(allocation(8, 1, 3)).toHaveLength(8);
    expect(allocation(8, 1, 3)[4]).toBe(0);
    expect(allocation(1, 1, 3)).toEqual([3]);
  });

  it('reads rankings from JSON, from mentions, and completes them', () => {
    expect(readRanking('{"ranking": ["LL", "sg", "WM"]}', IDS)).toEqual([
      'LL',
      'SG',
      'WM',
      'AY',
      'MD',
      'WL',
    ]);
    expect(readRanking('First WM, then AY; MD last. Nobody else matters.', IDS)).toEqual([
      'WM',
      'AY',
      'MD',
      'SG',
      'WL',
      'LL',
    ]);
    expect(readRanking('[simulated] {"ranking":["XX","MD"]}', IDS)[0]).toBe('MD');
  });

  it('asks a model to rank the agents and adds the allocation to what they hold', async () => {
    const fake = new FakeProvider(
      () => 'Ranking: {"ranking": ["LL", "SG", "WM", "AY", "WL", "MD"]}',
    );
    const agents = IDS.map((id) => ({ id, goal: `goal of ${id}`, place: 'the canteen' }));
    const { outputs, status } = await run(society(), {
      providerFor: fake.providerFor,
      inputs: {
        agents,
        resources: { LL: 2, MD: -1 },
        topics: 'canteen: 0.4',
        events: 'LL chatted with SG',
      },
    });
    expect(status).toBe('succeeded');
    expect(outputs.ranking).toEqual(['LL', 'SG', 'WM', 'AY', 'WL', 'MD']);
    expect(outputs.held).toEqual({ AY: 1, SG: 3, MD: -4, WL: -1, LL: 5, WM: 2 });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.user).toContain('- LL: goal "goal of LL"; in the canteen; resources 2');
    expect(fake.calls[0]!.user).toContain('LL chatted with SG');
  });

  it('replaces holdings in replace mode, and ranks with a seeded shuffle when simulated', async () => {
    const inputs = { agents: IDS, resources: {}, topics: '', events: '' };
    const a = await run(society({ update: 'replace' }), { simulate: true, inputs });
    const b = await run(society({ update: 'replace' }), { simulate: true, inputs });
    expect(a.outputs.ranking).toEqual(b.outputs.ranking);
    expect([...(a.outputs.ranking as string[])].sort()).toEqual([...IDS].sort());
    const held = a.outputs.held as Record<string, number>;
    expect(Object.values(held).sort((x, y) => x - y)).toEqual([-3, -2, 0, 1, 2, 3]);
    expect(held[(a.outputs.ranking as string[])[0]!]).toBe(3);
  });

  it('leaves holdings as they are without asking a model when switched off', async () => {
    const fake = new FakeProvider(() => '{"ranking": []}');
    const { outputs } = await run(society({ enabled: false }), {
      providerFor: fake.providerFor,
      inputs: { agents: IDS, resources: { LL: 2 }, topics: '', events: '' },
    });
    expect(fake.calls).toHaveLength(0);
    expect(outputs.held).toEqual({ AY: 1, SG: 1, MD: 1, WL: 1, LL: 2, WM: 1 });
  });
});
