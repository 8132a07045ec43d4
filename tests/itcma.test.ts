/**
 * ITCMA-S's Irollan Valley end to end, through the command line: the 75-step template against
 * an OpenAI-compatible server makes exactly the calls its graph implies and gives its heat map,
 * resources and topics; the 3-step one draws, moves and allocates the same on a cassette's
 * replay and after a kill -9 and `society resume` as in an uninterrupted run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../app/node-sdk/random.ts';
import { openRunStore } from '../app/store/index.ts';
import { society, societyHere } from './support/cli.ts';
import { type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const FULL = fileURLToPath(
  new URL('../templates/itcma-irollan-valley.society.json', import.meta.url),
);
const SHORT = fileURLToPath(
  new URL('../templates/itcma-irollan-valley-short.society.json', import.meta.url),
);
const AGENTS = ['AY', 'SG', 'MD', 'WL', 'LL', 'WM'];

/** A number from a text: the stub's answers depend on the prompt alone, as a fixed model's would. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

function lastUser(body: StubRequestBody): string {
  const user = body.messages.filter((m: { role: string }) => m.role === 'user').at(-1);
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/** Scores for the filter, a ranking for the matrix, and a thought and action for an agent. */
function answer(body: StubRequestBody): string {
  const prompt = lastUser(body);
  const h = hash(prompt);
  const listed = prompt
    .split('\n')
    .map((line) => /^\d+\.\s+(.+)$/.exec(line.trim())?.[1])
    .filter((x): x is string => x !== undefined);
  if (prompt.includes('{"scores"')) {
    return JSON.stringify({ scores: listed.map((_, i) => 1 + ((h >>> (i % 24)) % 5)) });
  }
  if (prompt.includes('{"ranking"')) {
    return `{"ranking": ${JSON.stringify([...AGENTS].sort((a, b) => hash(a + h) - hash(b + h)))}}`;
  }
  const chats = listed.filter((a) => a.startsWith('chat with'));
  const pool = chats.length > 0 && h % 2 === 0 ? chats : listed;
  const action = pool[h % Math.max(pool.length, 1)] ?? 'rest';
  const said = action.startsWith('chat with')
    ? `${action}: shall we look around together?`
    : action;
  return `Thought: I think I should ${action}.\nAction: ${said}`;
}

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let dir: string;

beforeAll(async () => {
  stub = await startStubOpenAI({ latencyMs: 2, respond: (body) => ({ text: answer(body) }) });
  dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-itcma-'));
});
afterAll(() => {
  stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

const live = (db: string) => ['--db', db, '--provider', `openai=${stub.url}`, '--json', '-q'];

describe('ITCMA-S Irollan Valley', () => {
  it('runs 75 steps with 75 × (6 filter + 6 action + 1 matrix) = 975 calls and gives its heat map, resources and topics', {
    timeout: 180_000,
  }, async () => {
    const before = stub.count();
    const run = await society(['run', FULL, ...live(join(dir, 'full.db'))]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.usage.calls).toBe(975);
    expect(stub.count() - before).toBe(975);

    const heatmap = result.outputs.heatmap as {
      agents: string[];
      counts: number[][];
      total: number;
    };
    expect(heatmap.agents).toEqual(AGENTS);
    expect(heatmap.total).toBeGreaterThan(0);
    expect(heatmap.counts.flat().reduce((a, b) => a + b, 0)).toBe(heatmap.total);
    // Nobody chats with themselves.
    expect(heatmap.counts.map((row, i) => row[i])).toEqual([0, 0, 0, 0, 0, 0]);

    const resources = result.outputs.resources as Array<Record<string, number>>;
    expect(resources).toHaveLength(75);
    expect(Object.keys(resources[74]!).sort()).toEqual([...AGENTS].sort());
    // Each step's allocation over six agents is 3 + 2 + 1 + 0 − 2 − 3 = 1 in total.
    const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    expect(total(resources[74]!)).toBeCloseTo(6 + 75, 6);

    const topics = result.outputs.topics as Array<Record<string, number | null>>;
    expect(topics).toHaveLength(75);
    expect(Object.keys(topics[0]!)).toContain('reading room');
    expect(topics.flatMap((t) => Object.values(t)).some((v) => typeof v === 'number')).toBe(true);
  });

  it('draws, moves and allocates the same on replay and after kill -9 and resume', {
    timeout: 150_000,
  }, async () => {
    const cassette = join(dir, 'short.cassette.json');
    const reference = await society([
      'run',
      SHORT,
      ...live(join(dir, 'ref.db')),
      '--record',
      cassette,
    ]);
    expect(reference.code, reference.stderr).toBe(0);
    const expected = JSON.parse(reference.stdout);
    expect(expected.usage.calls).toBe(39);
    expect(expected.outputs.log).toMatch(/Step 3:/);

    const replay = await society([
      'run',
      SHORT,
      '--replay',
      cassette,
      '--json',
      '-q',
      '--db',
      join(dir, 'replay.db'),
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs).toEqual(expected.outputs);

    const random = seededRandom('itcma-kill');
    let resumed = 0;
    for (let i = 0; i < 10 && resumed < 3; i++) {
      const db = join(dir, `kill-${i}.db`);
      // Killed once the stub has answered some of its 39 calls: mid-run however loaded the
      // machine is.
      const killed = await runAndKill(SHORT, db, 2 + Math.floor(random() * 34));
      const store = openRunStore(db);
      store.markInterrupted();
      const [row] = store.listRuns();
      const status = row ? store.getRun(row.id)?.status : undefined;
      store.close();
      if (!row || !killed || status !== 'interrupted') continue;
      const again = await societyHere(['resume', row.id, ...live(db)]);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).outputs, `kill ${i}`).toEqual(expected.outputs);
      resumed++;
    }
    expect(resumed).toBeGreaterThanOrEqual(1);
  });
});

/**
 * Starts `society run` and SIGKILLs it once the stub has answered `calls` more requests; true
 * when the kill landed (the run had not ended by itself).
 */
function runAndKill(file: string, db: string, calls: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.OPENAI_API_KEY;
    const target = stub.count() + calls;
    const child = spawn(process.execPath, [BIN, 'run', file, ...live(db)], {
      env,
      stdio: 'ignore',
    });
    const timer = setInterval(() => {
      if (stub.count() >= target) child.kill('SIGKILL');
    }, 2);
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearInterval(timer);
      resolve(signal === 'SIGKILL');
    });
  });
}

