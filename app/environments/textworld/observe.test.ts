import { describe, expect, it } from 'vitest';
import { smallWorld } from './world.test-helper.ts';
import { TextWorld } from './world.ts';

describe('observations', () => {
  it('say where the agent is, who is there doing what, what lies where and what it holds', () => {
    const w = TextWorld.create(smallWorld());
    w.step([{ agent: 'B', action: 'rest' }]);
    expect(w.observe('A')).toBe(
      'You are in the kitchen (a public place). With you is B (resting). Around you: table 1, ' +
        'with cup 1 (dirty) and toy 1 on it; sink basin 1; stove burner 1. From here you can go ' +
        'to yard. You are holding coin 1. You are doing nothing in particular.',
    );
  });

  it('show states in parentheses as they change, and a home as whose it is', () => {
    const w = TextWorld.create(smallWorld());
    w.step([{ agent: 'A', action: 'put coin 1 on sink basin 1' }]);
    w.step([{ agent: 'A', action: 'use sink basin 1' }]);
    w.step([{ agent: 'A', action: 'take coin 1 from sink basin 1' }]);
    w.step([{ agent: 'A', action: 'go to yard' }]);
    w.step([{ agent: 'A', action: 'go to den' }]);
    const text = w.observe('A');
    expect(text).toContain('You are in den (your home).');
    expect(text).toContain('shelf 1, with book 1 in it');
    expect(text).toContain('You are holding coin 1 (clean, damp).');
    expect(text).toContain('You are just in from the yard.');
    w.step([{ agent: 'C', action: 'go to den' }]);
    expect(w.observe('C')).toContain(
      'You are in den (the home of A). With you is A (doing nothing',
    );
  });

  it('as JSON: the same facts for the editor', () => {
    const w = TextWorld.create(smallWorld());
    w.step([{ agent: 'B', action: 'chat with A: the cup is dirty' }]);
    expect(w.observation('A')).toEqual({
      agent: 'A',
      name: 'Ada',
      goal: 'Keep the kitchen tidy.',
      step: 1,
      area: { id: 'kitchen', title: 'the kitchen', kind: 'public' },
      doors: ['yard'],
      people: [{ id: 'B', doing: 'chatting with you' }],
      furniture: [
        {
          id: 'table 1',
          kind: 'table',
          holds: 'on',
          usable: false,
          items: [
            { id: 'cup 1', states: ['dirty'] },
            { id: 'toy 1', states: [] },
          ],
        },
        { id: 'sink basin 1', kind: 'sink basin', holds: 'on', usable: true, items: [] },
        { id: 'stove burner 1', kind: 'stove burner', holds: 'on', usable: true, items: [] },
      ],
      holding: [{ id: 'coin 1', states: [] }],
      doing: 'doing nothing in particular',
      heard: [{ from: 'B', text: 'the cup is dirty' }],
    });
    expect(w.observation('Nobody')).toBeUndefined();
  });
});
