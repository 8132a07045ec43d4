import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { agent, edge, eventsOf, graph, node, output, run } from '../../tests/support/graphs.ts';

/** Every call reports 70 prompt and 30 completion tokens: 100 a call. */
const hundred = () =>
  new FakeProvider(() => ({ text: 'ok', usage: { promptTokens: 70, completionTokens: 30 } }));

describe('a token budget on a mindstorm', () => {
  it('ends the loop after the round whose calls reach it', async () => {
    // An opener at init (100), then two agents a round (200 a round): 100, 300, 500 ≥ 450.
    const doc = graph(
      [
        node('storm', 'mindstorm', { maxRounds: 10, until: [{ kind: 'tokens', max: 450 }] }),
        agent('opener', 'OPEN', { stage: 'init' }, { parentId: 'storm' }),
        agent('a', 'A {{ loop.round }}', {}, { parentId: 'storm' }),
        agent('b', 'B {{ loop.round }}', {}, { parentId: 'storm' }),
        output('rounds'),
      ],
      [edge('storm.rounds', 'rounds.value')],
    );
    const fake = hundred();
    const { status, outputs, events } = await run(doc, { providerFor: fake.providerFor });
    expect(status).toBe('succeeded');
    expect(fake.calls).toHaveLength(1 + 2 * 2);
    expect(outputs.rounds).toBe(2);
    const finished = eventsOf(events, 'round.finished');
    expect(finished.map((e) => e.stop)).toEqual([
      undefined,
      'used 500 tokens of its 450-token budget',
    ]);
  });

  it("counts a nested loop's calls toward the loop around it, each entry afresh", async () => {
    // Outer rounds: a planner (100) and an inner loop of 2 rounds (200): 300 a round. The
    // inner loop's own budget of 150 ends it after its 2nd round each time it is entered.
    const doc = graph(
      [
        node('outer', 'mindstorm', { maxRounds: 5, until: [{ kind: 'tokens', max: 600 }] }),
        agent('planner', 'PLAN', {}, { parentId: 'outer' }),
        node(
          'inner',
          'mindstorm',
          { maxRounds: 4, until: [{ kind: 'tokens', max: 150 }] },
          { parentId: 'outer' },
        ),
        agent('thinker', 'THINK', {}, { parentId: 'inner' }),
        output('rounds'),
      ],
      [edge('outer.rounds', 'rounds.value')],
    );
    const fake = hundred();
    const { status, outputs, events } = await run(doc, { providerFor: fake.providerFor });
    expect(status).toBe('succeeded');
    expect(outputs.rounds).toBe(2);
    expect(fake.callsMentioning('THINK')).toHaveLength(2 * 2);
    expect(fake.callsMentioning('PLAN')).toHaveLength(2);
    const inner = eventsOf(events, 'round.finished').filter((e) => e.loop === 'inner');
    expect(inner.map((e) => e.round)).toEqual([1, 2, 1, 2]);
  });
});
