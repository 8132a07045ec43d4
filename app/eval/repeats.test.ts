/**
 * `--repeats N` in the eval machinery: each repeat is its own job with its own key and seed, an
 * eval run once keeps its id and keys, stores written before repeats read every item as repeat
 * 0, and the table pairs variants by item and repeat (significant where one variant is right
 * and the other wrong, not between identical ones) and says what a solved item cost.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../store/migrations.ts';
import { dir, newRun, store, withTempStores } from '../store/store.test-helper.ts';
import { repeatedEvalId, repeatPlan, repeatSeed, seededDocumentText } from './repeats.ts';
import { evalReport } from './report.ts';
import type { PlannedJob } from './runner.ts';
import { summarize } from './summary.ts';
import type { EvalConfig, EvalItemRecord, EvalRecord } from './types.ts';

withTempStores();

const config: EvalConfig = {
  name: 'trivia',
  document: 'trivia.society.json',
  documentHash: 'd',
  data: 'trivia.jsonl',
  dataHash: 'h',
  map: [],
  scorer: { name: 'exact' },
  variants: [
    { name: 'weak', model: [], set: [], provider: [] },
    { name: 'strong', model: [], set: [], provider: [] },
  ],
  mode: 'simulated',
};

const planned = (item: number, documentText: string): PlannedJob => ({
  row: {},
  job: {
    evalId: 'base',
    item,
    variant: 'default',
    jobKey: `key${item}`,
    documentText,
    inputs: {},
    blobs: [],
    mode: 'simulated',
  },
});

describe('repeats of a plan', () => {
  it('runs each job N times, each repeat with its own key and seed, repeat 0 unchanged', () => {
    const text = `${JSON.stringify({ version: 1, name: 'd', nodes: [], edges: [] }, null, 2)}\n`;
    const plan = repeatPlan([planned(0, text), planned(1, text)], 3, 'rep');
    expect(plan.map((p) => [p.job.item, p.job.repeat ?? 0])).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
    ]);
    expect(plan.every((p) => p.job.evalId === 'rep')).toBe(true);
    // Repeat 0 is the job as planned: the same key and text as an eval run once.
    expect(plan[0]!.job.jobKey).toBe('key0');
    expect(plan[0]!.job.documentText).toBe(text);
    expect(new Set(plan.map((p) => p.job.jobKey)).size).toBe(6);
    const seeds = plan.map((p) => JSON.parse(p.job.documentText).settings?.seed);
    expect(seeds).toEqual([undefined, 1, 2, undefined, 1, 2]);
    // The same plan again gives the same keys and texts: a rerun resumes the same jobs.
    expect(repeatPlan([planned(0, text)], 3, 'rep').map((p) => p.job.jobKey)).toEqual(
      plan.slice(0, 3).map((p) => p.job.jobKey),
    );
  });

  it("extends a document's own seed rather than replacing it, so item seeds never collide", () => {
    expect(repeatSeed(undefined, 2)).toBe(2);
    // Seed 1's second repeat is not seed 2's first.
    expect(repeatSeed(1, 1)).toBe('1:1');
    expect(repeatSeed('abc', 2)).toBe('abc:2');
    const text = JSON.stringify({ version: 1, settings: { seed: 7, timeoutMs: 5 } });
    expect(JSON.parse(seededDocumentText(text, 1)).settings).toEqual({ seed: '7:1', timeoutMs: 5 });
  });

  it('keeps an eval id when run once and makes another for N > 1', () => {
    expect(repeatedEvalId('0123456789abcdef', 1)).toBe('0123456789abcdef');
    const three = repeatedEvalId('0123456789abcdef', 3);
    expect(three).not.toBe('0123456789abcdef');
    expect(repeatedEvalId('0123456789abcdef', 3)).toBe(three);
    expect(repeatedEvalId('0123456789abcdef', 2)).not.toBe(three);
  });
});

describe('repeats in the store', () => {
  it('reads the items of a store written before repeats as repeat 0, and keeps repeats apart', () => {
    const file = join(dir, 'old.db');
    const db = new Database(file);
    migrate(db, 'old', MIGRATIONS.slice(0, 3));
    db.prepare(
      `INSERT INTO evals (id, name, config, status, items, simulated, created_at, updated_at)
         VALUES ('old1', 'old', ?, 'finished', 1, 1, 1, 1)`,
    ).run(JSON.stringify(config));
    db.prepare(
      `INSERT INTO eval_items (eval_id, item, variant, job_key, status, score, cost_usd, tokens,
         calls, updated_at) VALUES ('old1', 0, 'weak', 'k0', 'scored', 1, 0.5, 10, 1, 1)`,
    ).run();
    db.close();
    const s = store(file);
    const [old] = s.evalItems('old1');
    expect(old).toMatchObject({ item: 0, variant: 'weak', score: 1, costUsd: 0.5 });
    expect(old!.repeat).toBeUndefined();
    const run = newRun(s, 'r1').id;
    s.putEvalItem({
      evalId: 'old1',
      item: 0,
      variant: 'weak',
      repeat: 1,
      jobKey: 'k0r1',
      runId: run,
      status: 'scored',
      score: 0,
      costUsd: 0,
      tokens: 0,
      calls: 1,
    });
    expect(s.evalItems('old1').map((i) => [i.repeat ?? 0, i.score])).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(s.deleteEvalItem('old1', 0, 'weak', 1)).toBe(true);
    expect(s.evalItems('old1')).toHaveLength(1);
  });
});

/** Scored runs of `variant`: per item × repeat, the score `score(item, repeat)`. */
function runs(
  variant: string,
  items: number,
  repeats: number,
  score: (item: number, repeat: number) => number | 'failed',
  costUsd = 0.01,
): EvalItemRecord[] {
  const out: EvalItemRecord[] = [];
  for (let item = 0; item < items; item++)
    for (let repeat = 0; repeat < repeats; repeat++) {
      const s = score(item, repeat);
      out.push({
        evalId: 'e',
        item,
        variant,
        ...(repeat ? { repeat } : {}),
        jobKey: `${variant}${item}.${repeat}`,
        status: s === 'failed' ? 'failed' : 'scored',
        ...(s === 'failed' ? { error: 'boom' } : { score: s }),
        costUsd,
        tokens: 10,
        calls: 1,
        updatedAt: 1,
      });
    }
  return out;
}

