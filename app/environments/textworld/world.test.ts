import { describe, expect, it } from 'vitest';
import { smallWorld } from './world.test-helper.ts';
import { TextWorld } from './world.ts';

const fresh = (options = {}) => TextWorld.create(smallWorld(), options);

describe('the action space', () => {
  it('lists what each agent can do now, in a fixed order', () => {
    const w = fresh();
    expect(w.actionSpace('A')).toEqual([
      'go to yard',
      'leave kitchen',
      'take cup 1 from table 1',
      'take toy 1 from table 1',
      'put coin 1 on table 1',
      'put coin 1 on sink basin 1',
      'put coin 1 on stove burner 1',
      'use sink basin 1',
      'use stove burner 1',
      'chat with B',
      'rest',
    ]);
    // A door listed on one side only works both ways; outdoors there is nothing to leave.
    expect(w.actionSpace('C')).toEqual(['go to kitchen', 'go to den', 'rest']);
  });

  it('offers only actions the rules then accept', () => {
    const w = fresh();
    for (const agent of w.agents()) {
      for (const action of w.actionSpace(agent)) {
        const trial = TextWorld.restore(w.state());
        expect(trial.apply(agent, action), `${agent}: ${action}`).toMatchObject({
          ok: true,
          action,
        });
      }
    }
  });
});

describe('applying actions', () => {
  it('reads what a model writes: case, quotes, an Action: prefix, the first action line', () => {
    const w = fresh();
    const result = w.apply(
      'B',
      'Thought: the toy looks fun.\nAction: "Take the Toy 1 from TABLE 1."',
    );
    expect(result).toMatchObject({ ok: true, action: 'take toy 1 from table 1' });
    expect(w.observation('B')!.holding).toEqual([{ id: 'toy 1', states: [] }]);
  });

  it('moves an agent through a door and says so', () => {
    const w = fresh();
    const result = w.apply('C', 'go to the den');
    expect(result).toMatchObject({ ok: true, moved: { from: 'yard', to: 'den' } });
    expect(w.whereIs('C')).toBe('den');
    expect(w.apply('A', 'leave kitchen')).toMatchObject({
      ok: true,
      action: 'leave kitchen',
      moved: { from: 'kitchen', to: 'yard' },
    });
  });

  it.each([
    ['A', 'go to den', 'You cannot get to den from here; from here you can go to: yard.'],
    ['A', 'take book 1 from shelf 1', 'Shelf 1 is not here.'],
    ['B', 'put toy 1 on table 1', 'You are not holding toy 1.'],
    ['C', 'chat with B: hello', 'B is not here.'],
    ['C', 'use sink basin 1', 'Sink basin 1 is not here.'],
    ['A', 'leave B', 'You are not chatting with B.'],
    ['A', 'leave yard', 'You are not in the yard.'],
    ['C', 'leave yard', 'You are already outdoors.'],
    ['A', 'use table 1', 'Table 1 is not something you can use.'],
    ['A', 'chat with A: hm', 'You cannot chat with yourself.'],
    ['A', 'go to the moon', 'There is no area "the moon".'],
    ['A', 'go to toy 1', '"toy 1" is an item, not an area.'],
    ['A', 'dance wildly', '"dance wildly" is not an action; write one of: go to AREA'],
  ])('%s: refuses "%s" with a sentence, changing nothing', (agent, text, feedback) => {
    const w = fresh();
    const before = JSON.stringify(w.state());
    const result = w.apply(agent, text);
    expect(result.ok).toBe(false);
    expect(result.feedback).toContain(feedback);
    expect(JSON.stringify(w.state())).toBe(before);
  });

  it('changes the states of what is on furniture when it is used', () => {
    const w = fresh();
    expect(w.apply('A', 'put coin 1 in sink basin 1').ok).toBe(true);
    expect(w.apply('A', 'use sink basin 1')).toMatchObject({
      ok: true,
      feedback: 'You use sink basin 1. Now on it: coin 1 (clean, damp).',
    });
    w.apply('B', 'take coin 1 from sink basin 1');
    w.apply('B', 'put coin 1 on stove burner 1');
    w.apply('B', 'use stove burner 1');
    expect(w.state().items['coin 1']).toEqual({ at: 'stove burner 1', states: ['clean', 'hot'] });
    expect(w.observe('A')).toContain('B (cooking at stove burner 1)');
  });

  it('records a chat as an interaction and shows it to whom it was said', () => {
    const w = fresh();
    const step = w.step([
      { agent: 'A', action: "chat with Ada's friend" },
      { agent: 'B', action: 'Chat with ada: "Shall we wash up?"' },
    ]);
    expect(step.results.find((r) => r.agent === 'B')).toMatchObject({
      ok: true,
      action: 'chat with A: Shall we wash up?',
      interaction: { from: 'B', to: 'A', text: 'Shall we wash up?', step: 1, area: 'kitchen' },
    });
    expect(step.interactions).toHaveLength(1);
    expect(w.observe('A')).toContain('B said to you: "Shall we wash up?"');
    expect(w.observe('A')).toContain('B (chatting with you)');
    expect(w.actionSpace('A')).toContain('leave B');
    // Walking away ends the chat for both.
    w.step([{ agent: 'B', action: 'go to yard' }]);
    expect(w.observation('A')!.doing).toBe('doing nothing in particular');
  });
});

