/**
 * `society eval` checks its inputs and says when it measured nothing: a `--map` or `--expect`
 * typo is refused before any run, an `_!_` question reaches the society with its lettered
 * options, and an eval whose every item failed exits 1 naming the most common failure, its
 * table and report reading "failed", never a score of 0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { type StubRequestBody, startStubOpenAI, stubError } from './support/stub-openai.ts';

let dir: string;
let doc: string;
let questions: string;
let stub: Awaited<ReturnType<typeof startStubOpenAI>>;
/** What the server answers next, per test. */
let respond: (
  body: StubRequestBody,
  index: number,
) => ReturnType<typeof stubError> | { text: string };

/** A leader asked for the letter of the right option. */
const society = {
  version: 1,
  name: 'leader',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    {
      id: 'q',
      type: 'input',
      position: { x: 0, y: 0 },
      data: { name: 'question', example: 'What is it? (a) this (b) that' },
    },
    {
      id: 'leader',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Answer with the letter of one option. {{ question }}' },
    },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'leader', targetHandle: 'question' },
    { id: 'e2', source: 'leader', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

/** Three questions in NLSOM's `_!_` format (image, question, options, index of the right one). */
const MC = [
  "img/1.jpg_!_What is in his mouth?_!_['toothpick', 'food', 'gum', 'cigarette']_!_3",
  "img/2.jpg_!_What colour is the bus?_!_['red', 'blue', 'green', 'yellow']_!_0",
  "img/3.jpg_!_Where is the cat?_!_['on the sofa', 'under the table', 'in a box', 'outside']_!_2",
].join('\n');

const userText = (body: StubRequestBody) => String(body.messages.at(-1).content);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'society-eval-inputs-'));
  doc = join(dir, 'leader.society.json');
  questions = join(dir, 'questions.txt');
  writeFileSync(doc, JSON.stringify(society));
  writeFileSync(questions, `${MC}\n`);
  stub = await startStubOpenAI({ respond: (body, ctx) => respond(body, ctx.index) });
});
afterAll(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const evalArgs = (db: string, extra: string[] = []) => [
  'eval',
  doc,
  '--data',
  questions,
  '--expect',
  'answerLetter',
  '--scorer',
  'choice',
  '--provider',
  `openai=${stub.url}`,
  '--concurrency',
  '1',
  '--db',
  db,
  '-q',
  ...extra,
];

describe('society eval checks its inputs', () => {
  it('refuses a --map or --expect field the data lacks before any run, naming the fields it has', async () => {
    const db = join(dir, 'typo.db');
    const sent = stub.count();
    for (const [flags, line] of [
      [
        ['--map', 'question=qeston'],
        `society: --map question=qeston: the dataset's rows have no field "qeston" (fields: image, question, stem, options, choices, answer, answerLetter, answerText)`,
      ],
      [
        ['--map', 'question=question', '--expect', 'answer_letter'],
        `society: --expect answer_letter: the dataset's rows have no field "answer_letter" (fields: image, question, stem, options, choices, answer, answerLetter, answerText)`,
      ],
    ] as const) {
      // The later --expect wins, as an option given twice keeps its last value.
      const result = await societyHere(evalArgs(db, [...flags]));
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(line);
    }
    // Nothing ran and nothing was stored, so the same command fixed starts a fresh eval.
    expect(stub.count()).toBe(sent);
    if (existsSync(db)) {
      const store = openRunStore(db);
      try {
        expect(store.listEvals()).toEqual([]);
        expect(store.listRuns()).toEqual([]);
      } finally {
        store.close();
      }
    }
  });

  it('gives the society the lettered options of an _!_ question: they are on the wire', async () => {
    const prompts: string[] = [];
    respond = (body) => {
      const text = userText(body);
      prompts.push(text);
      // The right letter when the options are there to choose from.
      return { text: text.includes('(d) cigarette') ? '(d)' : '(a)' };
    };
    const db = join(dir, 'mc.db');
    const result = await societyHere(evalArgs(db, ['--map', 'question=question', '--json']));
    expect(result.code, result.stderr).toBe(0);
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).toContain(
      'What is in his mouth? (a) toothpick (b) food (c) gum (d) cigarette',
    );
    expect(prompts[2]).toContain(
      'Where is the cat? (a) on the sofa (b) under the table (c) in a box (d) outside',
    );
    // Questions 1 and 2 answered right ((d), then (a)), question 3 wrong ((a) for (c)).
    const summary = JSON.parse(result.stdout);
    expect(summary.variants[0]).toMatchObject({ n: 3, failed: 0 });
    expect(summary.variants[0].score.mean).toBeCloseTo(2 / 3);
  });

  it('exits 1 when every item failed, naming the most common failure; the table and report say "failed"', async () => {
    // Two kinds of failure, so the eval does not stop after its first runs as for a missing key.
    let answered = 0;
    respond = () =>
      answered++ % 2 === 0
        ? stubError(400, 'maximum context length exceeded')
        : stubError(400, 'unsupported value: temperature');
    const db = join(dir, 'failing.db');
    const report = join(dir, 'failing.html');
    const result = await societyHere(
      evalArgs(db, ['--map', 'question=question', '--report', report]),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^society: all 3 items failed; most common failure \(2×\): node "leader": .*maximum context length exceeded/m,
    );
    // The variant has no score: it reads "failed", with no interval, and the failures are counted.
    expect(result.stdout).toMatch(/^default\s+3\s+3\s+failed\s+–\s/m);
    expect(result.stdout).not.toMatch(/\s0\.000\s/);
    expect(result.stdout).toContain(
      "3 of 3 runs failed: a failed run has no score and counts as 0 in its variant's score and 95% CI",
    );
    const html = readFileSync(report, 'utf8');
    expect(html).toMatch(/<td class="num failed">failed<\/td>\s*<td class="num">–<\/td>/);
    expect(html).not.toMatch(/<td class="num[^"]*">0\.000<\/td>/);
    const store = openRunStore(db);
    const evalId = store.listEvals()[0]!.id;
    // A failed item stores no score, so nothing can read it as one.
    expect(store.evalItems(evalId).map((i) => [i.status, i.score])).toEqual([
      ['failed', undefined],
      ['failed', undefined],
      ['failed', undefined],
    ]);
    store.close();
    const items = await societyHere(['eval-show', evalId, '--items', '--db', db]);
    expect(items.stdout).toMatch(/^1\s+default\s+failed\s+failed\s/m);
  });

  it('says how to run failed items again when the same command resumes', async () => {
    respond = () => ({ text: '(a)' });
    const db = join(dir, 'failing.db');
    const again = await societyHere(
      evalArgs(db, ['--map', 'question=question']).filter((a) => a !== '-q'),
    );
    expect(again.stderr).toContain(
      'resuming: 3 of 3 done before (3 failed: --retry-failed runs them again)',
    );
    const retried = await societyHere(
      evalArgs(db, ['--map', 'question=question', '--retry-failed']),
    );
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(/^default\s+3\s+0\s+0\.333\s/m);
  });
});
