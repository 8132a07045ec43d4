import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { agent, edge, eventsOf, graph, node, output, run } from '../../tests/support/graphs.ts';

/**
 * An outer 3-round mindstorm around an inner 4-round one: a planner speaks once per outer round,
 * a thinker once per inner round, and the inner loop reports its round count and transcript.
 */
function nested() {
  return graph(
    [
      node('outer', 'mindstorm', { maxRounds: 3 }),
      agent('planner', 'PLAN {{ loop.round }}', {}, { parentId: 'outer' }),
      node('inner', 'mindstorm', { maxRounds: 4 }, { parentId: 'outer' }),
      agent('thinker', 'THINK {{ loop.round }}', {}, { parentId: 'inner' }),
      output('rounds'),
      output('transcript'),
    ],
    [edge('inner.rounds', 'rounds.value'), edge('inner.transcript', 'transcript.value')],
  );
}

describe('a mindstorm inside another', () => {
  it('runs all its rounds each time the outer loop enters it', async () => {
    const fake = new FakeProvider((call) => `said ${call.user}`);
    const { status, outputs, events } = await run(nested(), { providerFor: fake.providerFor });
    expect(status).toBe('succeeded');
    // 3 planner calls and 3 × 4 thinker calls.
    expect(fake.calls).toHaveLength(15);
    expect(fake.callsMentioning('THINK').map((c) => c.user)).toEqual(
      Array.from({ length: 3 }, () => ['THINK 1', 'THINK 2', 'THINK 3', 'THINK 4']).flat(),
    );
    expect(outputs.rounds).toBe(4);
    // The last entry's transcript holds that entry's rounds only.
    expect(String(outputs.transcript).split('\n')).toHaveLength(4);
    const inner = eventsOf(events, 'round.started').filter((e) => e.loop === 'inner');
    expect(inner.map((e) => e.round)).toEqual([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]);
  });

  it('names each instance by both rounds', async () => {
    const fake = new FakeProvider(() => 'ok');
    const { events } = await run(nested(), { providerFor: fake.providerFor });
    const started = eventsOf(events, 'node.started').map((e) => e.instance);
    expect(started.filter((i) => i.startsWith('thinker'))).toEqual([
      'thinker@r1.1',
      'thinker@r1.2',
      'thinker@r1.3',
      'thinker@r1.4',
      'thinker@r2.1',
      'thinker@r2.2',
      'thinker@r2.3',
      'thinker@r2.4',
      'thinker@r3.1',
      'thinker@r3.2',
      'thinker@r3.3',
      'thinker@r3.4',
    ]);
    expect(started.filter((i) => i.startsWith('planner'))).toEqual([
      'planner@r1',
      'planner@r2',
      'planner@r3',
    ]);
  });

  it("runs NLSOM's embodied society in full at every step", async () => {
    // Each step the first mate questions the observer for 10 rounds and sums up; the captain
    // then picks the next action from the summary: 3 steps × (10 × 2 + 1) + 3 = 66 calls.
    const inLook = { parentId: 'look' };
    const doc = graph(
      [
        node('explore', 'mindstorm', { maxRounds: 3 }),
        node('look', 'mindstorm', { maxRounds: 10 }, { parentId: 'explore' }),
        agent('mate', 'MATE asks after {{ answer }}', {}, inLook),
        agent('observer', 'OBSERVER sees {{ question }}', {}, inLook),
        node('report', 'summarize', { model: 'm', stage: 'gather' }, inLook),
        agent('captain', 'CAPTAIN acts on {{ report }}', {}, { parentId: 'explore' }),
        output('action'),
      ],
      [
        edge('mate.text', 'observer.question'),
        edge('observer.text', 'mate.answer', { previousRound: true }),
        edge('report.summary', 'captain.report'),
        edge('captain.text', 'action.value'),
      ],
    );
    const fake = new FakeProvider((call) => `answer ${call.index}`);
    const { status } = await run(doc, { providerFor: fake.providerFor });
    expect(status).toBe('succeeded');
    expect(fake.calls).toHaveLength(66);
    expect(fake.callsMentioning('CAPTAIN')).toHaveLength(3);
    expect(fake.callsMentioning('OBSERVER')).toHaveLength(30);
  });
});
