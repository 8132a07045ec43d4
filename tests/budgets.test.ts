/**
 * Budgets that cannot be met are refused up front, against a local OpenAI-protocol server: a
 * document whose `maxCalls` is below its likely estimate gets a warning from `validate` and a
 * refusal from `run` and `eval` before any request (exit 2), unless `--max-calls` raises it or
 * `--allow-budget-stop` runs anyway. The NLSOM VQA eval at the paper's settings succeeds on
 * every item, and its table says the rounds it ran. Every template passes at its defaults.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { budgetShortfalls } from '../app/costs/limits-check.ts';
import { DEFAULT_PRICES } from '../app/costs/prices.ts';
import { ROOT, societyHere } from './support/cli.ts';
import { registry } from './support/graphs.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const VQA = join(ROOT, 'templates/nlsom-vqa.society.json');
// The store in memory when the machine has one: an eval of hundreds of answers writes each.
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'society-budgets-'));
const db = join(dir, 'runs.db');

const userText = (body: StubRequestBody) =>
  JSON.stringify((body.messages as Array<{ role: string }>).filter((m) => m.role === 'user'));

let stub: StubOpenAI;
let provider: string[];
beforeAll(async () => {
  stub = await startStubOpenAI({
    respond: (body) => {
      const text = userText(body);
      if (text.includes('ask the observers one new short question'))
        return { text: 'What colour is it?' };
      if (text.includes('Which option is most likely right?')) return { text: '(b)' };
      return { text: 'A small coloured shape.' };
    },
  });
  provider = ['--provider', `openai=${stub.url}`];
});
afterAll(() => {
  stub.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The VQA template with `maxCalls` set to `calls`, written next to the test's store. */
