/**
 * The OpenAGI templates run end to end through `society run`: against a local server speaking
 * the Hugging Face inference protocol over real HTTP (the real @huggingface/inference client
 * on our side), recorded into a cassette, replayed from it with no server, and simulated.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';
import { type StubHf, type StubHfRequest, startStubHuggingFace } from './support/stub-hf.ts';
import { startStubOpenAI } from './support/stub-openai.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-experts-'));
const db = join(dir, 'runs.db');
const SENTENCE = 'A big burly grizzly bear is show [MASK] grass in the background.';
const FILLED = 'a big burly grizzly bear is show in grass in the background.';
const GERMAN = 'Ein großer kräftiger Grizzlybär ist im Gras im Hintergrund zu sehen.';

let stub: StubHf;
let painted: Buffer;
let photo: string;

/** What the stub answers, told apart by the body the client sent. */
function answer(request: StubHfRequest) {
  const body = request.json as { inputs?: unknown; parameters?: { prompt?: string } } | undefined;
  if (body && typeof body.inputs === 'string' && body.parameters?.prompt) {
    return { body: painted, headers: { 'content-type': 'image/png' } }; // image-to-image
  }
  if (body && typeof body.inputs === 'object' && body.inputs && 'question' in body.inputs) {
    return { body: [{ answer: '22', score: 0.93 }] }; // visual question answering
  }
  if (typeof body?.inputs === 'string' && body.inputs.includes('[MASK]')) {
    return {
      body: [
        { sequence: FILLED, score: 0.41, token: 1999, token_str: 'in' },
        {
          sequence: 'a big burly grizzly bear is show on grass in the background.',
          score: 0.2,
          token: 2006,
          token_str: 'on',
        },
      ],
    };
  }
  if (typeof body?.inputs === 'string') {
    const german = body.inputs === FILLED ? GERMAN : `DE: ${body.inputs}`;
    return { body: [{ translation_text: german }] };
  }
  return { status: 400, body: { error: `the stub does not know this request: ${request.path}` } };
}

const endpoint = () => `hf-inference=${stub.url},kind=huggingface`;

beforeAll(async () => {
  painted = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3a7' } })
    .png()
    .toBuffer();
  photo = join(dir, 'jersey.png');
  writeFileSync(
    photo,
    await sharp({ create: { width: 40, height: 30, channels: 3, background: '#777' } })
      .png()
      .toBuffer(),
  );
  stub = await startStubHuggingFace({ respond: answer });
});
afterAll(() => stub.close());

