/**
 * Rating an eval's items by hand from the command line: `society eval … --rubric itcma` attaches
 * the ITCMA-S scales (to a new eval, or to the same eval again without running anything),
 * `society rate` stores a person's scores, `society ratings` and `society eval-show` show them,
 * and every mistake is one line with exit code 2.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalItemRecord, EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { qaEvalArgs, writeQaEval } from './support/qa-eval.ts';

const files = writeQaEval();
const db = files.db;

/** The tiny eval (4 rows × 2 variants, simulated), with extra flags. */
const evalArgs = (...extra: string[]) => [...qaEvalArgs(files, db), ...extra];

let evalId = '';
let items: EvalItemRecord[] = [];
const runOf = (item: number, variant: string) =>
  items.find((i) => i.item === item && i.variant === variant)!.runId!;

/** Runs `society ARGS --db db` in this process. */
const cli = (...args: string[]) => societyHere([...args, '--db', db]);

beforeAll(async () => {
  const made = await societyHere(evalArgs());
  expect(made.code, made.stderr).toBe(0);
  evalId = JSON.parse(made.stdout).evalId;
  const store = openRunStore(db);
  items = store.evalItems(evalId);
  store.close();
}, 30_000);

afterAll(() => rmSync(files.dir, { recursive: true, force: true }));

describe('a rubric on an eval', () => {
  it('is asked for before a run of an eval without one can be rated', async () => {
    const result = await cli('rate', runOf(0, 'small'), '--scale', 'logicality=5');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `society: run ${runOf(0, 'small')} is not an item of an eval with a rubric: name one with --rubric (itcma, or a .json file), or give the eval one with society eval … --rubric`,
    );
  });

  it('is added by the same command with --rubric: the same eval, nothing run again', async () => {
    const again = await societyHere(evalArgs('--rubric', 'itcma'));
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout) as EvalSummary;
    expect(summary.evalId).toBe(evalId);
    expect(summary.rubric?.name).toBe('itcma');
    expect(summary.variants[0]!.ratings?.map((r) => [r.scale, r.n])).toEqual([
      ['personification', 0],
      ['consistency', 0],
      ['logicality', 0],
      ['exploration', 0],
      ['proactiveness', 0],
    ]);
    const store = openRunStore(db);
    try {
      expect(store.evalItems(evalId).map((i) => i.runId)).toEqual(items.map((i) => i.runId));
      // Run without --rubric, the eval keeps the one it has.
      const plain = await societyHere(evalArgs());
      expect(JSON.parse(plain.stdout).rubric?.name).toBe('itcma');
    } finally {
      store.close();
    }
  }, 30_000);
});

describe('rate --rubric', () => {
  it('gives an eval without a rubric the one its item is rated on', async () => {
    // Another eval (one row), made without a rubric.
    const made = await societyHere(evalArgs('--limit', '1'));
    const other = JSON.parse(made.stdout) as EvalSummary;
    expect(other.evalId).not.toBe(evalId);
    expect(other.rubric).toBeUndefined();
    const store = openRunStore(db);
    const rated0 = store.evalItems(other.evalId).find((i) => i.variant === 'small')!;
    const run = rated0.runId!;
    // Its own run, not one of the first eval's.
    expect(items.some((i) => i.runId === run)).toBe(false);
    store.close();
    const rated = await cli(
      'rate',
      run,
      '--rubric',
      'itcma',
      '--scale',
      'exploration=3',
      '--rater',
      'ada',
    );
    expect(rated.code, rated.stderr).toBe(0);
    expect(rated.stderr.trim()).toBe(`society: eval ${other.evalId} is now rated on rubric itcma`);
    const shown = JSON.parse(
      (await cli('eval-show', other.evalId, '--json')).stdout,
    ) as EvalSummary;
    expect(shown.rubric?.name).toBe('itcma');
    const small = shown.variants.find((v) => v.name === 'small')!;
    expect(small.ratings?.find((r) => r.scale === 'exploration')?.n).toBe(1);
  }, 30_000);
});

