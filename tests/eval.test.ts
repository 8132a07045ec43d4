/**
 * `society eval` end to end against a local OpenAI-compatible server whose answers are known:
 * the accuracy it reports is exactly what those answers imply, and an eval killed with SIGKILL
 * halfway finishes when run again, each item scored once and no recorded call sent twice.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wilson } from '../app/eval/stats.ts';
import type { EvalSummary } from '../app/eval/types.ts';
import { openRunStore } from '../app/store/index.ts';
import {
  ARITH_DOCUMENT,
  ARITH_RIGHT,
  arithEvalArgs,
  arithJsonl,
  arithReply,
} from './support/arith-eval.ts';
import { societyInProcess } from './support/cli.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
/** Every prompt the server was sent, in order. */
const sent: string[] = [];
let dir: string;
let file: string;
let data: string;

beforeAll(async () => {
  stub = await startStubOpenAI({
    latencyMs: 60,
    respond: async (body) => {
      const prompt = String(body.messages.at(-1).content);
      sent.push(prompt);
      // A finisher slower than the drafter leaves a wide moment with one call of a run made.
      if (prompt.startsWith('FINAL')) await new Promise((r) => setTimeout(r, 150));
      return arithReply(prompt);
    },
  });
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-eval-'));
  file = join(dir, 'arith.society.json');
  data = join(dir, 'questions.jsonl');
  writeFileSync(file, JSON.stringify(ARITH_DOCUMENT));
  writeFileSync(data, arithJsonl());
});
afterAll(() => {
  stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const evalArgs = (db: string, extra: string[] = []) =>
  arithEvalArgs(file, data, db, [
    '--scorer',
    'number',
    '--provider',
    `openai=${stub.url}`,
    '--concurrency',
    '2',
    '--json',
    ...extra,
  ]);

describe('society eval against a server with known answers', () => {
  it('reports exactly the accuracy the answers imply, with its interval, cost and latency', async () => {
    const db = join(dir, 'plain.db');
    const before = sent.length;
    const result = await societyInProcess(evalArgs(db));
    expect(result.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.status).toBe('finished');
    expect(summary.items).toBe(10);
    expect(summary.simulated).toBe(false);
    const [variant] = summary.variants;
    expect(variant).toMatchObject({ name: 'default', n: 10, failed: 0 });
    expect(variant!.score.mean).toBe(ARITH_RIGHT / 10);
    const [lo, hi] = wilson(ARITH_RIGHT / 10, 10);
    expect(variant!.score.ci95[0]).toBeCloseTo(lo, 10);
    expect(variant!.score.ci95[1]).toBeCloseTo(hi, 10);
    // 0.7 of 10 by Wilson's formula: about [0.397, 0.892].
    expect(variant!.score.ci95[0]).toBeCloseTo(0.397, 2);
    expect(variant!.tokens).toBe(10 * 2 * 17);
    expect(variant!.latencyMs.p50).toBeGreaterThan(0);
    expect(sent.length - before).toBe(20);

    // Each item is an ordinary run the debugger opens; the wrong ones are the last three.
    const store = openRunStore(db);
    try {
      const items = store.evalItems(summary.evalId);
      expect(items.map((i) => i.score)).toEqual([1, 1, 1, 1, 1, 1, 1, 0, 0, 0]);
      for (const item of items) expect(store.getRun(item.runId!)?.status).toBe('succeeded');
      expect(items[7]).toMatchObject({ prediction: 'The answer is 25.', reference: '24' });
    } finally {
      store.close();
    }

    // The same command again has nothing left to do: it prints the same table, sending nothing.
    const again = await societyInProcess(evalArgs(db));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      evalId: summary.evalId,
      variants: [{ n: 10 }],
    });
    expect(sent.length - before).toBe(20);

    const shown = await societyInProcess([
      'eval-show',
      summary.evalId.slice(0, 6),
      '--items',
      '--db',
      db,
    ]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('0.700');
    expect(shown.stdout).toMatch(
      /^8\s+default\s+0\.000\s+scored\s+[0-9a-f]{16}\s+What is 8 times 3\?/m,
    );
  }, 60_000);

  it('stops starting runs once its budget is spent, and goes on when run again', async () => {
    const db = join(dir, 'budget.db');
    // gpt-4o-mini at $0.15 and $0.60 per million tokens: 12 + 5 tokens a call, two calls an item.
    const perItem = 2 * ((12 * 0.15 + 5 * 0.6) / 1e6);
    const result = await societyInProcess(evalArgs(db, ['--budget', String(2.5 * perItem)]));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /society: the budget of \$[\d.e-]+ is spent; \d+ items did not run/,
    );
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.status).toBe('over-budget');
    // Runs already in flight when the budget ran out finish: at most the concurrency more.
    expect(summary.variants[0]!.n).toBeGreaterThanOrEqual(3);
    expect(summary.variants[0]!.n).toBeLessThanOrEqual(3 + 2);
    expect(summary.variants[0]!.costUsd).toBeCloseTo(summary.variants[0]!.n * perItem, 10);

    const more = await societyInProcess(evalArgs(db));
    expect(more.code).toBe(0);
    expect(JSON.parse(more.stdout)).toMatchObject({
      evalId: summary.evalId,
      status: 'finished',
      variants: [{ n: 10, score: { mean: ARITH_RIGHT / 10 } }],
    });
  }, 60_000);

  it('killed with SIGKILL halfway, finishes when run again: every item once, no recorded call sent twice', async () => {
    // Killed with some items scored and one run cut off between its two calls. On a loaded
    // machine that moment can pass between the look at the store and the kill: then the eval
    // is started afresh, at most three times.
    let db = '';
    let before = 0;
    let afterKill: string[] = [];
    const recorded = new Set<string>();
    let scoredAtKill = 0;
    let partial = 0;
    for (let attempt = 1; attempt <= 3 && partial === 0; attempt++) {
      db = join(dir, `killed-${attempt}.db`);
      before = sent.length;
      await killWhen(db, (state) => state.scored >= 3 && state.partial >= 1);
      afterKill = sent.slice(before);
      // What the killed eval had recorded: its items' runs and the calls each made.
      recorded.clear();
      scoredAtKill = 0;
      const store = openRunStore(db);
      try {
        const evalRecord = store.listEvals()[0]!;
        for (const item of store.evalItems(evalRecord.id)) {
          if (item.status === 'scored') scoredAtKill++;
          if (!item.runId) continue;
          const entries = store.callRecord(item.runId).entries;
          if (item.status === 'running' && entries.length > 0) partial++;
          for (const entry of entries) recorded.add(String(entry.request.messages.at(-1)?.content));
        }
      } finally {
        store.close();
      }
    }
    expect(scoredAtKill).toBeGreaterThanOrEqual(3);
    expect(scoredAtKill).toBeLessThan(10);
    expect(partial).toBeGreaterThanOrEqual(1);
    expect(recorded.size).toBeGreaterThan(2 * scoredAtKill);

    const result = await societyInProcess(evalArgs(db));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`resuming: ${scoredAtKill} of 10 done before`));
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.status).toBe('finished');
    expect(summary.variants[0]).toMatchObject({ n: 10, failed: 0 });
    expect(summary.variants[0]!.score.mean).toBe(ARITH_RIGHT / 10);

    const store = openRunStore(db);
    try {
      const items = store.evalItems(summary.evalId);
      // Each item scored exactly once, each by one run; a cut-off run was resumed, not redone.
      expect(items.map((i) => i.item)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(new Set(items.map((i) => i.runId)).size).toBe(10);
      expect(store.listRuns({ limit: 100 }).length).toBe(10);
      for (const item of items) expect(store.getRun(item.runId!)?.status).toBe('succeeded');
    } finally {
      store.close();
    }
    // No call the killed eval had recorded went to the server again.
    const afterResume = sent.slice(before + afterKill.length);
    for (const prompt of recorded) expect(afterResume).not.toContain(prompt);
    // All 20 calls were made, the ones in flight at the kill at most twice.
    expect(new Set(sent.slice(before)).size).toBe(20);
    expect(sent.length - before).toBeLessThanOrEqual(20 + 2);
  }, 60_000);
});

/** Starts the eval and SIGKILLs it once `ready` holds of the store (polled every 20 ms). */
function killWhen(
  db: string,
  ready: (state: { scored: number; partial: number }) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    const child = spawn(process.execPath, [BIN, ...evalArgs(db, ['-q'])], { env, stdio: 'ignore' });
    let done = false;
    const poll = setInterval(() => {
      if (done || !existsSync(db)) return;
      const state = { scored: 0, partial: 0 };
      try {
        const store = openRunStore(db);
        try {
          const [record] = store.listEvals();
          for (const item of record ? store.evalItems(record.id) : []) {
            if (item.status === 'scored') state.scored++;
            else if (item.runId && store.callRecord(item.runId).entries.length > 0) state.partial++;
          }
        } finally {
          store.close();
        }
      } catch {
        return; // the file is still being created
      }
      if (ready(state)) {
        done = true;
        child.kill('SIGKILL');
      }
    }, 20);
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearInterval(poll);
      if (signal !== 'SIGKILL') reject(new Error('the eval ended before it could be killed'));
      else resolve();
    });
  });
}
