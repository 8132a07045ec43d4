/**
 * Ratings in the run store: one per run × agent × rater × scale, a second rating replacing the first,
 * an eval's ratings joined to its items, and ratings going with their run when it is deleted.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { scaleRatings } from '../eval/ratings.ts';
import { RUBRICS } from '../eval/rubrics.ts';
import type { EvalConfig } from '../eval/types.ts';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from './migrations.ts';
import { connections, dir, newRun, store, withTempStores } from './store.test-helper.ts';
import type { RunStore } from './store.ts';

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

/** An eval of two items, each answered by a stored run. */
function evalWithRuns(s: RunStore) {
  const runs = [newRun(s, 'run-a').id, newRun(s, 'run-b').id];
  s.openEval({ id: 'e1', name: 'trivia', config, items: 2, simulated: true });
  for (const [item, runId] of runs.entries())
    s.putEvalItem({
      evalId: 'e1',
      item,
      variant: 'default',
      jobKey: `k${item}`,
      runId,
      status: 'scored',
      score: 1,
      costUsd: 0,
      tokens: 0,
      calls: 1,
    });
  return runs;
}

describe('ratings', () => {
  it('attaches a rubric given when an eval is reopened, and keeps it when none is given', () => {
    const s = store();
    s.openEval({ id: 'e1', name: 'trivia', config, items: 2, simulated: true });
    expect(s.getEval('e1')?.config.rubric).toBeUndefined();
    const rubric = RUBRICS.itcma!;
    const reopened = s.openEval({
      id: 'e1',
      name: 'trivia',
      config: { ...config, rubric, data: 'other.jsonl' },
      items: 2,
      simulated: true,
    });
    // The rubric is attached; the rest of the stored config stays.
    expect(reopened.config.rubric).toEqual(rubric);
    expect(reopened.config.data).toBe('trivia.jsonl');
    s.openEval({ id: 'e1', name: 'trivia', config, items: 2, simulated: true });
    expect(s.getEval('e1')?.config.rubric).toEqual(rubric);
  });

  it('keeps one rating per run, rater and scale; rating again replaces it', () => {
    const s = store();
    const [run] = evalWithRuns(s);
    s.putRatings({ runId: run!, rater: 'ada', scores: { logicality: 5, exploration: 3 } });
    const after = s.putRatings({
      runId: run!,
      rater: 'ada',
      scores: { logicality: 7 },
      note: 'reads well',
    });
    expect(after.map((r) => [r.rater, r.scale, r.score, r.note])).toEqual([
      ['ada', 'exploration', 3, undefined],
      ['ada', 'logicality', 7, 'reads well'],
    ]);
    s.putRatings({ runId: run!, rater: 'bob', scores: { logicality: 2 } });
    expect(s.ratingsOfRun(run!).map((r) => `${r.rater}:${r.scale}=${r.score}`)).toEqual([
      'ada:exploration=3',
      'ada:logicality=7',
      'bob:logicality=2',
    ]);
  });

  it("joins an eval's ratings to its items and variants", () => {
    const s = store();
    const [a, b] = evalWithRuns(s);
    s.putRatings({ runId: b!, rater: 'ada', scores: { consistency: 4 } });
    s.putRatings({ runId: a!, rater: 'ada', scores: { consistency: 6 } });
    // A run outside the eval is not one of its ratings.
    const other = newRun(s, 'run-other').id;
    s.putRatings({ runId: other, rater: 'ada', scores: { consistency: 1 } });
    expect(s.evalRatings('e1').map((r) => [r.item, r.variant, r.score])).toEqual([
      [0, 'default', 6],
      [1, 'default', 4],
    ]);
  });

  it('deletes one rater or one scale, and goes with its run; deleting the eval keeps them', () => {
    const s = store();
    const [a, b] = evalWithRuns(s);
    s.putRatings({ runId: a!, rater: 'ada', scores: { logicality: 5, exploration: 3 } });
    s.putRatings({ runId: a!, rater: 'bob', scores: { logicality: 4 } });
    s.putRatings({ runId: b!, rater: 'ada', scores: { logicality: 1 } });
    expect(s.deleteRatings(a!, { rater: 'ada', scale: 'exploration' })).toBe(1);
    expect(s.deleteRatings(a!, { rater: 'bob' })).toBe(1);
    expect(s.ratingsOfRun(a!).map((r) => r.scale)).toEqual(['logicality']);

    // The eval's records go; its runs and their ratings stay.
    s.deleteEval('e1');
    expect(s.ratingsOfRun(b!)).toHaveLength(1);
    // Deleting a run deletes its ratings with it: nothing is left pointing at no run.
    s.deleteRun(b!);
    expect(s.ratingsOfRun(b!)).toEqual([]);
    const db = new Database(join(dir, 'society.db'), { readonly: true });
    connections.push(db);
    expect(db.prepare('SELECT count(*) FROM ratings WHERE run_id = ?').pluck().get(b)).toBe(0);
  });

  it("attaches a rubric to a stored eval's config, keeping its items", () => {
    const s = store();
    evalWithRuns(s);
    s.setEvalRubric('e1', RUBRICS.itcma!);
    const record = s.getEval('e1')!;
    expect(record.config.rubric?.scales.map((x) => x.id)).toEqual([
      'personification',
      'consistency',
      'logicality',
      'exploration',
      'proactiveness',
    ]);
    expect(record.config.scorer).toEqual({ name: 'exact' });
    expect(s.evalItems('e1')).toHaveLength(2);
  });

  it('adds the ratings table to a store written before ratings existed, keeping its evals', () => {
    const file = join(dir, 'old.db');
    const db = new Database(file);
    migrate(db, 'old', MIGRATIONS.slice(0, 2));
    db.prepare(
      `INSERT INTO evals (id, name, config, status, items, simulated, created_at, updated_at)
         VALUES ('old1', 'old', ?, 'finished', 0, 1, 1, 1)`,
    ).run(JSON.stringify(config));
    db.close();
    const s = store(file);
    expect(s.diagnostics().schemaVersion).toBe(SCHEMA_VERSION);
    expect(s.getEval('old1')?.name).toBe('old');
    const run = newRun(s, 'r1').id;
    expect(s.putRatings({ runId: run, rater: 'ada', scores: { logicality: 3 } })).toHaveLength(1);
  });

  it('rates one agent of a run apart from the whole run and from its other agents', () => {
    const s = store();
    const [a, b] = evalWithRuns(s);
    s.putRatings({ runId: a!, rater: 'ada', scores: { logicality: 2 } });
    s.putRatings({ runId: a!, agent: 'AY', rater: 'ada', scores: { logicality: 6 } });
    s.putRatings({ runId: a!, agent: 'SG', rater: 'ada', scores: { logicality: 4 } });
    // The same agent, rater and scale again replaces the score; the run's own rating stays.
    s.putRatings({ runId: a!, agent: 'AY', rater: 'ada', scores: { logicality: 7 } });
    s.putRatings({ runId: b!, agent: 'AY', rater: 'bob', scores: { logicality: 3 } });
    expect(s.ratingsOfRun(a!).map((r) => `${r.agent ?? 'run'}:${r.score}`)).toEqual([
      'run:2',
      'AY:7',
      'SG:4',
    ]);
    expect(s.deleteRatings(a!, { agent: 'SG' })).toBe(1);
    // Each agent trajectory rated counts once: item 0's AY (7) and item 1's AY (3), n = 2,
    // besides item 0's whole-run rating (2): n = 3 in all.
    const byAgent = s.evalRatings('e1').filter((r) => r.agent !== undefined);
    const [line] = scaleRatings(['logicality'], byAgent);
    expect(line).toMatchObject({ n: 2, mean: 5 });
    expect(scaleRatings(['logicality'], s.evalRatings('e1'))[0]).toMatchObject({ n: 3 });
  });

  it('opens a store written before ratings per agent: its ratings are of whole runs', () => {
    const file = join(dir, 'before-agents.db');
    const db = new Database(file);
    migrate(db, 'old', MIGRATIONS.slice(0, 3));
    const now = Date.now();
    db.prepare(
      `INSERT INTO runs (id, graph_name, graph_hash, document, compiler_version, mode, inputs, status, started_at)
         VALUES ('old-run', 'g', 'h', '{}', 1, 'live', '{}', 'succeeded', ?)`,
    ).run(now);
    db.prepare(
      `INSERT INTO ratings (run_id, rater, scale, score, note, rated_at) VALUES ('old-run', 'ada', 'logicality', 5, 'kept', ?)`,
    ).run(now);
    db.close();
    const s = store(file);
    expect(s.ratingsOfRun('old-run')).toEqual([
      { runId: 'old-run', rater: 'ada', scale: 'logicality', score: 5, note: 'kept', ratedAt: now },
    ]);
    s.putRatings({ runId: 'old-run', agent: 'AY', rater: 'ada', scores: { logicality: 3 } });
    expect(s.ratingsOfRun('old-run').map((r) => [r.agent, r.score])).toEqual([
      [undefined, 5],
      ['AY', 3],
    ]);
  });
});
