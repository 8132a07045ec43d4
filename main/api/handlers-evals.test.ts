/**
 * The evals half of the editor's API, called the way the page calls it (through `call`, so params
 * and results go through the contract's schemas): the list of stored evals with their tables,
 * and one eval with its items and their runs.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { EvalConfig } from '../../app/eval/types.ts';
import { call, store, withApi } from './handlers.test-helper.ts';

const KEY = 'sk-handlers-evals-test-0123456789abcdef';

const config = (name: string): EvalConfig => ({
  name,
  document: 'qa.society.json',
  documentHash: 'd',
  data: 'data.jsonl',
  dataHash: 'h',
  map: ['question=question'],
  expect: 'answer',
  scorer: { name: 'exact' },
  variants: [
    { name: 'small', model: [], set: [], provider: [] },
    { name: 'big', model: [], set: [], provider: [] },
  ],
  mode: 'simulated',
});

withApi({ name: 'evals', key: KEY });

beforeAll(() => {
  // Each item links to a stored run.
  for (const id of ['run-1', 'run-2', 'run-3', 'run-4'])
    store.createRun({
      id,
      document: { version: 1, name: 'qa', nodes: [], edges: [] } as never,
      documentText: '{}',
      compilerVersion: 1,
      mode: 'simulated',
      inputs: {},
    });
  store.openEval({ id: 'aa11', name: 'older', config: config('older'), items: 1, simulated: true });
  store.setEvalStatus('aa11', 'interrupted');
  // The second eval is the newer one.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() + 60_000);
  store.openEval({
    id: 'bb22',
    name: 'capitals',
    config: config('capitals'),
    items: 2,
    simulated: true,
  });
  const item = { evalId: 'bb22', costUsd: 0.001, tokens: 30, calls: 1, latencyMs: 200 };
  store.putEvalItem({
    ...item,
    item: 0,
    variant: 'small',
    jobKey: 'k1',
    runId: 'run-1',
    status: 'scored',
    score: 1,
    prediction: 'Paris',
    reference: 'Paris',
    label: 'Capital of France?',
  });
  store.putEvalItem({
    ...item,
    item: 1,
    variant: 'small',
    jobKey: 'k2',
    runId: 'run-2',
    status: 'failed',
    score: 0,
    error: `no answer (key ${KEY})`,
    label: 'Capital of Italy?',
  });
  store.putEvalItem({
    ...item,
    item: 0,
    variant: 'big',
    jobKey: 'k3',
    runId: 'run-3',
    status: 'scored',
    score: 1,
    prediction: { city: 'Paris' },
    reference: 'Paris',
  });
  store.putEvalItem({
    ...item,
    item: 1,
    variant: 'big',
    jobKey: 'k4',
    runId: 'run-4',
    status: 'scored',
    score: 0,
    prediction: 'Milan',
    reference: 'Rome',
  });
  store.setEvalStatus('bb22', 'finished');
  vi.useRealTimers();
});

describe('evals.list', () => {
  it('lists evals newest first, each with its table per variant', async () => {
    const evals = await call('evals.list', {});
    expect(evals.map((e) => [e.evalId, e.status, e.simulated])).toEqual([
      ['bb22', 'finished', true],
      ['aa11', 'interrupted', true],
    ]);
    const [small, big] = evals[0]!.variants;
    expect(small).toMatchObject({ name: 'small', n: 2, failed: 1, score: { mean: 0.5 } });
    expect(big).toMatchObject({ name: 'big', n: 2, failed: 0, score: { mean: 0.5 } });
    expect(small!.score.ci95[0]).toBeGreaterThan(0);
    expect(small!.score.ci95[1]).toBeLessThan(1);
    expect(await call('evals.list', { limit: 1 })).toHaveLength(1);
  });

  it('refuses a limit out of range, naming the field', async () => {
    await expect(call('evals.list', { limit: 0 })).rejects.toThrow(
      /invalid params for evals.list: limit/,
    );
  });
});

describe('evals.get', () => {
  it("gives one eval's table and every item with its run, by id or prefix", async () => {
    const { summary, items } = await call('evals.get', { evalId: 'bb' });
    expect(summary.name).toBe('capitals');
    expect(items.map((i) => [i.item, i.variant, i.runId, i.status, i.score])).toEqual([
      [0, 'big', 'run-3', 'scored', 1],
      [0, 'small', 'run-1', 'scored', 1],
      [1, 'big', 'run-4', 'scored', 0],
      [1, 'small', 'run-2', 'failed', 0],
    ]);
    expect(items[0]!.prediction).toEqual({ city: 'Paris' });
    expect(items[1]!.label).toBe('Capital of France?');
  });

  it('never hands a key to the page, even inside an error a run recorded', async () => {
    const { items } = await call('evals.get', { evalId: 'bb22' });
    expect(JSON.stringify(items)).not.toContain(KEY);
    expect(items.find((i) => i.status === 'failed')!.error).toMatch(/^no answer \(key /);
  });

  it('says plainly when there is no such eval', async () => {
    await expect(call('evals.get', { evalId: 'zz' })).rejects.toThrow('there is no eval "zz"');
  });
});