describe('society rate', () => {
  it('stores the scores; rating a scale again replaces the score', async () => {
    const run = runOf(0, 'big');
    const first = await cli(
      'rate',
      run,
      '--scale',
      'personification=6',
      '--scale',
      'consistency=5',
      '--rater',
      'ada',
      '--note',
      'reads like a person',
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(
      `rated run ${run} (eval ${evalId}, item 1, variant big) as ada: personification 6, consistency 5`,
    );
    const second = await cli(
      'rate',
      run.slice(0, 10),
      '--scale',
      'personification=4',
      '--rater',
      'ada',
      '--json',
    );
    const { ratings } = JSON.parse(second.stdout);
    expect(ratings.map((r: { scale: string; score: number }) => `${r.scale}=${r.score}`)).toEqual([
      'consistency=5',
      'personification=4',
    ]);
  });

  it.each([
    [
      ['--scale', 'humour=3'],
      'society: --scale no scale "humour" in rubric itcma (its scales: personification, consistency, logicality, exploration, proactiveness)',
    ],
    [
      ['--scale', 'logicality=8'],
      'society: --scale logicality: 8 is not a whole number from 1 to 7',
    ],
    [
      ['--scale', 'logicality=0'],
      'society: --scale logicality: 0 is not a whole number from 1 to 7',
    ],
    [
      ['--scale', 'logicality=4.5'],
      'society: --scale logicality: "4.5" is not a whole number from 1 to 7',
    ],
    [['--scale', 'logicality'], 'society: --scale expects NAME=VALUE, got "logicality"'],
    [
      ['--scale', 'logicality=3', '--rubric', 'nope'],
      'society: --rubric: no rubric "nope" (built in: itcma; or a .json file of your own)',
    ],
    [
      [],
      'society: give a score with --scale ID=SCORE (rubric itcma: personification, consistency, logicality, exploration, proactiveness, from 1 to 7)',
    ],
  ])('refuses %j in one line, exit 2, storing nothing', async (flags, line) => {
    const run = runOf(1, 'small');
    const result = await cli('rate', run, '--rater', 'ada', ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(line);
    const store = openRunStore(db);
    expect(store.ratingsOfRun(run)).toEqual([]);
    store.close();
  });

  it('refuses a run that is not there', async () => {
    const result = await cli('rate', 'ffffffffff', '--scale', 'logicality=3');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^society: no run "ffffffffff" in .*runs\.db \(see `society runs`\)$/,
    );
  });
});

describe('reading ratings back', () => {
  beforeAll(async () => {
    // Two items of `small` rated, one by two people: n counts items, not raters.
    for (const [item, rater, score] of [
      [0, 'ada', 2],
      [0, 'bob', 4],
      [1, 'ada', 6],
    ] as const) {
      const r = await cli(
        'rate',
        runOf(item, 'small'),
        '--scale',
        `logicality=${score}`,
        '--rater',
        rater,
      );
      expect(r.code, r.stderr).toBe(0);
    }
  });

  it('eval-show prints the mean per scale per variant with n and a 95% t interval', async () => {
    const shown = await cli('eval-show', evalId);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines).toContain(
      "ratings · rubric itcma, 1 to 7 · n items rated (several raters' scores of an item are averaged; scales not rated yet are left out)",
    );
    // small, logicality: items at 3 (2 and 4 averaged) and 6: mean 4.5, sd 2.12, t(1) = 12.706.
    expect(lines.find((l) => /^small\s+logicality/.test(l))).toMatch(
      /2\s+4\.50\s+\[1\.00, 7\.00\]$/,
    );
    expect(lines.find((l) => /^big\s+personification/.test(l))).toMatch(/1\s+4\.00\s+–$/);

    const json = JSON.parse((await cli('eval-show', evalId, '--json')).stdout) as EvalSummary;
    const small = json.variants.find((v) => v.name === 'small')!;
    expect(small.ratings?.find((r) => r.scale === 'logicality')).toEqual({
      scale: 'logicality',
      n: 2,
      mean: 4.5,
      ci95: [1, 7],
    });
  });

  it('society ratings prints every rating of an eval, or of one run', async () => {
    const all = await cli('ratings', evalId);
    expect(all.code).toBe(0);
    const rows = all.stdout.trim().split('\n');
    expect(rows[0]).toBe(`eval ${evalId} · one question · rubric itcma (1–7)`);
    expect(rows[1]).toMatch(
      /^item\s+variant\s+run\s+rater\s+personification\s+consistency\s+logicality\s+exploration\s+proactiveness\s+note$/,
    );
    expect(rows).toHaveLength(6);
    expect(rows.find((r) => r.includes(runOf(0, 'big')))).toMatch(
      /ada\s+4\s+5\s+–\s+–\s+–\s+reads like a person$/,
    );

    const one = JSON.parse((await cli('ratings', runOf(0, 'small'), '--json')).stdout);
    expect(one.runId).toBe(runOf(0, 'small'));
    expect(
      one.ratings.map((r: { rater: string; score: number }) => `${r.rater}:${r.score}`),
    ).toEqual(['ada:2', 'bob:4']);
  });

  it('rate --clear removes one rater’s ratings of a run', async () => {
    const run = runOf(0, 'small');
    const cleared = await cli('rate', run, '--clear', '--rater', 'bob');
    expect(cleared.stdout.trim()).toBe(
      `removed 1 rating of run ${run} (eval ${evalId}, item 1, variant small) by bob`,
    );
    const left = JSON.parse((await cli('ratings', run, '--json')).stdout);
    expect(left.ratings.map((r: { rater: string }) => r.rater)).toEqual(['ada']);
  });

  it('society export keeps a run’s ratings in the file', async () => {
    const out = path.join(files.dir, 'rated.run.json');
    const result = await cli('export', runOf(0, 'big'), '-o', out);
    expect(result.stdout).toMatch(/, 2 ratings$/m);
    const data = JSON.parse(readFileSync(out, 'utf8'));
    expect(data.ratings.map((r: { scale: string }) => r.scale)).toEqual([
      'consistency',
      'personification',
    ]);
  });
});
