import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../tests/support/fake-provider.ts';
import { edge, graph, input, node, output, run } from '../../tests/support/graphs.ts';
import { sift } from './execute.ts';
import { readScore, readScores } from './scores.ts';

const ACTIONS = ['go to the canteen', 'take book 1 from shelf 2', 'chat with SG', 'rest'];

function society(data: Record<string, unknown> = {}) {
  return graph(
    [
      input('actions', { modality: 'list<text>' }),
      input('goal'),
      node('elim', 'filter', { model: 'm', ...data }),
      output('kept'),
      output('scores'),
    ],
    [
      edge('actions.value', 'elim.actions'),
      edge('goal.value', 'elim.goal'),
      edge('elim.kept', 'kept.value'),
      edge('elim.scores', 'scores.value'),
    ],
  );
}

describe('filter node', () => {
  it('reads scores as JSON, by action, or as numbers in a list', () => {
    expect(readScores('{"scores": [5, 1, 4, 2]}', ACTIONS)).toEqual([5, 1, 4, 2]);
    expect(readScores('1. 4\n2. 2\n3. 9\n4. x', ACTIONS)).toEqual([4, 2, 5, undefined]);
    expect(readScores('{"rest": 1, "chat with SG": 5}', ACTIONS)).toEqual([
      undefined,
      undefined,
      5,
      1,
    ]);
    expect(readScore('[simulated] 3')).toBe(3);
    expect(readScore('Score: 4 out of 5')).toBe(4);
  });

  it('keeps unreadable scores and at least the best one', () => {
    expect(sift(ACTIONS, [1, 2, undefined, 1], 3, 1).kept).toEqual(['chat with SG']);
    expect(sift(ACTIONS, [1, 2, 1, 1], 3, 1).kept).toEqual(['take book 1 from shelf 2']);
    expect(sift(ACTIONS, [1, 2, 1, 1], 3, 0).kept).toEqual([]);
  });

  it('scores every action in one call and removes those under the threshold', async () => {
    const fake = new FakeProvider(() => '{"scores": [4, 2, 5, 3]}');
    const { outputs } = await run(society(), {
      providerFor: fake.providerFor,
      inputs: { actions: ACTIONS, goal: 'make friends' },
    });
    expect(outputs.kept).toEqual(['go to the canteen', 'chat with SG', 'rest']);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.user).toContain('Your goal: make friends');
    expect(fake.calls[0]!.user).toContain('3. chat with SG');
  });

  it('asks once per action in each mode, at most maxActions', async () => {
    const fake = new FakeProvider((call) => (call.user.includes('"rest"') ? '1' : '4'));
    const { outputs } = await run(society({ mode: 'each', maxActions: 3, threshold: 2 }), {
      providerFor: fake.providerFor,
      inputs: { actions: [...ACTIONS].reverse(), goal: 'make friends' },
    });
    expect(fake.calls).toHaveLength(3);
    expect(outputs.kept).toEqual(['chat with SG', 'take book 1 from shelf 2']);
    expect(outputs.scores).toEqual([
      { action: 'rest', score: 1 },
      { action: 'chat with SG', score: 4 },
      { action: 'take book 1 from shelf 2', score: 4 },
    ]);
  });

  it('gives labelled, seeded scores when simulated', async () => {
    const inputs = { actions: ACTIONS, goal: 'make friends' };
    const a = await run(society(), { simulate: true, inputs });
    const b = await run(society(), { simulate: true, inputs });
    expect(a.outputs.scores).toEqual(b.outputs.scores);
    for (const row of a.outputs.scores as Array<{ score: number }>) {
      expect(row.score).toBeGreaterThanOrEqual(1);
      expect(row.score).toBeLessThanOrEqual(5);
    }
    const messages = a.events.filter((e) => e.type === 'message') as Array<{ text: string }>;
    expect(messages[0]!.text).toMatch(/^\[simulated\] kept \d of 4 actions/);
  });

  it('keeps every action without asking a model when switched off', async () => {
    const fake = new FakeProvider(() => '{"scores": [1, 1, 1, 1]}');
    const { outputs } = await run(society({ enabled: false }), {
      providerFor: fake.providerFor,
      inputs: { actions: ACTIONS, goal: 'make friends' },
    });
    expect(outputs.kept).toEqual(ACTIONS);
    expect(fake.calls).toHaveLength(0);
  });
});
