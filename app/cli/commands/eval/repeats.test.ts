/**
 * `society eval --repeats 3` with two variants, against a local OpenAI-protocol server whose
 * answers are known: gpt-4o answers every question right, gpt-4o-mini only the first two of four. The
 * table pairs the variants by item and repeat and finds that difference significant, finds none
 * between two identical variants, prints what each solved item cost, and a rerun resumes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../../../../app/store/index.ts';
import { societyHere } from '../../../../tests/support/cli.ts';
import { type StubRequestBody, startStubOpenAI } from '../../../../tests/support/stub-openai.ts';
import type { EvalSummary } from '../../../eval/types.ts';

let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
let dir: string;
let doc: string;
let data: string;

/** One agent asked "What is N times 3?". */
const society = {
  version: 1,
  name: 'times three',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 20 } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'question' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: '{{ question }}' },
    },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'question' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

/** gpt-4o is right on every question; gpt-4o-mini on questions 1 and 2 only. */
function answer(body: StubRequestBody) {
  const n = Number(/What is (\d+) times/.exec(String(body.messages.at(-1).content))?.[1]);
  const right = body.model === 'gpt-4o' || n <= 2;
  return {
    text: `${right ? n * 3 : n * 3 + 1}`,
    usage: { prompt_tokens: 10, completion_tokens: 2 },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'society-eval-repeats-'));
  doc = join(dir, 'times.society.json');
  data = join(dir, 'questions.jsonl');
  writeFileSync(doc, JSON.stringify(society));
  const rows = Array.from({ length: 4 }, (_, i) => ({
    question: `What is ${i + 1} times 3?`,
    answer: String((i + 1) * 3),
  }));
  writeFileSync(data, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  stub = await startStubOpenAI({ respond: answer });
});
afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const evalArgs = (db: string, variants: string[], extra: string[] = []) => [
  'eval',
  doc,
  '--data',
  data,
  '--map',
  'question=question',
  '--expect',
  'answer',
  '--scorer',
  'number',
  '--provider',
  `openai=${stub.url}`,
  ...variants.flatMap((v) => ['--variant', v]),
  '--concurrency',
  '6',
  '--db',
  db,
  '-q',
  ...extra,
];

describe('society eval --repeats', () => {
  it('runs each item three times and prints a significance column against the first variant', async () => {
    const db = join(dir, 'two.db');
    const variants = ['mini=--model m=openai:gpt-4o-mini', 'large=--model m=openai:gpt-4o'];
    const before = stub.count();
    const result = await societyHere(evalArgs(db, variants, ['--repeats', '3']));
    expect(result.code, result.stderr).toBe(0);
    // 4 items × 2 variants × 3 repeats.
    expect(stub.count() - before).toBe(24);
    const out = result.stdout;
    expect(out).toMatch(/· 4 items × 3 repeats ·/);
    expect(out).toMatch(/^variant\s+n\s+failed\s+score\s+95% CI\s+vs first\s+cost\s+\$\/solved/m);
    expect(out).toMatch(/^mini\s+12\s+0\s+0\.500\s.*baseline/m);
    // 6 of 12 pairs only gpt-4o got right: McNemar's exact p = 2/2^6.
    expect(out).toMatch(/^large\s+12\s+0\s+1\.000\s.*\+0\.500\*/m);
    expect(out).toMatch(/^large\s+McNemar\s+12\s+0\s+\+0\.500\s+\[.*\]\s+0\.031\s+yes$/m);
    // Readable in 100 columns (the first line names the data file's path).
    for (const line of out.split('\n').slice(1)) expect(line.length).toBeLessThanOrEqual(100);
    // What a solved item cost: gpt-4o's 12 runs over its 12 solved items.
    expect(out).toMatch(/^large\s.*\$0\.0005\s+\$0\.000045\s/m);

    const store = openRunStore(db);
    try {
      const record = store.listEvals()[0]!;
      expect(record.config.repeats).toBe(3);
      const items = store.evalItems(record.id);
      expect(items).toHaveLength(24);
      // Each repeat's seed is in the document its run stored: repeat r runs with seed r.
      const seeds = items
        .filter((i) => i.item === 0 && i.variant === 'mini')
        .map((i) => JSON.parse(store.getRun(i.runId!)!.documentText).settings?.seed ?? 0);
      expect(seeds).toEqual([0, 1, 2]);
    } finally {
      store.close();
    }

    // The same command again resumes: nothing is sent, the same table is printed.
    const again = await societyHere(evalArgs(db, variants, ['--repeats', '3', '--json']));
    expect(again.code).toBe(0);
    expect(stub.count() - before).toBe(24);
    const summary = JSON.parse(again.stdout) as EvalSummary;
    expect(summary.repeats).toBe(3);
    const [mini, large] = summary.variants;
    expect(large!.vsBaseline).toMatchObject({ test: 'McNemar', n: 12, significant: true });
    // Cost per solved item: each variant's cost over the runs that solved their item.
    expect(mini!.solved).toBe(6);
    expect(large!.solved).toBe(12);
    expect(large!.costPerSolvedUsd).toBeCloseTo(large!.costUsd / 12, 12);
    expect(mini!.costPerSolvedUsd).toBeCloseTo(mini!.costUsd / 6, 12);

    const shown = await societyHere(['eval-show', summary.evalId, '--items', '--db', db]);
    expect(shown.stdout).toMatch(/^large\s+McNemar\s+12/m);
    expect(shown.stdout).toMatch(/^item\s+repeat\s+variant/m);
  });

  it('finds no significant difference between identical variants, and keeps the id of a single run', async () => {
    const db = join(dir, 'same.db');
    const variants = ['a=--model m=openai:gpt-4o-mini', 'b=--model m=openai:gpt-4o-mini'];
    const result = await societyHere(evalArgs(db, variants, ['--repeats', '3', '--json']));
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as EvalSummary;
    expect(summary.variants[1]!.vsBaseline).toMatchObject({
      meanDiff: 0,
      p: 1,
      significant: false,
    });

    // --repeats 1 is the eval without the flag: the same id, not another eval.
    const once = await societyHere(evalArgs(db, variants, ['--limit', '2', '--json']));
    const one = await societyHere(
      evalArgs(db, variants, ['--limit', '2', '--repeats', '1', '--json']),
    );
    expect(JSON.parse(one.stdout).evalId).toBe(JSON.parse(once.stdout).evalId);
    expect(JSON.parse(one.stdout).repeats).toBeUndefined();
  });

  it('refuses a --repeats that is not a whole number ≥ 1 in one line', async () => {
    const result = await societyHere(evalArgs(join(dir, 'bad.db'), [], ['--repeats', '0']));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('society: --repeats must be a whole number ≥ 1');
  });
});