describe('society itcma eval', () => {
  it('runs the architectures per seed as an eval with the itcma rubric, and refuses what it cannot run', async () => {
    const db = join(dir, 'ablation.db');
    const made = await societyHere([
      'itcma',
      'eval',
      '--document',
      SHORT,
      '--seeds',
      '2',
      '--steps',
      '1',
      '--architectures',
      'full,original',
      '--simulate',
      '--json',
      '-q',
      '--db',
      db,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const summary = JSON.parse(made.stdout);
    expect(summary.items).toBe(2);
    expect(summary.variants.map((v: { name: string }) => v.name)).toEqual(['full', 'original']);
    // The paper's Table 1 beside ours, per cell: nothing is rated yet.
    expect(summary.paper.source).toBe('Table 1, 48 raters, 7-point Likert scales');
    expect(
      summary.paper.cells
        .filter((c: { scale: string }) => c.scale === 'personification')
        .map((c: { paperRow: string; comparison: { paper: number; ours: unknown } }) => [
          c.paperRow,
          c.comparison.paper,
          c.comparison.ours,
        ]),
    ).toEqual([
      ['ITCMA-S', 6.29, null],
      ['ITCMA', 2.88, null],
    ]);
    expect(summary.rubric.scales.map((s: { id: string }) => s.id)).toEqual([
      'personification',
      'consistency',
      'logicality',
      'exploration',
      'proactiveness',
    ]);
    const store = openRunStore(db);
    const items = store.evalItems(summary.evalId);
    // Each run is the template under its architecture's switches and its item's seed.
    const params = items.map((i) => {
      const doc = JSON.parse(store.getRun(i.runId!)!.documentText);
      const value = (name: string) => doc.params[name].default;
      const row = [value('filter'), value('ltrha'), value('driver'), value('memory')];
      return [i.variant, doc.settings.seed, ...row];
    });
    store.close();
    // "original" is the paper's ITCMA base: its own memory and driver, no Elim, no LTRHA.
    expect(params.sort()).toEqual([
      ['full', 1, true, true, true, 3],
      ['full', 2, true, true, true, 3],
      ['original', 1, false, false, false, 6],
      ['original', 2, false, false, false, 6],
    ]);

    for (const [args, message] of [
      [['--architectures', 'tribal'], /--architectures tribal: use any of original, ltrha-only/],
      [['--set', 'filter=false'], /--set filter=false: the architectures set filter/],
      [['--seeds', '0'], /--seeds/],
    ] as const) {
      const refused = await societyHere(['itcma', 'eval', '--simulate', '--db', db, ...args]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(message);
    }
  }, 60_000);
});
