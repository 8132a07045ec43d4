import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { agent, edge, graph, node, run } from '../../tests/support/graphs.ts';

/** What each call sent, as the texts of its messages, for calls whose last message starts with `mark`. */
async function sent(doc: object, mark: string) {
  const fake = new FakeProvider((call) => `re: ${call.user}`);
  const { status, error } = await run(doc, { providerFor: fake.providerFor });
  expect(error).toBeUndefined();
  expect(status).toBe('succeeded');
  return fake.calls
    .filter((c) => c.user.startsWith(mark))
    .map((c) => c.request.messages.map((m) => (typeof m.content === 'string' ? m.content : '')));
}

/** A first mate asks each round and sums up at the gather stage, in one thread or two. */
function mate(thread: string | undefined, rounds = 2) {
  const threaded = thread ? { thread } : {};
  return graph([
    node('look', 'mindstorm', { maxRounds: rounds }),
    agent('ask', 'ASK {{ loop.round }}', { history: 'all', ...threaded }, { parentId: 'look' }),
    agent('sum', 'SUM up', { history: 'all', stage: 'gather', ...threaded }, { parentId: 'look' }),
  ]);
}

describe('an agent thread', () => {
  it('lets agents at different stages of a loop share one conversation', async () => {
    expect(await sent(mate('mate'), 'SUM')).toEqual([
      ['ASK 1', 're: ASK 1', 'ASK 2', 're: ASK 2', 'SUM up'],
    ]);
  });

  it('without one, each agent remembers only its own turns', async () => {
    expect(await sent(mate(undefined), 'SUM')).toEqual([['SUM up']]);
  });

  it('starts afresh each time a nested loop is entered, as every memory does', async () => {
    const doc = graph(
      [
        node('explore', 'mindstorm', { maxRounds: 2 }),
        node('look', 'mindstorm', { maxRounds: 2 }, { parentId: 'explore' }),
        agent(
          'ask',
          'ASK {{ loop.round }}',
          { history: 'all', thread: 'mate' },
          { parentId: 'look' },
        ),
        agent(
          'sum',
          'SUM up',
          { history: 'all', stage: 'gather', thread: 'mate' },
          { parentId: 'look' },
        ),
        agent('solo', 'SOLO {{ loop.round }}', { history: 'all' }, { parentId: 'look' }),
        agent('captain', 'CAPTAIN {{ report }}', { history: 'all' }, { parentId: 'explore' }),
      ],
      [edge('sum.text', 'captain.report')],
    );
    const sums = await sent(doc, 'SUM');
    expect(sums).toHaveLength(2);
    for (const s of sums) expect(s).toEqual(['ASK 1', 're: ASK 1', 'ASK 2', 're: ASK 2', 'SUM up']);
    // An agent with no thread forgets the previous entry too.
    const solo = await sent(doc, 'SOLO');
    expect(solo[2]).toEqual(['SOLO 1']);
    // The captain's loop is entered once: it remembers every step.
    const captain = await sent(doc, 'CAPTAIN');
    expect(captain[1]).toHaveLength(3);
  });
});
