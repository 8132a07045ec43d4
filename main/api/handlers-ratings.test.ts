/**
 * The ratings half of the editor's API, called as the page calls it (through `call`, so params
 * and results pass the contract's schemas): a run's ratings with its eval's rubric, a person's
 * scores stored and replaced, refusals the panel shows, and the eval's table counting them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RUBRICS } from '../../app/eval/rubrics.ts';
import type { EvalConfig } from '../../app/eval/types.ts';
import { call, store, withApi } from './handlers.test-helper.ts';

const KEY = 'sk-handlers-ratings-test-0123456789abcdef';

const config = (rubric?: EvalConfig['rubric']): EvalConfig => ({
  name: 'valley',
  document: 'valley.society.json',
  documentHash: 'd',
  data: 'seeds.jsonl',
  dataHash: 'h',
  map: [],
  scorer: { name: 'exact' },
  variants: [
    { name: 'full', model: [], set: [], provider: [] },
    { name: 'original', model: [], set: [], provider: [] },
  ],
  mode: 'simulated',
  ...(rubric ? { rubric } : {}),
});

withApi({ name: 'ratings', key: KEY });

beforeAll(() => {
  for (const id of ['run-full-0', 'run-full-1', 'run-orig-0', 'run-plain'])
    store.createRun({
      id,
      document: { version: 1, name: 'valley', nodes: [], edges: [] } as never,
      documentText: '{}',
      compilerVersion: 1,
      mode: 'simulated',
      inputs: {},
    });
  store.openEval({
    id: 'ee11',
    name: 'valley',
    config: config(RUBRICS.itcma),
    items: 2,
    simulated: true,
  });
  store.openEval({ id: 'ff22', name: 'plain', config: config(), items: 1, simulated: true });
  const item = { costUsd: 0, tokens: 10, calls: 1, status: 'scored' as const, score: 1 };
  store.putEvalItem({
    ...item,
    evalId: 'ee11',
    item: 0,
    variant: 'full',
    jobKey: 'a',
    runId: 'run-full-0',
  });
  store.putEvalItem({
    ...item,
    evalId: 'ee11',
    item: 1,
    variant: 'full',
    jobKey: 'b',
    runId: 'run-full-1',
  });
  store.putEvalItem({
    ...item,
    evalId: 'ee11',
    item: 0,
    variant: 'original',
    jobKey: 'c',
    runId: 'run-orig-0',
  });
  store.putEvalItem({
    ...item,
    evalId: 'ff22',
    item: 0,
    variant: 'full',
    jobKey: 'd',
    runId: 'run-plain',
  });
});

describe('ratings.list', () => {
  it("gives a run's ratings with the rubric of its eval", async () => {
    const listed = await call('ratings.list', { runId: 'run-full-0' });
    expect(listed.runId).toBe('run-full-0');
    expect(listed.rubric?.scales.map((s) => s.label)).toEqual([
      'Personification',
      'Consistency',
      'Logicality',
      'Exploration',
      'Proactiveness',
    ]);
    expect(listed.ratings).toEqual([]);
    expect((await call('ratings.list', { runId: 'run-plain' })).rubric).toBeUndefined();
  });
});

describe('ratings.put', () => {
  it("stores a rater's scores, replaces a scale rated again, and keeps raters apart", async () => {
    await call('ratings.put', {
      runId: 'run-full-0',
      rater: ' ada ',
      scores: { personification: 6, exploration: 3 },
      note: 'curious',
    });
    await call('ratings.put', { runId: 'run-full-0', rater: 'ada', scores: { exploration: 5 } });
    const after = await call('ratings.put', {
      runId: 'run-full-0',
      rater: 'bob',
      scores: { exploration: 1 },
    });
    expect(
      after.ratings.map((r) => `${r.rater}:${r.scale}=${r.score}${r.note ? ` (${r.note})` : ''}`),
    ).toEqual(['ada:exploration=5', 'ada:personification=6 (curious)', 'bob:exploration=1']);
  });

  it("shows in the eval's table: the mean per scale per variant, with n", async () => {
    await call('ratings.put', { runId: 'run-full-1', rater: 'ada', scores: { exploration: 7 } });
    const { summary } = await call('evals.get', { evalId: 'ee11' });
    expect(summary.rubric?.name).toBe('itcma');
    const [full, original] = summary.variants;
    // Item 0's exploration: ada 5 and bob 1, so 3; item 1's: 7. Mean 5 over n = 2 items.
    expect(full!.ratings?.find((r) => r.scale === 'exploration')).toMatchObject({ n: 2, mean: 5 });
    expect(full!.ratings?.find((r) => r.scale === 'personification')).toEqual({
      scale: 'personification',
      n: 1,
      mean: 6,
    });
    expect(original!.ratings?.every((r) => r.n === 0)).toBe(true);
    const listed = await call('evals.list', {});
    expect(listed.find((e) => e.evalId === 'ee11')!.variants[0]!.ratings).toHaveLength(5);
  });

  it.each([
    [{ scores: { humour: 3 } }, /no scale "humour" in rubric itcma/],
    [{ scores: { logicality: 9 } }, 'logicality: 9 is not a whole number from 1 to 7'],
    [{ scores: { logicality: 2.5 } }, /invalid params for ratings.put: scores.logicality/],
    [{ scores: {} }, /give a score on at least one scale/],
    [{ rater: '' }, /invalid params for ratings.put: rater: a name of 1 to 80 characters/],
    [{ apiKey: KEY }, /invalid params for ratings.put/],
  ])('refuses %j, storing nothing', async (patch, message) => {
    const before = store.ratingsOfRun('run-orig-0');
    await expect(
      call('ratings.put', {
        runId: 'run-orig-0',
        rater: 'ada',
        scores: { logicality: 4 },
        ...patch,
      }),
    ).rejects.toThrow(message);
    expect(store.ratingsOfRun('run-orig-0')).toEqual(before);
  });

  it('refuses a run of an eval without a rubric, and a run that is not there', async () => {
    await expect(
      call('ratings.put', { runId: 'run-plain', rater: 'ada', scores: { logicality: 4 } }),
    ).rejects.toThrow(/run run-plain is not an item of an eval with a rubric/);
    await expect(call('ratings.list', { runId: 'nope' })).rejects.toThrow('there is no run "nope"');
  });

  it('never hands a key back, even one typed into a note', async () => {
    const answer = await call('ratings.put', {
      runId: 'run-orig-0',
      rater: 'ada',
      scores: { logicality: 4 },
      note: `pasted ${KEY} by mistake`,
    });
    expect(JSON.stringify(answer)).not.toContain(KEY);
    expect(JSON.stringify(store.ratingsOfRun('run-orig-0'))).not.toContain(KEY);
  });
});
