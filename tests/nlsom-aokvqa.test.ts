/**
 * `society nlsom eval` over A-OKVQA's own JSON with a COCO folder, and NLSOM's Tables 1 and 4
 * in one table: each row beside the paper's figure, its interval and the difference.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, societyHere } from './support/cli.ts';
import { type StubHf, type StubHfRequest, startStubHuggingFace } from './support/stub-hf.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-aokvqa-'));
const db = join(dir, 'runs.db');
const PNG = join(ROOT, 'templates/nlsom-vqa.example.png');

/** An entry as A-OKVQA's file writes it. */
const entry = (imageId: number, question: string, idx = 0) => ({
  split: 'val',
  image_id: imageId,
  question_id: `q${imageId}`,
  question,
  choices: ['circle', 'square', 'star', 'line'],
  correct_choice_idx: idx,
  direct_answers: ['circle', 'circle', 'round'],
  difficult_direct_answer: false,
  rationales: ['It is round.'],
});

function aokvqaFile(name: string, entries: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(entries, null, 2));
  return file;
}

describe("A-OKVQA's JSON with a COCO folder", () => {
  it('finds photos by image_id under val2017/ or directly in the folder, and counts the missing', async () => {
    const coco = join(dir, 'coco');
    mkdirSync(join(coco, 'val2017'), { recursive: true });
    // One photo under val2017/, one directly in the folder, one absent.
    copyFileSync(PNG, join(coco, 'val2017', '000000000139.jpg'));
    copyFileSync(PNG, join(coco, '000000000285.jpg'));
    const file = aokvqaFile('aokvqa_v1p0_val.json', [
      entry(139, 'What shape is on the table?'),
      entry(285, 'What shape is the sign?', 1),
      entry(632, 'What shape is the clock?', 2),
    ]);
    const args = ['nlsom', 'eval', file, '--images', coco, '--simulate', '--set', 'rounds=1'];
    const result = await societyHere([...args, '--db', db, '-q', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ status: 'finished', items: 3, scorer: 'choice' });
    expect(json.images).toMatchObject({ found: 2, missing: 1, whenMissing: 'example-picture' });
    expect(json.accuracy[0].withPhoto.n).toBe(2);
    expect(json.accuracy[0].withoutPhoto.n).toBe(1);

    const strict = await societyHere([...args, '--require-images', '--db', db, '-q']);
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.stdout).toContain('images: 1 of 3 not found under');
    expect(strict.stdout).toContain('1 of 3 runs failed, counted as wrong');
  });

  it('refuses a malformed entry in one line naming the entry and the field (exit 2)', async () => {
    const bad = { ...entry(139, 'What shape?'), correct_choice_idx: 'a' };
    const file = aokvqaFile('bad.json', [entry(285, 'What shape?'), bad]);
    const result = await societyHere(['nlsom', 'eval', file, '--simulate', '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^society: .*bad\.json: entry 2 \(question_id "q139"\): correct_choice_idx: .+\n$/,
    );

    const outOfRange = aokvqaFile('range.json', [{ ...entry(1, 'What?'), correct_choice_idx: 7 }]);
    const range = await societyHere(['nlsom', 'eval', outOfRange, '--simulate', '--db', db]);
    expect(range.code).toBe(2);
    expect(range.stderr).toContain(
      'entry 1 (question_id "q1"): correct_choice_idx: 7 is not an index into 4 choices',
    );
  });
});

