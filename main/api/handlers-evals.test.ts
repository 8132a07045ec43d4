/**
 * The evals half of the editor's API, called the way the page calls it (through `call`, so params
 * and results go through the contract's schemas): the list of stored evals with their tables,
 * and one eval with its items and their runs.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { registerTablePresenter } from '../../app/eval/table-presenters.ts';
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
  // A run's outputs, which a paper layout may read beside the scores.
  store.finishRun('run-3', { status: 'succeeded', outputs: { answer: 'Paris, France' } });
  // The same items stored with a paper layout, as a table command stores its eval; the test
  // layout prints its title, each variant's mean and what a run answered.
  registerTablePresenter(
    'test-layout',
    async () => (summary, items, context, outputs) =>
      [
        `${(context as { title: string }).title} · paper 0.40`,
        ...summary.variants.map((v) => `${v.name} ${v.score.mean.toFixed(2)}`),
        `run-3 said ${String(outputs(items.find((i) => i.runId === 'run-3')!.runId!)?.answer)}`,
      ].join('\n'),
  );
  store.openEval({
    id: 'cc33',
    name: 'capitals in a paper layout',
    config: {
      ...config('capitals'),
      table: { kind: 'test-layout', context: { title: 'Table 9' } },
    },
    items: 2,
    simulated: true,
  });
  for (const i of store.evalItems('bb22')) store.putEvalItem({ ...i, evalId: 'cc33' });
  // A layout a table command registers: the studio knows it without loading that command.
  store.openEval({
    id: 'ee55',
    name: 'ITCMA-S ablation',
    config: { ...config('itcma'), table: { kind: 'itcma-table1', context: { ran: [] } } },
    items: 0,
    simulated: true,
  });
  store.openEval({
    id: 'dd44',
    name: 'a layout this version lacks',
    config: { ...config('capitals'), table: { kind: 'from-a-newer-version' } },
    items: 2,
    simulated: true,
  });
});

describe('evals.list', () => {
  it('lists evals newest first, each with its table per variant', async () => {
    const evals = await call('evals.list', {});
    // (The evals stored with a layout, further down, are left aside here.)
    const plain = evals.filter((e) => !['cc33', 'dd44', 'ee55'].includes(e.evalId));
    expect(plain.map((e) => [e.evalId, e.status, e.simulated])).toEqual([
      ['bb22', 'finished', true],
      ['aa11', 'interrupted', true],
    ]);
    const [small, big] = evals.find((e) => e.evalId === 'bb22')!.variants;
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

  it('gives each variant against the first and its cost per solved item', async () => {
    const { summary } = await call('evals.get', { evalId: 'bb22' });
    const [small, big] = summary.variants;
    // Each variant solved one item of two for $0.002.
    expect(small).toMatchObject({ solved: 1, costPerSolvedUsd: 0.002 });
    expect(small!.vsBaseline).toBeUndefined();
    // Both answer Paris right and Italy wrong: McNemar over two pairs finds no difference.
    expect(big).toMatchObject({ solved: 1, costPerSolvedUsd: 0.002 });
    expect(big!.vsBaseline).toMatchObject({
      baseline: 'small',
      test: 'McNemar',
      n: 2,
      unmatched: 0,
      meanDiff: 0,
      p: 1,
      significant: false,
    });
  });

  it("prints the paper layout an eval was stored with, reading its runs' outputs", async () => {
    const { summary, paperTable } = await call('evals.get', { evalId: 'cc33' });
    expect(summary.variants.map((v) => v.name)).toEqual(['small', 'big']);
    expect(paperTable).toEqual({
      kind: 'test-layout',
      text: 'Table 9 · paper 0.40\nsmall 0.50\nbig 0.50\nrun-3 said Paris, France',
    });
    const itcma = (await call('evals.get', { evalId: 'ee55' })).paperTable;
    expect(itcma?.kind).toBe('itcma-table1');
    expect(itcma?.text).toMatch(
      /^ITCMA-S, Table 1, 48 raters, 7-point Likert scales: the paper's mean beside ours/,
    );
    // No layout, or one this version cannot print: the eval's own table only.
    expect((await call('evals.get', { evalId: 'bb22' })).paperTable).toBeUndefined();
    expect((await call('evals.get', { evalId: 'dd44' })).paperTable).toBeUndefined();
  });

  it('says plainly when there is no such eval', async () => {
    await expect(call('evals.get', { evalId: 'zz' })).rejects.toThrow('there is no eval "zz"');
  });
});
