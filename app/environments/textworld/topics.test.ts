import { describe, expect, it } from 'vitest';
import { topicOf, topics } from './topics.ts';
import { smallWorld } from './world.test-helper.ts';
import { TextWorld } from './world.ts';

describe('topics', () => {
  it('is the mean of P·(A+1)/2 over the people in each area, null where nobody is', () => {
    const w = TextWorld.create(smallWorld());
    const moods = {
      A: { P: 0.8, A: 0.5, D: 0 },
      B: { P: -0.4, A: -0.5, D: 0.3 },
      C: { P: 1, A: 1, D: 1 },
    };
    const t = topics(w, moods);
    // kitchen: (0.8·1.5/2 + -0.4·0.5/2) / 2 = (0.6 - 0.1) / 2
    expect(t.kitchen).toBeCloseTo(0.25);
    expect(t.yard).toBe(1);
    expect(t.den).toBeNull();
    expect(Object.keys(t)).toEqual(['yard', 'kitchen', 'den']);
    expect(topics(w.state(), moods)).toEqual(t);
  });

  it('stays within [-1, 1] and leaves out people with no mood', () => {
    expect(topicOf([{ P: 5, A: 9, D: 0 }])).toBe(1);
    expect(topicOf([{ P: -1, A: 1, D: 0 }])).toBe(-1);
    expect(topicOf([{ P: -1, A: -1, D: 0 }])).toBe(0);
    expect(topicOf([{ P: Number.NaN, A: 0, D: 0 }])).toBeNull();
    const w = TextWorld.create(smallWorld());
    expect(topics(w, { A: { P: 0.5, A: 1, D: 0 } }).kitchen).toBe(0.5);
  });
});