describe('OpenAGI templates against a Hugging Face endpoint', () => {
  it('fills the mask and translates, over HTTP, and records a cassette that replays with no server', async () => {
    const cassette = join(dir, 'clozed.cassette.json');
    const args = [
      'run',
      'templates/openagi-clozed-translation.society.json',
      '--input',
      `text=${SENTENCE}`,
      '--db',
      db,
      '--json',
      '-q',
    ];
    const before = stub.requests.length;
    // Redirected without kind=: hf-inference stays an expert provider.
    const live = await societyHere(
      [...args, '--provider', `hf-inference=${stub.url}`, '--record', cassette],
      {},
    );
    expect(live.stderr).toBe('');
    expect(live.code).toBe(0);
    expect(JSON.parse(live.stdout).outputs).toEqual({ answer: GERMAN });
    const sent = stub.requests.slice(before);
    expect(sent.map((r) => r.json)).toEqual([{ inputs: SENTENCE }, { inputs: FILLED }]);
    expect(sent.every((r) => r.headers.authorization === undefined)).toBe(true);

    const recorded = JSON.parse(readFileSync(cassette, 'utf8'));
    expect(
      recorded.experts.map((e: { request: { task: string } }) => e.request.task).sort(),
    ).toEqual(['fill-mask', 'translation']);
    const served = stub.requests.length;
    const replay = await societyHere([...args, '--replay', cassette], {});
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).outputs).toEqual({ answer: GERMAN });
    expect(stub.requests.length).toBe(served);
  });

  it('restores the picture locally, paints it remotely, answers and translates; the cassette keeps the painted bytes', async () => {
    const cassette = join(dir, 'vqa.cassette.json');
    const events = join(dir, 'vqa.ndjson');
    const args = [
      'run',
      'templates/openagi-vqa-german.society.json',
      '--input',
      `image=@${photo}`,
      '--input',
      'question=What number is on the jersey?',
      '--db',
      db,
      '--json',
      '-q',
    ];
    const before = stub.requests.length;
    const token = ['hf', 'stub', 'token', 'value'].join('_');
    const live = await societyHere(
      [
        ...args,
        '--provider',
        `${endpoint()},key=HF_TOKEN`,
        '--record',
        cassette,
        '--events',
        events,
      ],
      { HF_TOKEN: token },
    );
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout).outputs).toEqual({ answer: 'DE: 22' });
    const sent = stub.requests.slice(before);
    // Denoising and deblurring are local: only colorization, VQA and translation reach the server.
    expect(sent).toHaveLength(3);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
    const vqa = sent[1]!.json as { inputs: { image: string; question: string } };
    expect(vqa.inputs.question).toBe('What number is on the jersey?');
    // The VQA model saw the picture the colorizer painted.
    expect(Buffer.from(vqa.inputs.image, 'base64').equals(painted)).toBe(true);

    const log = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const responses = log.filter((e) => e.type === 'expert.response');
    expect(responses.map((e) => `${e.node}:${e.source}`)).toEqual([
      'image_denoising:local',
      'image_deblurring:local',
      'colorization:live',
      'visual_question_answering:live',
      'machine_translation:live',
    ]);
    expect(responses[2].output.$image).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(events, 'utf8')).not.toContain(painted.toString('base64'));
    expect(readFileSync(events, 'utf8')).not.toContain(token);

    const recorded = JSON.parse(readFileSync(cassette, 'utf8'));
    expect(recorded.experts).toHaveLength(5);
    expect(Object.values(recorded.blobs).map((b) => (b as { base64: string }).base64)).toContain(
      painted.toString('base64'),
    );
    expect(readFileSync(cassette, 'utf8')).not.toContain(token);

    const served = stub.requests.length;
    const replay = await societyHere([...args, '--replay', cassette], {});
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).outputs).toEqual({ answer: 'DE: 22' });
    expect(stub.requests.length).toBe(served);
  });

  it('says which variable is missing when the hosted service is asked with no token', async () => {
    const result = await societyHere(
      [
        'run',
        'templates/openagi-clozed-translation.society.json',
        '--input',
        `text=${SENTENCE}`,
        '--db',
        db,
      ],
      {},
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('HF_TOKEN is not set');
  });
});

describe('OpenAGI templates, simulated', () => {
  for (const [template, inputs] of [
    ['openagi-clozed-translation', [`text=${SENTENCE}`]],
    ['openagi-image-restoration', ['image=@PHOTO']],
    ['openagi-vqa-german', ['image=@PHOTO', 'question=What number is on the jersey?']],
  ] as const) {
    it(`runs ${template} with --simulate and labels what it made up`, async () => {
      const result = await societyHere(
        [
          'run',
          `templates/${template}.society.json`,
          '--simulate',
          ...inputs.flatMap((i) => ['--input', i.replace('PHOTO', photo)]),
          '--db',
          db,
          '--json',
          '-q',
        ],
        {},
      );
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.status).toBe('succeeded');
      const answer = out.outputs.answer;
      if (typeof answer === 'string') expect(answer).toMatch(/^\[simulated\]/);
      else expect(answer.$image).toMatch(/^[0-9a-f]{64}$/);
      expect(out.simulated).toBe(true);
    });
  }
});

describe('OpenAGI templates, from their cassettes', () => {
  const example = 'templates/openagi.example.png';
  for (const [template, inputs] of [
    ['openagi-clozed-translation', [`text=${SENTENCE}`]],
    ['openagi-image-restoration', [`image=@${example}`]],
    ['openagi-vqa-german', [`image=@${example}`, 'question=What number is on the jersey?']],
    ['openagi-auto-plan', [`image=@${example}`, 'question=What number is on the jersey?']],
  ] as const) {
    it(`replays ${template} with no key and no server`, async () => {
      const result = await societyHere(
        [
          'run',
          `templates/${template}.society.json`,
          '--replay',
          `templates/${template}.cassette.json`,
          ...inputs.flatMap((i) => ['--input', i]),
          '--db',
          db,
          '--json',
          '-q',
        ],
        {},
      );
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.mode).toBe('replay');
      // The cassettes were recorded from the simulator, and say so on replay.
      expect(out.simulated).toBe(true);
      expect(out.usage.expertCalls).toBeGreaterThan(0);
      const answer = out.outputs.answer;
      if (typeof answer === 'string') expect(answer).toMatch(/^\[simulated\]/);
      else expect(answer.$image).toMatch(/^[0-9a-f]{64}$/);
    });
  }
});

