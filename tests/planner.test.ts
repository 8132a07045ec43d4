/**
 * The auto-plan template end to end: a stub language model (OpenAI protocol) proposes plans,
 * a stub Hugging Face endpoint runs the experts, both over real HTTP. The planner must repair
 * a broken plan, run the valid one as a graph whose nodes show in the run's events, and fail
 * clearly when the model never gets it right.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { societyInProcess } from './support/cli.ts';
import { type StubHf, type StubHfRequest, startStubHuggingFace } from './support/stub-hf.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-planner-'));
const db = join(dir, 'runs.db');
const BROKEN = {
  branches: [],
  chain: ['image-captioning', 'image-deblurring', 'machine-translation'],
};
const VALID = {
  branches: [['image-denoising', 'image-deblurring', 'colorization']],
  chain: ['visual-question-answering', 'machine-translation'],
};

let hf: StubHf;
let llm: StubOpenAI;
let photo: string;
/** What the stub model answers, in order; the last one repeats. */
let plans: string[] = [];

function expert(request: StubHfRequest) {
  const body = request.json as { inputs?: unknown; parameters?: { prompt?: string } };
  if (body.parameters?.prompt) return { body: painted, headers: { 'content-type': 'image/png' } };
  if (typeof body.inputs === 'object' && body.inputs && 'question' in body.inputs) {
    return { body: [{ answer: '22', score: 0.9 }] };
  }
  return { body: [{ translation_text: `DE: ${String(body.inputs)}` }] };
}
let painted: Buffer;

const args = (extra: string[] = []) => [
  'run',
  'templates/openagi-auto-plan.society.json',
  '--input',
  `image=@${photo}`,
  '--input',
  'question=What number is on the jersey?',
  '--provider',
  `openai=${llm.url}`,
  '--provider',
  `hf-inference=${hf.url},kind=huggingface`,
  '--db',
  db,
  '--json',
  '-q',
  ...extra,
];

beforeAll(async () => {
  painted = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#2a6' } })
    .png()
    .toBuffer();
  photo = join(dir, 'photo.png');
  writeFileSync(
    photo,
    await sharp({ create: { width: 32, height: 24, channels: 3, background: '#666' } })
      .png()
      .toBuffer(),
  );
  hf = await startStubHuggingFace({ respond: expert });
  llm = await startStubOpenAI({
    respond: (_body: StubRequestBody, ctx) => ({
      text: plans[Math.min(ctx.index, plans.length - 1)]!,
      usage: { prompt_tokens: 300, completion_tokens: 30 },
    }),
  });
});
afterAll(async () => {
  await hf.close();
  await llm.close();
});

describe('the planner', () => {
  it('repairs a broken plan, then runs the valid one as a graph in the run', async () => {
    plans = [
      `Here is my plan: ${JSON.stringify(BROKEN)}`,
      `\`\`\`json\n${JSON.stringify(VALID)}\n\`\`\``,
    ];
    const before = llm.requests.length;
    const events = join(dir, 'repair.ndjson');
    const cassette = join(dir, 'repair.cassette.json');
    const result = await societyInProcess(args(['--events', events, '--record', cassette]));
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.outputs.answer).toBe('DE: 22');

    // Two plans asked for: the second request carries the first answer and what was wrong.
    const asked = llm.requests.slice(before);
    expect(asked).toHaveLength(2);
    expect(asked[0]!.response_format.json_schema.schema.properties.chain.items.enum).toHaveLength(
      15,
    );
    const repair = asked[1]!.messages.at(-1).content as string;
    expect(repair).toContain(
      'type mismatch: image_captioning.text gives text but image_deblurring.image takes image',
    );
    expect(repair).toContain('the task input question is never used');
    expect(asked[1]!.messages.at(-2)).toMatchObject({ role: 'assistant' });

    const plan = out.outputs.plan;
    expect(plan.text).toBe(
      'Image Denoising, Image Deblurring, Colorization, Visual Question Answering, Machine Translation',
    );
    expect(plan.attempts.map((a: { problems: string[] }) => a.problems.length)).toEqual([3, 0]);
    // The accepted plan is an ordinary graph: it compiles on its own.
    expect((await compileGraph(plan.document)).ok).toBe(true);

    const log = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.find((e) => e.type === 'subgraph.started')).toMatchObject({
      instance: 'planner',
      prefix: 'planner/',
    });
    const planNodes = log
      .filter((e) => e.type === 'node.finished' && e.instance.startsWith('planner/'))
      .map((e) => e.instance);
    expect(planNodes).toEqual(
      expect.arrayContaining([
        'planner/image_denoising',
        'planner/image_deblurring',
        'planner/colorization',
        'planner/visual_question_answering',
        'planner/machine_translation',
      ]),
    );
    const vqa = log.find(
      (e) => e.type === 'node.finished' && e.instance === 'planner/visual_question_answering',
    );
    expect(vqa.outputs).toEqual({ text: '22' });

    // Replayed from the cassette: same answer, no server asked.
    const served = [llm.requests.length, hf.requests.length];
    const replay = await societyInProcess([...args(), '--replay', cassette]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs.answer).toBe('DE: 22');
    expect([llm.requests.length, hf.requests.length]).toEqual(served);
  });

  it('maps free text to the experts, as OpenAGI maps generated steps to module names', async () => {
    plans = [
      'Step 1: Image Denoising,\nStep 2: Image Deblurring,\nStep 3: Colorization,\nStep 4: Visual Question Answering,\nStep 5: Machine Translation,',
    ];
    const result = await societyInProcess(args());
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).outputs.plan.attempts).toHaveLength(1);
  });

  it('fails clearly when no attempt gives a valid plan, and runs no expert', async () => {
    plans = [JSON.stringify(BROKEN), JSON.stringify({ chain: ['teleportation'] })];
    const experts = hf.requests.length;
    const result = await societyInProcess(args());
    expect(result.code).toBe(1);
    const out = JSON.parse(result.stdout);
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(
      /no valid plan after 3 attempts; the last one: step 1: "teleportation" is not one of the experts/,
    );
    expect(hf.requests.length).toBe(experts);
  });
});
