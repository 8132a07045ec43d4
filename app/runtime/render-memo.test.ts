import { describe, expect, it } from 'vitest';
import { RenderMemo } from './render-memo.ts';

const LOOP = '{% for p in proposals %}{{ p }}\n{% endfor %}Which one, {{ who }}?';

describe('the render memo', () => {
  it('hands a copy the render asked for from the same values, and no other', async () => {
    const memo = new RenderMemo();
    const proposals = ['a tower', 'a ship'];
    const values = memo.read(LOOP, { proposals, who: 'critic', replica: { index: 0 } })!;
    // What a copy reads of its own bindings (`replica`) does not count: the template never reads it.
    expect(values).toEqual([proposals, 'critic']);
    memo.keep('prompt', LOOP, values, Promise.resolve('rendered'));

    const same = memo.read(LOOP, {
      proposals: [...proposals],
      who: 'critic',
      replica: { index: 1 },
    });
    await expect(memo.lookup('prompt', LOOP, same!)).resolves.toBe('rendered');
    expect(memo.lookup('role', LOOP, same!)).toBeUndefined();
    for (const vars of [
      { proposals: ['a tower', 'a boat'], who: 'critic' },
      { proposals: ['a tower'], who: 'critic' },
      { proposals, who: 'painter' },
      { proposals },
    ]) {
      expect(memo.lookup('prompt', LOOP, memo.read(LOOP, vars)!)).toBeUndefined();
    }
  });

  it('is not fooled by a list changed in place after the render', () => {
    const memo = new RenderMemo();
    const proposals = ['a tower', 'a ship'];
    const values = memo.read(LOOP, { proposals, who: 'critic' })!;
    memo.keep('prompt', LOOP, values, Promise.resolve('rendered'));
    proposals.push('a lighthouse');
    expect(memo.lookup('prompt', LOOP, memo.read(LOOP, { proposals, who: 'critic' })!)).toBe(
      undefined,
    );
  });

  it('renders every time a template reading objects, the clock or chance', () => {
    const memo = new RenderMemo();
    expect(memo.read('{{ votes.counts.a }}', { votes: { counts: { a: 1 } } })).toBeUndefined();
    expect(memo.read('{{ loop.round }}', { loop: { round: 1 } })).toBeUndefined();
    expect(memo.read("{{ 'now' | date: '%H:%M' }} {{ q }}", { q: 'x' })).toBeUndefined();
    expect(memo.read('{{ names | sample }}', { names: ['a', 'b'] })).toBeUndefined();
    expect(memo.read('{% if %}', {})).toBeUndefined();
  });

  it('forgets a render that failed', async () => {
    const memo = new RenderMemo();
    const values = memo.read(LOOP, { proposals: ['a'], who: 'x' })!;
    const failed = Promise.reject(new Error('went past the limit'));
    memo.keep('prompt', LOOP, values, failed);
    await failed.catch(() => undefined);
    expect(memo.lookup('prompt', LOOP, values)).toBeUndefined();
  });
});