const record = (repeats: number, scorer: EvalConfig['scorer'] = { name: 'exact' }): EvalRecord => ({
  id: 'e',
  name: 'trivia',
  config: { ...config, scorer, repeats },
  status: 'finished',
  items: 6,
  createdAt: 1,
  updatedAt: 1,
  simulated: false,
});

describe('the table of an eval with repeats and variants', () => {
  it('finds a variant right where the baseline is wrong significantly better, by McNemar', () => {
    // 6 items × 3 repeats: the weak variant gets items 0–1 right, the strong one every item.
    const items = [...runs('weak', 6, 3, (i) => (i < 2 ? 1 : 0)), ...runs('strong', 6, 3, () => 1)];
    const summary = summarize(record(3), items);
    const [weak, strong] = summary.variants;
    expect(summary.repeats).toBe(3);
    expect(weak!.n).toBe(18);
    expect(weak!.score.mean).toBeCloseTo(1 / 3, 10);
    expect(weak!.vsBaseline).toBeUndefined();
    // 12 pairs only the strong one got right: exact McNemar p = 2 / 2^12.
    expect(strong!.vsBaseline).toMatchObject({
      baseline: 'weak',
      test: 'McNemar',
      n: 18,
      unmatched: 0,
      significant: true,
    });
    expect(strong!.vsBaseline!.meanDiff).toBeCloseTo(12 / 18, 10);
    expect(strong!.vsBaseline!.p).toBeCloseTo(2 / 4096, 10);
    // Cost per solved item: 18 runs at $0.01 over 6 solved, and over 18.
    expect(weak!.solved).toBe(6);
    expect(weak!.costPerSolvedUsd).toBeCloseTo(0.03, 10);
    expect(strong!.costPerSolvedUsd).toBeCloseTo(0.01, 10);
  });

  it('finds no difference between identical variants', () => {
    const same = (i: number, r: number) => ((i + r) % 2 === 0 ? 1 : 0);
    const summary = summarize(record(3), [
      ...runs('weak', 6, 3, same),
      ...runs('strong', 6, 3, same),
    ]);
    expect(summary.variants[1]!.vsBaseline).toMatchObject({
      meanDiff: 0,
      p: 1,
      significant: false,
    });
  });

  it('pairs by item and repeat, counting a failed run as 0 and leaving out runs without a partner', () => {
    const weak = runs('weak', 6, 3, () => 0).filter((i) => !(i.item === 5 && i.repeat === 2));
    const strong = runs('strong', 6, 3, (i) => (i === 0 ? 'failed' : 1));
    const summary = summarize(record(3), [...weak, ...strong]);
    const c = summary.variants[1]!.vsBaseline!;
    expect(c.n).toBe(17);
    expect(c.unmatched).toBe(1);
    // The strong variant's 3 failed runs count as 0, like the baseline's: 14 of 17 pairs differ.
    expect(c.meanDiff).toBeCloseTo(14 / 17, 10);
    expect(summary.variants[1]!.failed).toBe(3);
    expect(summary.variants[1]!.solved).toBe(15);
  });

  it('takes the interval over items when they repeat, and a paired bootstrap for continuous scores', () => {
    const f1 = (shift: number) => (i: number, r: number) => 0.2 + 0.1 * i + 0.01 * r + shift;
    const summary = summarize(record(3, { name: 'f1' }), [
      ...runs('weak', 6, 3, f1(0)),
      ...runs('strong', 6, 3, f1(0.1)),
    ]);
    const [weak, strong] = summary.variants;
    // Six item means 0.21 … 0.71: a t interval on 5 degrees of freedom, not on 17.
    const means = [0, 1, 2, 3, 4, 5].map((i) => 0.21 + 0.1 * i);
    const mean = means.reduce((a, b) => a + b) / 6;
    const sd = Math.sqrt(means.reduce((a, m) => a + (m - mean) ** 2, 0) / 5);
    expect(weak!.score.mean).toBeCloseTo(mean, 10);
    expect(weak!.score.ci95[1] - mean).toBeCloseTo(2.571 * (sd / Math.sqrt(6)), 10);
    expect(strong!.vsBaseline).toMatchObject({ test: 'paired bootstrap', significant: true });
    expect(strong!.vsBaseline!.meanDiff).toBeCloseTo(0.1, 10);
    // F1 defines no "solved" unless the scorer names a threshold.
    expect(weak!.solved).toBeUndefined();
    expect(weak!.costPerSolvedUsd).toBeUndefined();
    const thresholded = summarize(
      record(3, { name: 'f1', solvedAt: 0.5 }),
      runs('weak', 6, 3, f1(0)),
    );
    // Items 3, 4 and 5 (0.5 and up) in every repeat.
    expect(thresholded.variants[0]!.solved).toBe(9);
  });

  it('keeps the table of an eval run once as it was: no repeats, Wilson over the runs', () => {
    const summary = summarize(
      { ...record(1), config: { ...config } },
      runs('weak', 6, 1, (i) => (i < 3 ? 1 : 0)),
    );
    expect(summary.repeats).toBeUndefined();
    expect(summary.variants[0]!.score.mean).toBe(0.5);
    expect(summary.variants[0]!.score.ci95[0]).toBeCloseTo(0.188, 3);
  });

  it('puts the comparison, its p and the cost per solved item on the report page', () => {
    const items = [...runs('weak', 6, 3, (i) => (i < 2 ? 1 : 0)), ...runs('strong', 6, 3, () => 1)];
    const page = evalReport(summarize(record(3), items), items);
    expect(page).toContain('6 items × 2 variants × 3 repeats');
    expect(page).toMatch(/<th class="num">vs weak \(paired\)<\/th>/);
    expect(page).toMatch(
      /data-significant="true">\+0\.667\*\s*<br><span class="note">p &lt; 0\.001 · McNemar, 18 pairs<\/span>/,
    );
    // $0.18 over 6 solved, and over 18.
    expect(page).toMatch(/<tr data-variant="weak">[\s\S]*?data-cost-per-solved>\$0\.0300</);
    expect(page).toMatch(/<tr data-variant="strong">[\s\S]*?data-cost-per-solved>\$0\.0100</);
    expect(page).toContain('<th class="num">repeat</th>');
  });
});
