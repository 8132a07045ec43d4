/**
 * `society openagi eval --data DIR` over a 3-task folder in OpenAGI's layout (made here): every
 * sample of every task is an item, a malformed folder is refused before any run naming the file
 * and what is wrong, and the paper's zero-shot planner sends no model list on the wire and
 * scores an invalid plan 0.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from '../../../../tests/support/cli.ts';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
} from '../../../../tests/support/stub-hf.ts';
import { type StubOpenAI, startStubOpenAI } from '../../../../tests/support/stub-openai.ts';
import { openAgiModules } from '../../../experts/catalogue.ts';
import { openRunStore } from '../../../store/index.ts';

const TASKS = [
  'Given noisy grayscale image, how to return the regular image step by step?',
  'Given noisy blurry grayscale image and clozed English query, how to answer the question in English step by step?',
  'Given clozed English text, how to translate the text in German step by step?',
];
const SAMPLES = 4;

let dir: string;
let llm: StubOpenAI;
let hf: StubHf;
/** What the planner model writes (per test). */
let plannerText = 'I would look at the picture closely and think it over.';

/** A hashed bag of words: texts sharing words are close, as a sentence model makes them. */
function bagOfWords(text: string): number[] {
  const v = new Array<number>(64).fill(0);
  for (const w of text
    .toLowerCase()
    .split(/[^a-zäöüß]+/)
    .filter(Boolean)) {
    let h = 0;
    for (const c of w) h = (h * 31 + c.charCodeAt(0)) % 64;
    v[h]! += 1;
  }
  return v;
}

/**
 * A redirected provider is asked at its own URL, which names no model: the stub tells the calls
 * apart by their text. The masked sentence is filled, the filled one translated, and every other
 * text (module names, steps, the metric's texts) gets one vector per word between two marker
 * vectors, as a token-level model answers: the mapping mean-pools them, BERTScore matches them.
 */
function expert(request: StubHfRequest): StubHfReply {
  const inputs = String((request.json as { inputs?: unknown }).inputs ?? '');
  if (inputs.includes('[MASK]'))
    return {
      body: [
        { sequence: inputs.replace('[MASK]', 'sits'), score: 0.9, token: 1, token_str: 'sits' },
      ],
    };
  if (inputs.startsWith('A bear'))
    return { body: [{ translation_text: 'Ein Bär sitzt im Gras.' }] };
  const words = inputs.split(/\s+/).filter(Boolean);
  return { body: [bagOfWords('cls'), ...words.map(bagOfWords), bagOfWords('sep')] };
}

