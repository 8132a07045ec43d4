import { describe, expect, it } from 'vitest';
import { plural } from './plural.ts';

describe('counts in the panels', () => {
  it('says "1 call" and "2 calls", with grouped numbers and irregular plurals', () => {
    expect(plural(1, 'call')).toBe('1 call');
    expect(plural(0, 'call')).toBe('0 calls');
    expect(plural(12_400, 'token')).toBe('12,400 tokens');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
  });
});
