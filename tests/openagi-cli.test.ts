/**
 * `society openagi`: counting a task file, building one scored graph per task (every one of
 * them valid), and degrading benchmark inputs offline. The checks on OpenAGI's own 185-task file
 * need ../shared; the rest run on a small task file written here.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

const TASK_FILE = fileURLToPath(
  new URL('../../shared/external-data/openagi/task_description.txt', import.meta.url),
);
const hasOpenAgi = existsSync(TASK_FILE);
if (!hasOpenAgi) console.warn(`skipping tests on OpenAGI's task file: ${TASK_FILE} is absent`);

const dir = mkdtempSync(join(tmpdir(), 'society-openagi-'));
const db = join(dir, 'runs.db');

/** Five lines in OpenAGI's wording, one of them not a task: ids 0 to 4, 3 unreadable. */
const SMALL = [
  'Given low-resolutioned noisy blurry grayscale image, how to return the regular image step by step?',
  'Given clozed English text, how to translate the text in German step by step?',
  'Given clozed English text, how to generate a image step by step?',
  'Please paint me a picture.',
  'Given noisy grayscale image and clozed English query, how to answer the question in English step by step?',
].join('\n');
const smallFile = join(dir, 'tasks.txt');
let photo: string;

beforeAll(async () => {
  writeFileSync(smallFile, `${SMALL}\n`);
  photo = join(dir, 'photo.png');
  // A gradient, so every degradation changes something.
  const width = 48;
  const height = 32;
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    pixels[i * 3] = (i * 7) % 256;
    pixels[i * 3 + 1] = (i * 3) % 256;
    pixels[i * 3 + 2] = 200;
  }
  writeFileSync(
    photo,
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  );
});

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('society openagi tasks', () => {
  it.skipIf(!hasOpenAgi)("counts OpenAGI's 185 tasks by category", async () => {
    const result = await societyHere(['openagi', 'tasks', TASK_FILE]);
    expect(result.code, result.stderr).toBe(0);
    const counts = Object.fromEntries(
      [...result.stdout.matchAll(/^ {2}(\S+)\s+(\d+)\s+scored by (\S+)$/gm)].map((m) => [
        m[1],
        [Number(m[2]), m[3]],
      ]),
    );
    expect(counts).toEqual({
      'image->image': [15, 'vit-distance'],
      'image->text': [90, 'bertscore'],
      'text->image': [2, 'clip-score'],
      'text->text': [10, 'bertscore'],
      'image+text->text': [60, 'bertscore'],
      'text+text->text': [8, 'bertscore'],
    });
    expect(result.stdout).toContain(': 185 tasks\n');
    expect(result.stdout).not.toContain('unreadable');

    const json = await societyHere(['openagi', 'tasks', TASK_FILE, '--json']);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.total).toBe(185);
    expect(Object.values(parsed.categories)).toEqual([15, 90, 2, 10, 60, 8]);
    expect(parsed.tasks[0]).toMatchObject({ id: 0, category: 'image->image', output: 'image' });
  });

  it('lists the lines it cannot read, and still counts the rest', async () => {
    const result = await societyHere(['openagi', 'tasks', smallFile]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(': 4 tasks, 1 unreadable lines');
    expect(result.stdout).toMatch(/^ {2}image->image\s+1\s/m);
    expect(result.stdout).toMatch(/^ {2}text->image\s+1\s/m);
    expect(result.stdout).toMatch(/^ {2}text\+text->text\s+0\s/m);
    expect(result.stdout).toContain('unreadable: task 3: not "Given …, how to … step by step?"');
  });

  it('says plainly when the file is missing or holds no task (exit 2, no stack trace)', async () => {
    const missing = await societyHere(['openagi', 'tasks', join(dir, 'nope.txt')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^society: cannot read the task file .*nope\.txt \(no such file\)\n$/,
    );
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, 'nothing to see here\n');
    const none = await societyHere(['openagi', 'tasks', empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no OpenAGI task could be read');
    expect(none.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('society openagi build', () => {
  it.skipIf(!hasOpenAgi)(
    'builds a graph for each of the 185 tasks, and every one passes society validate',
    async () => {
      const out = join(dir, 'all');
      const built = await societyHere(['openagi', 'build', TASK_FILE, '--out', out]);
      expect(built.code, built.stderr).toBe(0);
      expect(built.stdout).toContain('185 graphs, rule planner');
      expect(built.stdout).toMatch(/^ {2}image\+text->text\s+60\s+scored by bertscore$/m);
      const files = readdirSync(out).filter((f) => f.endsWith('.society.json'));
      expect(files).toHaveLength(185);
      expect(files).toContain('0-return-the-regular-image.society.json');

      const validated = await societyHere(['validate', ...files.map((f) => join(out, f))]);
      expect(validated.code, validated.stdout).toBe(0);
      const lines = validated.stdout.trim().split('\n');
      expect(lines).toHaveLength(185);
      expect(lines.every((line) => /: valid \(\d+ nodes, \d+ edges\)$/.test(line))).toBe(true);

      // The metric follows the category, and no planner has a model.
      const kinds = new Map<string, number>();
      for (const file of files) {
        const doc = readJson(join(out, file));
        const kind = doc.nodes.find((n: { type: string }) => n.type === 'metric').data.kind;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        expect(doc.models).toBeUndefined();
      }
      expect(Object.fromEntries(kinds)).toEqual({
        'vit-distance': 15,
        'clip-score': 2,
        bertscore: 168,
      });
    },
  );

  it('wires inputs, a reference, the planner, its answer and the right metric', async () => {
    const out = join(dir, 'small');
    const built = await societyHere(['openagi', 'build', smallFile, '--out', out]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toContain('4 graphs');
    expect(built.stdout).toContain('skipped, unreadable: task 3');
    expect(readdirSync(out).sort()).toEqual([
      '0-return-the-regular-image.society.json',
      '1-translate-the-text-in-german.society.json',
      '2-generate-a-image.society.json',
      '4-answer-the-question-in-english.society.json',
    ]);
    const edgesOf = (doc: { edges: Array<Record<string, string>> }) =>
      doc.edges.map((e) => `${e.source}.${e.sourceHandle}->${e.target}.${e.targetHandle}`).sort();

    const vqa = readJson(join(out, '4-answer-the-question-in-english.society.json'));
    const planner = vqa.nodes.find((n: { id: string }) => n.id === 'planner');
    expect(planner.type).toBe('planner');
    expect(planner.data).toEqual({
      task: SMALL.split('\n')[4],
      inputs: [
        { name: 'image', modality: 'image', description: 'the picture' },
        { name: 'question', modality: 'text', description: 'the question about it' },
      ],
      output: 'text',
    });
    expect(vqa.nodes.find((n: { id: string }) => n.id === 'in_reference').data).toMatchObject({
      name: 'reference',
      modality: 'text',
    });
    expect(edgesOf(vqa)).toEqual([
      'in_image.value->planner.image',
      'in_question.value->planner.question',
      'in_reference.value->metric.reference',
      'metric.report->report.value',
      'metric.score->score.value',
      'planner.answer->answer.value',
      'planner.answer->metric.prediction',
    ]);
    expect(vqa.nodes.find((n: { id: string }) => n.id === 'metric').data).toEqual({
      kind: 'bertscore',
      model: 'microsoft/deberta-xlarge-mnli',
    });

    const restore = readJson(join(out, '0-return-the-regular-image.society.json'));
    expect(restore.nodes.find((n: { id: string }) => n.id === 'metric').data).toEqual({
      kind: 'vit-distance',
      model: 'nateraw/vit-base-beans',
    });
    expect(restore.nodes.find((n: { id: string }) => n.id === 'in_reference').data.modality).toBe(
      'image',
    );

    // Text to image: the CLIP score looks at the picture and the task's own text.
    const paint = readJson(join(out, '2-generate-a-image.society.json'));
    expect(paint.nodes.find((n: { id: string }) => n.id === 'metric').data.kind).toBe('clip-score');
    expect(edgesOf(paint)).toContain('planner.answer->metric.image');
    expect(edgesOf(paint)).toContain('in_text.value->metric.text');

    const validated = await societyHere(['validate', ...readdirSync(out).map((f) => join(out, f))]);
    expect(validated.code, validated.stdout).toBe(0);
  });

  it('gives the planner a model profile with --model, and picks tasks by category and id', async () => {
    const out = join(dir, 'model');
    const built = await societyHere([
      'openagi',
      'build',
      smallFile,
      '--out',
      out,
      '--model',
      'openai:gpt-4o-mini',
      '--category',
      'text->image',
    ]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toContain('1 graphs, planner model planner (openai:gpt-4o-mini)');
    const doc = readJson(join(out, '2-generate-a-image.society.json'));
    expect(doc.models).toEqual({ planner: { provider: 'openai', model: 'gpt-4o-mini' } });
    expect(doc.nodes.find((n: { id: string }) => n.id === 'planner').data.model).toBe('planner');
    const validated = await societyHere(['validate', join(out, '2-generate-a-image.society.json')]);
    expect(validated.code, validated.stdout).toBe(0);

    const named = join(dir, 'named');
    const byIds = await societyHere([
      'openagi',
      'build',
      smallFile,
      '--out',
      named,
      '--ids',
      '0,4',
      '--model',
      'fast=ollama:llama3.2',
    ]);
    expect(byIds.code, byIds.stderr).toBe(0);
    expect(readdirSync(named).sort()).toEqual([
      '0-return-the-regular-image.society.json',
      '4-answer-the-question-in-english.society.json',
    ]);
    expect(readJson(join(named, '0-return-the-regular-image.society.json')).models).toEqual({
      fast: { provider: 'ollama', model: 'llama3.2' },
    });
  });

  it('refuses unknown categories, ids and model profiles with exit 2', async () => {
    const out = join(dir, 'bad');
    const cases: Array<[string[], RegExp]> = [
      [['--category', 'image->audio'], /unknown category "image->audio"; categories: image->image/],
      [['--ids', '1,99'], /no task 99 in the file \(ids run from 0 to 4\)/],
      [['--ids', '1,two'], /--ids expects task ids/],
      [['--model', 'gpt-4o-mini'], /--model: expected PROVIDER:MODEL or NAME=PROVIDER:MODEL/],
      [['--ids', '2', '--category', 'text->text'], /no task matches/],
    ];
    for (const [flags, message] of cases) {
      const result = await societyHere(['openagi', 'build', smallFile, '--out', out, ...flags]);
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const noOut = await societyHere(['openagi', 'build', smallFile]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain("required option '--out <DIR>'");
  });

  it('builds graphs that run: simulated, the answer is scored and the score labelled', async () => {
    const out = join(dir, 'run');
    await societyHere(['openagi', 'build', smallFile, '--out', out, '--ids', '0']);
    const result = await societyHere([
      'run',
      join(out, '0-return-the-regular-image.society.json'),
      '--simulate',
      '--input',
      `image=@${photo}`,
      '--input',
      `reference=@${photo}`,
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { outputs, status } = JSON.parse(result.stdout);
    expect(status).toBe('succeeded');
    expect(outputs.answer.$image).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof outputs.score).toBe('number');
    expect(outputs.report).toMatchObject({
      kind: 'vit-distance',
      method: 'vit-frobenius-distance',
      direction: 'lower-is-better',
      simulated: true,
    });
  });
});

describe('society openagi degrade', () => {
  it('degrades an image in the order given, the same bytes for the same seed', async () => {
    const args = (seed: string, out: string) => [
      'openagi',
      'degrade',
      photo,
      '--steps',
      'low-resolution,noise,blur,grayscale',
      '--seed',
      seed,
      '--out',
      out,
    ];
    const a = join(dir, 'a.png');
    const b = join(dir, 'b.png');
    const c = join(dir, 'c.png');
    const first = await societyHere(args('7', a));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${a}: 48×32 PNG; low-resolution, noise, blur, grayscale; seed 7\n`);
    await societyHere(args('7', b));
    await societyHere(args('8', c));
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
    expect(readFileSync(a).equals(readFileSync(c))).toBe(false);
    expect(readFileSync(a).equals(readFileSync(photo))).toBe(false);
    const { data, info } = await sharp(readFileSync(a)).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([48, 32, 3]);
    // Grayscale last: every pixel has equal channels.
    for (let i = 0; i < data.length; i += 3) {
      expect(data[i]).toBe(data[i + 1]);
      expect(data[i]).toBe(data[i + 2]);
    }
  });

  it("takes the steps from a task's words, the same as naming them", async () => {
    const fromTask = join(dir, 'from-task.png');
    const named = join(dir, 'named.png');
    const words = join(dir, 'words.png');
    const picked = await societyHere([
      'openagi',
      'degrade',
      photo,
      '--from-task',
      '0',
      '--tasks',
      smallFile,
      '--seed',
      '3',
      '--out',
      fromTask,
    ]);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout).toContain('low-resolution, noise, blur, grayscale from task 0; seed 3');
    for (const [steps, out] of [
      ['low-resolution,noise,blur,grayscale', named],
      ['low-resolutioned, noisy, blurry, grayscale', words],
    ] as const) {
      const result = await societyHere([
        'openagi',
        'degrade',
        photo,
        '--steps',
        steps,
        '--seed',
        '3',
        '--out',
        out,
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(out).equals(readFileSync(fromTask))).toBe(true);
    }
    // A value after "=" changes the step: a stronger noise gives other bytes.
    const stronger = join(dir, 'stronger.png');
    await societyHere([
      'openagi',
      'degrade',
      photo,
      '--steps',
      'noise=60',
      '--seed',
      '3',
      '--out',
      stronger,
    ]);
    const plain = join(dir, 'plain-noise.png');
    await societyHere([
      'openagi',
      'degrade',
      photo,
      '--steps',
      'noise',
      '--seed',
      '3',
      '--out',
      plain,
    ]);
    expect(readFileSync(stronger).equals(readFileSync(plain))).toBe(false);
  });

  it.skipIf(!hasOpenAgi)("reads the degradations of OpenAGI's own task lines", async () => {
    const out = join(dir, 'task-0.png');
    const result = await societyHere([
      'openagi',
      'degrade',
      photo,
      '--from-task',
      '0',
      '--tasks',
      TASK_FILE,
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('low-resolution, noise, blur, grayscale from task 0');
  });

  it('says what is wrong, with exit 2 and one line', async () => {
    const out = join(dir, 'never.png');
    const cases: Array<[string[], RegExp]> = [
      [[photo, '--steps', 'fuzzy', '--out', out], /unknown degradation "fuzzy"/],
      [[photo, '--steps', 'grayscale=2', '--out', out], /grayscale takes no number/],
      [[photo, '--steps', 'noise=-1', '--out', out], /needs a non-negative number/],
      [
        [join(dir, 'none.png'), '--steps', 'noise', '--out', out],
        /cannot read the image .*none\.png \(no such file\)/,
      ],
      [
        [smallFile, '--steps', 'noise', '--out', out],
        /cannot degrade .*tasks\.txt: .*not an image/,
      ],
      [[photo, '--out', out], /needs --steps .* or --from-task N/],
      [[photo, '--steps', 'noise'], /needs --out FILE\.png/],
      [[photo, '--from-task', '1', '--out', out], /--from-task needs --tasks FILE/],
      [
        [photo, '--from-task', '0', '--steps', 'noise', '--tasks', smallFile, '--out', out],
        /either --steps or --from-task/,
      ],
      [[photo, '--from-task', '1', '--tasks', smallFile, '--out', out], /task 1 takes no image/],
      [
        [photo, '--from-task', '9', '--tasks', smallFile, '--out', out],
        /no task 9 \(ids run from 0 to 4\)/,
      ],
      [
        [photo, '--from-task', '1', '--tasks', join(dir, 'gone.txt'), '--out', out],
        /cannot read the task file/,
      ],
    ];
    // In this process: twelve refusals need not pay twelve start-ups.
    for (const [args, message] of cases) {
      const result = await societyHere(['openagi', 'degrade', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(out)).toBe(false);
  });
});