describe('stepping', () => {
  it('refuses the second agent to take an item taken earlier in the step', () => {
    const w = fresh();
    const step = w.step([
      { agent: 'A', action: 'take toy 1 from table 1' },
      { agent: 'B', action: 'take toy 1 from table 1' },
    ]);
    expect(step.order).toEqual(['A', 'B', 'C']);
    expect(step.results.map((r) => [r.agent, r.ok])).toEqual([
      ['A', true],
      ['B', false],
      ['C', false],
    ]);
    expect(step.results[1]!.feedback).toBe(
      'Toy 1 is no longer on table 1: A took it earlier this step.',
    );
    expect(step.results[2]!.feedback).toBe('You took no action this step.');
  });

  it('plays turns in the order given when asked to', () => {
    const w = fresh({ turnOrder: 'given' });
    const step = w.step([
      { agent: 'B', action: 'take toy 1' },
      { agent: 'A', action: 'take toy 1' },
    ]);
    expect(step.order).toEqual(['B', 'A', 'C']);
    expect(w.state().items['toy 1']!.at).toBe('B');
  });

  it('runs a script entry at its step, before the agents', () => {
    const spec = smallWorld();
    spec.script = [{ step: 2, agent: 'A', action: 'put coin 1 on table 1' }];
    const w = TextWorld.create(spec);
    expect(w.step([]).script).toEqual([]);
    expect(w.state().items['coin 1']!.at).toBe('A');
    const second = w.step([{ agent: 'B', action: 'take coin 1 from table 1' }]);
    expect(second.script).toMatchObject([
      { agent: 'A', ok: true, action: 'put coin 1 on table 1' },
    ]);
    expect(second.results[1]).toMatchObject({ agent: 'B', ok: true });
    expect(w.state().items['coin 1']!.at).toBe('B');
    expect(w.stepsPlayed()).toBe(2);
  });

  it('refuses an unknown agent and a second action for one agent, changing nothing', () => {
    const w = fresh();
    const step = w.step([
      { agent: 'A', action: 'rest' },
      { agent: 'A', action: 'go to yard' },
      { agent: 'Z', action: 'rest' },
    ]);
    expect(step.results.slice(3).map((r) => r.feedback)).toEqual([
      'A has already acted this step.',
      'There is no agent "Z".',
    ]);
    expect(w.whereIs('A')).toBe('kitchen');
  });

  it('shuffles turns from the seed: the same seed gives the same orders', () => {
    const orders = (seed: number) => {
      const w = fresh({ seed, turnOrder: 'shuffled' });
      return Array.from({ length: 8 }, () => w.step([]).order.join(''));
    };
    expect(orders(7)).toEqual(orders(7));
    expect(new Set(orders(7)).size).toBeGreaterThan(1);
    expect(orders(7)).not.toEqual(orders(8));
  });
});

describe('state', () => {
  const play = (w: TextWorld) => {
    w.step([
      { agent: 'A', action: 'take cup 1 from table 1' },
      { agent: 'B', action: 'chat with A: hi' },
      { agent: 'C', action: 'go to den' },
    ]);
    w.step([{ agent: 'A', action: 'put cup 1 in sink basin 1' }]);
    w.step([
      { agent: 'A', action: 'use sink basin 1' },
      { agent: 'C', action: 'rest' },
    ]);
  };

  it('survives a JSON round trip: restore(state()) is the same world', () => {
    const w = fresh({ seed: 'abc', turnOrder: 'shuffled' });
    play(w);
    const text = JSON.stringify(w.state());
    const back = TextWorld.restore(JSON.parse(text));
    expect(JSON.stringify(back.state())).toBe(text);
    expect(back.observe('A')).toBe(w.observe('A'));
    expect(back.step([]).order).toEqual(w.step([]).order);
  });

  it('is the same, to the byte, for the same spec, seed and actions', () => {
    const a = fresh({ seed: 5, turnOrder: 'shuffled' });
    const b = fresh({ seed: 5, turnOrder: 'shuffled' });
    play(a);
    play(b);
    expect(JSON.stringify(a.state())).toBe(JSON.stringify(b.state()));
  });

  it('refuses a state that does not fit its world, naming the path', () => {
    const state = fresh().state() as unknown as Record<string, Record<string, unknown>>;
    (state.items!['cup 1'] as { at: string }).at = 'table 99';
    expect(() => TextWorld.restore(state)).toThrow(
      'items.cup 1.at: there is no furniture or agent "table 99"',
    );
    expect(() => TextWorld.restore({ format: 'nope' })).toThrow(/format/);
  });

  it('hands out copies: changing the returned state changes nothing', () => {
    const w = fresh();
    w.state().agents.A!.at = 'den';
    expect(w.whereIs('A')).toBe('kitchen');
  });
});