describe('more experts through the node', () => {
  it('captions a picture, summarizes the caption and paints it, over HTTP', async () => {
    const doc = {
      version: 1,
      name: 'caption, summarize, paint',
      nodes: [
        {
          id: 'photo',
          type: 'input',
          position: { x: 0, y: 0 },
          data: { name: 'photo', modality: 'image' },
        },
        {
          id: 'caption',
          type: 'expert',
          position: { x: 200, y: 0 },
          data: { module: 'image-captioning' },
        },
        {
          id: 'summary',
          type: 'expert',
          position: { x: 400, y: 0 },
          data: { module: 'text-summarization' },
        },
        {
          id: 'paint',
          type: 'expert',
          position: { x: 600, y: 0 },
          data: { module: 'text-to-image-generation' },
        },
        { id: 'picture', type: 'output', position: { x: 800, y: 0 }, data: { name: 'picture' } },
        { id: 'words', type: 'output', position: { x: 800, y: 100 }, data: { name: 'words' } },
      ],
      edges: [
        {
          id: 'a',
          source: 'photo',
          sourceHandle: 'value',
          target: 'caption',
          targetHandle: 'image',
        },
        {
          id: 'b',
          source: 'caption',
          sourceHandle: 'text',
          target: 'summary',
          targetHandle: 'text',
        },
        {
          id: 'c',
          source: 'summary',
          sourceHandle: 'text',
          target: 'paint',
          targetHandle: 'prompt',
        },
        {
          id: 'd',
          source: 'paint',
          sourceHandle: 'image',
          target: 'picture',
          targetHandle: 'value',
        },
        {
          id: 'e',
          source: 'summary',
          sourceHandle: 'text',
          target: 'words',
          targetHandle: 'value',
        },
      ],
    };
    const file = join(dir, 'chain.society.json');
    writeFileSync(file, JSON.stringify(doc));
    const seen: StubHfRequest[] = [];
    const own = await startStubHuggingFace({
      respond: (request) => {
        seen.push(request);
        const body = request.json as { inputs?: string } | undefined;
        if (!body)
          return { body: [{ generated_text: 'a player in a red jersey with the number 22' }] };
        if (seen.length === 2) return { body: [{ summary_text: 'a red number 22 jersey' }] };
        return { body: painted, headers: { 'content-type': 'image/png' } };
      },
    });
    try {
      const result = await societyHere(
        [
          'run',
          file,
          '--input',
          `photo=@${photo}`,
          '--provider',
          `hf-inference=${own.url},kind=huggingface`,
          '--db',
          db,
          '--json',
          '-q',
        ],
        {},
      );
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout);
      expect(out.outputs.words).toBe('a red number 22 jersey');
      expect(out.outputs.picture).toEqual({
        $image: createHash('sha256').update(painted).digest('hex'),
        mime: 'image/png',
      });
      // The caption request carried the picture's bytes; the others carried the texts.
      expect(seen[0]!.body.equals(readFileSync(photo))).toBe(true);
      expect(seen[1]!.json).toEqual({ inputs: 'a player in a red jersey with the number 22' });
      expect(seen[2]!.json).toMatchObject({ inputs: 'a red number 22 jersey' });
    } finally {
      await own.close();
    }
  });

  it('answers a visual question with a vision chat model, the picture in the message', async () => {
    const chat = await startStubOpenAI({ respond: () => ({ text: 'Twenty-two.' }) });
    const doc = {
      version: 1,
      name: 'vqa by chat',
      models: { eyes: { provider: 'lab', model: 'vision-model', vision: true } },
      nodes: [
        {
          id: 'photo',
          type: 'input',
          position: { x: 0, y: 0 },
          data: { name: 'photo', modality: 'image' },
        },
        { id: 'question', type: 'input', position: { x: 0, y: 100 }, data: { name: 'question' } },
        {
          id: 'vqa',
          type: 'expert',
          position: { x: 200, y: 0 },
          data: {
            module: 'visual-question-answering',
            backend: 'vision-chat',
            visionModel: 'eyes',
          },
        },
        { id: 'answer', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
      ],
      edges: [
        { id: 'a', source: 'photo', sourceHandle: 'value', target: 'vqa', targetHandle: 'image' },
        {
          id: 'b',
          source: 'question',
          sourceHandle: 'value',
          target: 'vqa',
          targetHandle: 'question',
        },
        { id: 'c', source: 'vqa', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
      ],
    };
    const file = join(dir, 'vqa-chat.society.json');
    writeFileSync(file, JSON.stringify(doc));
    try {
      const result = await societyHere(
        [
          'run',
          file,
          '--input',
          `photo=@${photo}`,
          '--input',
          'question=What number is on the jersey?',
          '--provider',
          `lab=${chat.url}`,
          '--db',
          db,
          '--json',
          '-q',
        ],
        {},
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).outputs.answer).toBe('Twenty-two.');
      const [request] = chat.requests;
      expect(request.model).toBe('vision-model');
      const parts = request.messages[0].content;
      expect(parts[0]).toEqual({ type: 'text', text: 'What number is on the jersey?' });
      expect(parts[1].image_url.url).toBe(
        `data:image/png;base64,${readFileSync(photo).toString('base64')}`,
      );
    } finally {
      await chat.close();
    }
  });

  it('society validate names both ports of a mismatched expert edge', async () => {
    const doc = {
      version: 1,
      name: 'mismatch',
      nodes: [
        { id: 'words', type: 'input', position: { x: 0, y: 0 }, data: { name: 'words' } },
        {
          id: 'deblur',
          type: 'expert',
          position: { x: 200, y: 0 },
          data: { module: 'image-deblurring', backend: 'local' },
        },
        { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'out' } },
      ],
      edges: [
        {
          id: 'a',
          source: 'words',
          sourceHandle: 'value',
          target: 'deblur',
          targetHandle: 'image',
        },
        { id: 'b', source: 'deblur', sourceHandle: 'image', target: 'out', targetHandle: 'value' },
      ],
    };
    const file = join(dir, 'mismatch.society.json');
    writeFileSync(file, JSON.stringify(doc));
    const result = await societyHere(['validate', file], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      'modality mismatch: words.value gives text but deblur.image takes image',
    );
  });
});

