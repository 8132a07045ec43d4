import { describe, expect, it } from 'vitest';
import { wordDiff } from './wordDiff.ts';

const marked = (parts: { text: string; changed: boolean }[]) =>
  parts.filter((p) => p.changed).map((p) => p.text);

describe('the word diff of a changed message', () => {
  it('marks only the words each side has alone', () => {
    const d = wordDiff('I would paint a red fox at dawn.', 'I would paint a blue whale at dawn.');
    expect(marked(d.a)).toEqual(['red fox']);
    expect(marked(d.b)).toEqual(['blue whale']);
    expect(d.a.map((p) => p.text).join('')).toBe('I would paint a red fox at dawn.');
    expect(d.b.map((p) => p.text).join('')).toBe('I would paint a blue whale at dawn.');
  });

  it('marks words added at the end and nothing in equal texts', () => {
    expect(marked(wordDiff('yes', 'yes, and more').b)).toEqual(['yes, and more']);
    expect(marked(wordDiff('a b', 'a b c').b)).toEqual(['c']);
    expect(marked(wordDiff('same text', 'same text').a)).toEqual([]);
  });
});