describe("NLSOM's Tables 1 and 4 in one table", () => {
  it("prints Table 4's four structures and Table 1's rounds beside the paper's figures", async () => {
    const file = aokvqaFile('two.json', [entry(1, 'What shape?'), entry(2, 'Which shape?', 3)]);
    const args = [
      ...['nlsom', 'eval', file, '--structure', 'table4', '--set', 'rounds=1,5', '--simulate'],
      ...['--concurrency', '8', '--db', db, '-q'],
    ];
    const result = await societyHere(args);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('A-OKVQA multiple-choice accuracy (NLSOM Tables 1 and 4)');
    // Ours with its interval, then the difference to the paper's figure, in points.
    const ours = String.raw`\d+\.\d\d% \[\d+\.\d\d%, \d+\.\d\d%\] n=2`;
    const row = (name: string, paper: string, where: string) =>
      new RegExp(
        String.raw`^${name}\s+${paper}\s+${ours}\s+[−+±]\d+\.\d\d pts\s+.*${where}\s+[−+±]\d+\.\d pts, p`,
        'm',
      );
    expect(out).toMatch(
      new RegExp(
        String.raw`^monarchy@1\s+55\.78%\s+${ours}\s+[−+±]\d+\.\d\d pts\s+.*Table 1 \(G,B,O,M\), 1 round\s+–$`,
        'm',
      ),
    );
    expect(out).toMatch(row('monarchy@5', '66\\.20%', 'Tables 1 and 4, 5 rounds'));
    expect(out).toMatch(row('monarchy\\+rtk@5', '64\\.23%', 'Table 4, 5 rounds'));
    expect(out).toMatch(row('monarchy\\+rtk\\+rtc@5', '63\\.15%', 'Table 4, 5 rounds'));
    expect(out).toMatch(row('democracy@5', '63\\.41%', 'Table 4, 5 rounds'));
    // Each later row against the first over the same questions: McNemar's test.
    expect(out).toMatch(/ vs monarchy@1 \(McNemar\)$/m);
    expect(out).toMatch(
      /^democracy@5\s.*Table 4, 5 rounds\s+[−+±]\d+\.\d pts, p[=<][01]\.\d{3}( \*)?$/m,
    );
    // The paper ran the rights at 5 rounds only.
    expect(out).toMatch(new RegExp(String.raw`^democracy@1\s+not in paper\s+${ours}\s+–\s`, 'm'));

    // The same eval again, as JSON: it resumes from the store, and each row carries its numbers.
    const again = await societyHere([...args, '--json']);
    const rows = JSON.parse(again.stdout).accuracy as Array<{
      structure: string;
      all: { mean: number };
      paper: unknown;
      diff: number;
      againstFirst?: unknown;
    }>;
    const democracy = rows.find((r) => r.structure === 'democracy@5')!;
    expect(democracy.paper).toEqual({ value: 0.6341, where: 'Table 4, 5 rounds' });
    expect(democracy.diff).toBeCloseTo(democracy.all.mean - 0.6341, 10);
    expect(democracy.againstFirst).toMatchObject({ row: 'monarchy@1', test: 'McNemar', n: 2 });
    expect(rows.find((r) => r.structure === 'democracy@1')!.paper).toBeNull();
  });

  it('refuses an unknown structure, and the rights with expert members', async () => {
    const file = aokvqaFile('one.json', [entry(1, 'What shape?')]);
    const bad = await societyHere(['nlsom', 'eval', file, '--structure', 'anarchy', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--structure anarchy: use monarchy, monarchy+rtk');
    const rights = await societyHere([
      ...['nlsom', 'eval', file, '--members', 'experts', '--structure', 'democracy'],
      ...['--simulate', '--db', db],
    ]);
    expect(rights.code).toBe(2);
    expect(rights.stderr).toContain('--members experts runs the monarchy only');
  });
});

describe('members as expert models (--members experts)', () => {
  let hf: StubHf;
  let openai: StubOpenAI;
  beforeAll(async () => {
    hf = await startStubHuggingFace({
      respond: (request: StubHfRequest) => ({
        body: [{ answer: `${request.model?.split('/')[0]} sees a circle`, score: 0.9 }],
      }),
    });
    openai = await startStubOpenAI({
      respond: (body) => {
        const text = JSON.stringify(body.messages);
        if (text.includes('ask the observers one new short question'))
          return { text: 'What shape is it?' };
        if (text.includes('Which option is most likely right?')) return { text: '(a)' };
        return { text: 'The observers agree it is a circle.' };
      },
    });
  });
  afterAll(async () => {
    await hf.close();
    await openai.close();
  });

  it("sends the paper's BLIP-2, OFA and mPLUG to the Hugging Face server, 3 + 4R + 2 calls a question", async () => {
    const coco = join(dir, 'coco-experts');
    mkdirSync(coco, { recursive: true });
    copyFileSync(PNG, join(coco, '000000000139.jpg'));
    const file = aokvqaFile('experts.json', [entry(139, 'What shape is on the table?')]);
    const hfBefore = hf.requests.length;
    const chatBefore = openai.count();
    const result = await societyHere([
      ...['nlsom', 'eval', file, '--images', coco, '--members', 'experts', '--set', 'rounds=2'],
      ...['--provider', `hf-inference=${hf.url}/models/{model},kind=huggingface`],
      ...['--provider', `openai=${openai.url}`, '--db', db, '-q', '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.variants[0]).toMatchObject({ name: 'monarchy', n: 1, failed: 0 });
    expect(json.accuracy[0].all.mean).toBe(1);
    const sent = hf.requests.slice(hfBefore);
    // Each member describes the photo, then answers each of the 2 rounds' questions.
    const models = sent.map((r) => r.model).sort();
    const paper = [
      'Salesforce/blip2-flan-t5-xl',
      'damo/mplug_visual-question-answering_coco_large_en',
      'damo/ofa_visual-question-answering_pretrain_large_en',
    ];
    expect(models).toEqual(paper.flatMap((m) => [m, m, m]));
    const questions = sent.map((r) => (r.json as { inputs: { question: string } }).inputs.question);
    expect(questions.filter((q) => q === 'Introduce this image in detail.')).toHaveLength(3);
    expect(questions.filter((q) => q === 'What shape is it?')).toHaveLength(6);
    // The organizer twice, the summary and the leader: 3 + 4R + 2 = 13 calls in all.
    expect(openai.count() - chatBefore).toBe(2 + 2);
    expect(json.params.monarchy).toMatchObject({ rounds: 2, blip2: paper[0] });
  });

  it('members=vision-chat: the same society with chat models answering, nothing sent to Hugging Face', async () => {
    const file = aokvqaFile('experts-chat.json', [entry(139, 'What shape is on the table?')]);
    const hfBefore = hf.requests.length;
    const chatBefore = openai.count();
    const result = await societyHere([
      ...[
        'nlsom',
        'eval',
        file,
        '--document',
        join(ROOT, 'templates/nlsom-vqa-experts.society.json'),
      ],
      ...['--set', 'rounds=2', '--set', 'members=vision-chat'],
      ...['--provider', `openai=${openai.url}`, '--db', db, '-q', '--json'],
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).variants[0]).toMatchObject({ n: 1, failed: 0 });
    expect(hf.requests.length - hfBefore).toBe(0);
    expect(openai.count() - chatBefore).toBe(3 + 4 * 2 + 2);
    // The members' 9 calls carry the photo, to the three member profiles' models.
    const sent = openai.requests.slice(chatBefore);
    const withPhoto = sent.filter((r) => JSON.stringify(r.messages).includes('image_url'));
    expect(withPhoto).toHaveLength(3 + 3 * 2);
    expect(new Set(withPhoto.map((r) => r.model))).toEqual(
      new Set(['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4.1-nano']),
    );
  });
});