describe('audio in, text out', () => {
  it('takes a recording from the command line as a blob and transcribes it (simulated)', async () => {
    const doc = {
      version: 1,
      name: 'transcribe',
      nodes: [
        {
          id: 'rec',
          type: 'input',
          position: { x: 0, y: 0 },
          data: { name: 'rec', modality: 'audio' },
        },
        {
          id: 'asr',
          type: 'expert',
          position: { x: 200, y: 0 },
          data: { module: 'speech-recognition' },
        },
        { id: 'words', type: 'output', position: { x: 400, y: 0 }, data: { name: 'words' } },
      ],
      edges: [
        { id: 'a', source: 'rec', sourceHandle: 'value', target: 'asr', targetHandle: 'audio' },
        { id: 'b', source: 'asr', sourceHandle: 'text', target: 'words', targetHandle: 'value' },
      ],
    };
    const file = join(dir, 'transcribe.society.json');
    writeFileSync(file, JSON.stringify(doc));
    const wav = join(dir, 'hello.wav');
    writeFileSync(wav, Buffer.from('RIFF....WAVEfmt ', 'latin1'));
    const events = join(dir, 'transcribe.ndjson');
    const result = await societyHere(
      [
        'run',
        file,
        '--simulate',
        '--input',
        `rec=@${wav}`,
        '--events',
        events,
        '--db',
        db,
        '--json',
        '-q',
      ],
      {},
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).outputs.words).toBe(
      '[simulated] a transcript of the recording',
    );
    const request = readFileSync(events, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'expert.request');
    expect(request.inputs.audio).toEqual({
      $blob: createHash('sha256').update(readFileSync(wav)).digest('hex'),
      mime: 'audio/wav',
    });

    const asText = await societyHere(
      ['run', file, '--simulate', '--input', 'rec=hello', '--db', db],
      {},
    );
    expect(asText.code).toBe(2);
    expect(asText.stderr).toContain(
      'input "rec" is a recording: pass a file with --input rec=@speech.wav',
    );
  });
});