function vqaWithBudget(calls: number): string {
  const doc = JSON.parse(readFileSync(VQA, 'utf8'));
  doc.settings.budget.maxCalls = calls;
  const file = join(dir, `vqa-${calls}.society.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe('a document whose budget is below its estimate', () => {
  it('validate warns (exit 0), naming the limit, its value and the likely figure', async () => {
    const file = vqaWithBudget(10);
    const result = await societyHere(['validate', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `${file}: warning: settings.budget.maxCalls is 10 but a run needs about 17 calls (likely estimate); raise it, or run with --max-calls 17`,
    );
    // Parameters count: at 5 rounds as a democracy the same document needs 42.
    const democracy = await societyHere([
      'validate',
      file,
      '--set',
      'rounds=5',
      '--set',
      'structure=democracy',
    ]);
    expect(democracy.stdout).toContain('needs about 42 calls');
  });

  it('run refuses before any request (exit 2); --max-calls raises it and --allow-budget-stop runs anyway', async () => {
    const file = vqaWithBudget(10);
    const before = stub.count();
    const refused = await societyHere(['run', file, ...provider, '--db', db, '-q']);
    expect(refused.code).toBe(2);
    expect(stub.count()).toBe(before);
    expect(refused.stderr.trim().split('\n').at(-1)).toBe(
      'society: settings.budget.maxCalls is 10 but a run needs about 17 calls (likely estimate); raise it with --max-calls 17, or pass --allow-budget-stop to run anyway (the run stops at the budget)',
    );
    // Simulated runs stop at a budget too, so they are refused the same way.
    expect((await societyHere(['run', file, '--simulate', '--db', db, '-q'])).code).toBe(2);

    const raised = await societyHere(['run', file, ...provider, '--max-calls', '17', '--db', db]);
    expect(raised.code, raised.stderr).toBe(0);
    expect(stub.count() - before).toBe(17);

    const anyway = await societyHere(['run', file, ...provider, '--allow-budget-stop', '--db', db]);
    expect(anyway.code).toBe(1);
    expect(anyway.stderr).toContain('budget exceeded: the run may make at most 10 model calls');
    // Calls in flight when the budget is reached are not sent: at most the ten it allows.
    expect(stub.count() - before - 17).toBeGreaterThan(0);
    expect(stub.count() - before - 17).toBeLessThanOrEqual(10);

    // An estimate only warns.
    const estimate = await societyHere(['run', file, '--estimate', '--db', db]);
    expect(estimate.code).toBe(0);
    expect(estimate.stderr).toContain('society: warning: settings.budget.maxCalls is 10');
  });

  it('an eval refuses before any run, naming the variant that needs most', async () => {
    const file = vqaWithBudget(40);
    const data = join(dir, 'one.txt');
    writeFileSync(data, "coco/a.png_!_What shape?_!_['circle', 'square', 'star', 'line']_!_1\n");
    const before = stub.count();
    const args = ['nlsom', 'eval', data, '--document', file, '--structure', 'monarchy,democracy'];
    const result = await societyHere([...args, '--set', 'rounds=5', ...provider, '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'society: variant democracy: settings.budget.maxCalls is 40 but a run needs about 42 calls',
    );
    expect(stub.count()).toBe(before);
  });
});

describe('a loop that can stop early', () => {
  it('makes the same shortfall a warning: the run starts', async () => {
    // The CAMEL role-play ends on a keyword, so its 25 rounds are a ceiling, not a need.
    const doc = JSON.parse(readFileSync(join(ROOT, 'templates/nlsom-camel.society.json'), 'utf8'));
    doc.settings.budget.maxCalls = 20;
    const file = join(dir, 'camel-20.society.json');
    writeFileSync(file, JSON.stringify(doc));
    const validate = await societyHere(['validate', file]);
    expect(validate.stdout).toContain(
      'warning: settings.budget.maxCalls is 20 but a run needs about 51 calls (likely estimate with every round run; a loop may stop earlier); raise it, or run with --max-calls 51\n',
    );
    const run = await societyHere(['run', file, '--simulate', '--db', db, '-q']);
    expect(run.code).not.toBe(2);
    expect(run.stderr).toContain('society: warning: settings.budget.maxCalls is 20');
  });
});

describe('society nlsom eval at the paper settings', () => {
  const data = join(dir, 'val.txt');
  writeFileSync(
    data,
    [
      "coco/a.png_!_What shape is it?_!_['circle', 'square', 'star', 'line']_!_1",
      "coco/b.png_!_What colour is it?_!_['red', 'blue', 'green', 'white']_!_1",
      "coco/c.png_!_How many are there?_!_['one', 'two', 'three', 'four']_!_1",
    ].join('\n'),
  );

  for (const rounds of [5, 10]) {
    it(`succeeds on every item of both structures at ${rounds} rounds, and says so`, async () => {
      const before = stub.count();
      const args = ['nlsom', 'eval', data, '--structure', 'monarchy,democracy'];
      const result = await societyHere([
        ...args,
        '--set',
        `rounds=${rounds}`,
        ...provider,
        '--concurrency',
        '6',
        '--db',
        db,
        '-q',
      ]);
      expect(result.code, result.stderr).toBe(0);
      // Every question answered "(b)", the right option: no item failed, both at 100%.
      expect(result.stdout).toMatch(/^monarchy\s+\S+\s+100\.00% .* n=3\s/m);
      expect(result.stdout).toMatch(/^democracy\s+(\S+|not in paper)\s+100\.00% .* n=3\s/m);
      expect(result.stdout).toMatch(/^monarchy\s+3\s+0\s/m);
      expect(result.stdout).toMatch(/^democracy\s+3\s+0\s/m);
      // Monarchy 3 + 4R + 2 calls a question, democracy 7R + 7: none stopped at a budget.
      expect(stub.count() - before).toBe(3 * (3 + 4 * rounds + 2 + 7 * rounds + 7));
      // The header states what ran; the paper's 5 rounds only beside the paper's figures.
      const lines = result.stdout.split('\n');
      expect(lines[1]).toBe(
        `ran with rounds=${rounds}, rtk=false, rtc=false, rte=false, topology=full, vlms=vlm-1,vlm-2,vlm-3; per row: structure`,
      );
      expect(lines.filter((l) => l.startsWith("the paper's figures"))).toEqual([
        "the paper's figures: InstructGPT leading BLIP-2, OFA and mPLUG on A-OKVQA val (1,145 questions); Table 1 by rounds (monarchy), Table 4 by structure at 5 rounds",
      ]);
    });
  }
});

describe('the templates', () => {
  const templates = readdirSync(join(ROOT, 'templates')).filter((f) => f.endsWith('.society.json'));

  it('each has a budget its likely run at the default parameters fits in', async () => {
    for (const name of templates) {
      const compiled = await compileGraph(
        readFileSync(join(ROOT, 'templates', name), 'utf8'),
        registry,
      );
      if (!compiled.ok) throw new Error(`${name}: ${compiled.problems[0]?.message}`);
      expect(budgetShortfalls(compiled.plan, DEFAULT_PRICES), name).toEqual([]);
    }
  });

  it("the VQA templates' budgets cover every setting their parameters offer", async () => {
    for (const name of ['nlsom-vqa.society.json', 'nlsom-vqa-democracy.society.json']) {
      const text = readFileSync(join(ROOT, 'templates', name), 'utf8');
      for (const structure of ['monarchy', 'democracy'])
        for (const rights of [false, true]) {
          const params = { rounds: 10, structure, rtk: rights, rtc: rights, rte: rights };
          const compiled = await compileGraph(text, registry, { params });
          if (!compiled.ok) throw new Error(`${name}: ${compiled.problems[0]?.message}`);
          expect(budgetShortfalls(compiled.plan, DEFAULT_PRICES), name).toEqual([]);
        }
    }
  });
});
