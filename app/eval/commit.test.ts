/**
 * Items recorded together share one commit, and a write that fails loses only itself: the
 * other items of its burst are in the store, as an eval that resumes would read them.
 */
import { describe, expect, it } from 'vitest';
import { store, withTempStores } from '../store/store.test-helper.ts';
import { commitTogether } from './commit.ts';
import type { EvalConfig } from './types.ts';

withTempStores();

const config: EvalConfig = {
  name: 'trivia',
  document: 'trivia.society.json',
  documentHash: 'd',
  data: 'trivia.jsonl',
  dataHash: 'h',
  map: [],
  scorer: { name: 'exact' },
  variants: [{ name: 'default', model: [], set: [], provider: [] }],
  mode: 'simulated',
};

const item = (n: number) => ({
  evalId: 'e1',
  item: n,
  variant: 'default',
  jobKey: `k${n}`,
  status: 'scored' as const,
  score: 1,
  costUsd: 0,
  tokens: 0,
  calls: 1,
});

describe('commitTogether', () => {
  it('records a burst of items, and one write that fails rejects alone', async () => {
    const s = store();
    s.openEval({ id: 'e1', name: 'trivia', config, items: 3, simulated: true });
    const commit = commitTogether(s);
    const results = await Promise.allSettled([
      commit(() => s.putEvalItem(item(0))),
      commit(() => {
        s.putEvalItem(item(1));
        throw new Error('the disk is full');
      }),
      commit(() => s.putEvalItem(item(2))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('the disk is full');
    // The failed write's own item is not half there.
    expect(s.evalItems('e1').map((i) => i.item)).toEqual([0, 2]);
  });
});