/** OpenAGI's layout: <id>/inputs/ and <id>/outputs/, pictures 0.jpg…, one text per line. */
async function makeData(root: string): Promise<void> {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'task_description.txt'), `${TASKS.join('\n')}\n`);
  const pictures = async (folder: string) => {
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < SAMPLES; i++) {
      const jpg = await sharp({
        create: { width: 8, height: 8, channels: 3, background: { r: 20 * i, g: 90, b: 160 } },
      })
        .jpeg()
        .toBuffer();
      writeFileSync(join(folder, `${i}.jpg`), jpg);
    }
  };
  const lines = (file: string, make: (i: number) => string) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `${Array.from({ length: SAMPLES }, (_, i) => make(i)).join('\n')}\n`);
  };
  await pictures(join(root, '0/inputs/image'));
  await pictures(join(root, '0/outputs/image'));
  await pictures(join(root, '1/inputs/image'));
  lines(join(root, '1/inputs/question.txt'), (i) => `What number is [MASK] shirt ${i}?`);
  lines(join(root, '1/outputs/answer.txt'), (i) => String(20 + i));
  lines(join(root, '2/inputs/text.txt'), (i) => `A bear [MASK] in the grass, number ${i}.`);
  lines(join(root, '2/outputs/text.txt'), (i) => `Ein Bär im Gras, Nummer ${i}.`);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'society-openagi-data-'));
  await makeData(join(dir, 'data'));
  // A planner that writes no step: the paper's mapping finds nothing, so the plan is invalid.
  llm = await startStubOpenAI({ respond: () => ({ text: plannerText }) });
  hf = await startStubHuggingFace({ respond: expert });
});
afterAll(async () => {
  await llm.close();
  await hf.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('society openagi eval --data', () => {
  it('runs every sample of every task folder as an item', async () => {
    const data = join(dir, 'data');
    const db = join(dir, 'all.db');
    const args = ['openagi', 'eval', '--data', data, '--split', 'folder', '--simulate'];
    const result = await societyHere([...args, '--json', '-q', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ status: 'finished', items: 3 * SAMPLES });
    expect(json.variants[0]).toMatchObject({ n: 3 * SAMPLES, failed: 0 });
    const byMetric = Object.fromEntries(
      json.table1.metrics.map((m: { metric: string }) => [m.metric, m]),
    );
    // Task 0 answers with a picture (ViT); tasks 1 and 2 in text (BERT), four samples each.
    expect(byMetric.ViT).toMatchObject({ tasks: 1, items: SAMPLES });
    expect(byMetric.BERT).toMatchObject({ tasks: 2, items: 2 * SAMPLES });

    const text = await societyHere([...args, '--samples', '2', '-q', '--db', db]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('3 tasks, 6 samples in all');
    expect(text.stdout).toMatch(
      /^BERT\s+not in paper\s+-?\d\.\d{4} \[.*\]\s+–\s+2 \(4 samples\)\s/m,
    );
  });

  it("takes the paper's test tasks by default, and names a task folder the split needs", async () => {
    const paper = join(dir, 'paper');
    mkdirSync(join(paper, '2'), { recursive: true });
    writeFileSync(
      join(paper, 'task_description.txt'),
      `${Array.from({ length: 108 }, () => TASKS[0]).join('\n')}\n`,
    );
    const result = await societyHere([
      'openagi',
      'eval',
      '--data',
      paper,
      '--simulate',
      '--db',
      join(dir, 'paper.db'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^society: .*paper\/2\/inputs: missing \(OpenAGI's layout: <task id>\/inputs\/ and <task id>\/outputs\/\)\n$/,
    );
    rmSync(join(paper, '2'), { recursive: true });
    await makeData(join(dir, 'two'));
    cpSync(join(dir, 'two', '0'), join(paper, '2'), { recursive: true });
    const next = await societyHere([
      'openagi',
      'eval',
      '--data',
      paper,
      '--simulate',
      '--db',
      join(dir, 'paper.db'),
    ]);
    expect(next.code).toBe(2);
    expect(next.stderr).toMatch(
      /^society: .*paper\/3: missing \(task 3 is in the split; --split folder runs the task folders present\)\n$/,
    );
  });

  it('refuses a malformed folder before any run, naming the file and what is wrong', async () => {
    const bad = join(dir, 'bad');
    const cases: Array<[(root: string) => void, RegExp]> = [
      [
        (root) => rmSync(join(root, '0/inputs/image/2.jpg')),
        /^society: .*bad\/0\/inputs\/image\/2\.jpg: missing \(a picture folder holds 3 files, named 0\.jpg to 2\.jpg\)\n$/,
      ],
      [
        (root) => writeFileSync(join(root, '1/outputs/answer.txt'), '20\n21\n22\n'),
        /^society: .*bad\/1\/outputs\/answer\.txt: 3 samples, but .*bad\/1\/inputs\/image has 4\n$/,
      ],
      [
        (root) => rmSync(join(root, '1/inputs/question.txt')),
        /^society: .*bad\/1\/inputs: holds a picture folder, but task 1 \(image\+text->text\) takes a picture folder and a \.txt file\n$/,
      ],
      [
        (root) => writeFileSync(join(root, '2/inputs/text.txt'), 'one\n\nthree\nfour\n'),
        /^society: .*bad\/2\/inputs\/text\.txt: line 2 is empty \(one sample per line, none blank\)\n$/,
      ],
      [
        (root) => writeFileSync(join(root, '0/inputs/image/1.jpg'), 'not a picture'),
        /^society: .*bad\/0\/inputs\/image\/1\.jpg: not a JPEG picture\n$/,
      ],
    ];
    for (const [spoil, line] of cases) {
      rmSync(bad, { recursive: true, force: true });
      await makeData(bad);
      spoil(bad);
      const db = join(dir, 'bad.db');
      const result = await societyHere([
        'openagi',
        'eval',
        '--data',
        bad,
        '--split',
        'folder',
        '--simulate',
        '--db',
        db,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(line);
      expect(result.stdout).toBe('');
    }
  });

  const zeroShot = (db: string, extra: string[] = []) =>
    societyHere([
      'openagi',
      'eval',
      '--data',
      join(dir, 'data'),
      '--split',
      'folder',
      '--samples',
      '1',
      '--model',
      'openai:gpt-3.5-turbo',
      '--planner',
      'paper-zero-shot',
      '--provider',
      `openai=${llm.url}`,
      '--provider',
      `hf-inference=${hf.url},kind=huggingface`,
      '--concurrency',
      '1',
      '--json',
      '-q',
      '--db',
      db,
      ...extra,
    ]);

  it('paper-zero-shot sends no model list, asks once per item, and scores an invalid plan 0', async () => {
    plannerText = 'I would look at the picture closely and think it over.';
    const db = join(dir, 'zero.db');
    const before = llm.count();
    const result = await zeroShot(db);
    expect(result.code, result.stderr).toBe(0);
    // One request per item: no retry, no repair.
    const sent = llm.requests.slice(before);
    expect(sent).toHaveLength(3);
    for (const body of sent) {
      const wire = JSON.stringify(body).toLowerCase();
      for (const m of openAgiModules()) {
        expect(wire).not.toContain(m.title.toLowerCase());
        expect(wire).not.toContain(m.id);
      }
      expect(body.response_format).toBeUndefined();
    }
    // Nothing mapped, so no embedding, no expert and no metric was asked for.
    expect(hf.requests).toHaveLength(0);
    const json = JSON.parse(result.stdout);
    expect(json.variants[0]).toMatchObject({ n: 3, failed: 0 });
    expect(json.variants[0].score.mean).toBe(0);
    expect(json.paperColumn).toBe('GPT-3.5-turbo zero-shot');
    const reason =
      'invalid plan (paper-zero-shot, no retry): the answer has no line beginning with "Step"';
    expect(json.table1ByPlanner[0].invalidPlans).toHaveLength(3);
    expect(json.table1ByPlanner[0].invalidPlans[0].reason).toBe(reason);

    // The same command resumes: nothing is asked again, and the reasons are read from the runs.
    const again = await zeroShot(db);
    expect(llm.count()).toBe(before + 3);
    expect(JSON.parse(again.stdout).table1ByPlanner[0].invalidPlans[2].reason).toBe(reason);
  });

  it("paper-zero-shot maps the model's steps to modules by sentence similarity and runs the plan", async () => {
    plannerText =
      'Sure.\nStep 1: fill in the mask\nStep 2: translation into German (machine translation)';
    const db = join(dir, 'mapped.db');
    const before = hf.requests.length;
    const result = await zeroShot(db, ['--ids', '2']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.variants[0]).toMatchObject({ n: 1, failed: 0 });
    expect(json.table1ByPlanner[0].invalidPlans).toEqual([]);
    const texts = hf.requests
      .slice(before)
      .map((r) => String((r.json as { inputs?: unknown }).inputs));
    // The 15 module names and the 2 steps embedded, then the plan's two experts ran.
    for (const m of openAgiModules()) expect(texts).toContain(m.title);
    expect(texts.filter((t) => t.startsWith('Step'))).toHaveLength(2);
    expect(texts.filter((t) => t.includes('[MASK]'))).toHaveLength(1);
    // The run keeps how the steps were mapped, and with which model.
    const store = openRunStore(db);
    const run = store.getRun(store.evalItems(json.evalId)[0]!.runId!);
    store.close();
    const plan = run?.outputs?.plan as {
      mapping: { model: string; steps: Array<{ module: string }> };
    };
    expect(plan.mapping.model).toBe('sentence-transformers/all-MiniLM-L6-v2');
    expect(plan.mapping.steps.map((m) => m.module)).toEqual(['fill-mask', 'machine-translation']);
    expect(json.variants[0].score.mean).toBeGreaterThan(0);
  });
});
