/**
 * Whole runs of a metric node through the `society` command: scored over HTTP against a local
 * server speaking the Hugging Face protocol, recorded and replayed, simulated, and skipped when
 * no token is set.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { societyInProcess } from '../../tests/support/cli.ts';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
} from '../../tests/support/stub-hf.ts';
import { db, dir, expectedCosine, type Responder, testPngs } from './metric.test-helper.ts';

let stub: StubHf;
let responder: Responder = () => undefined;
let png: Buffer;
let otherPng: Buffer;

beforeAll(async () => {
  [png, otherPng] = await testPngs();
  stub = await startStubHuggingFace({ respond: (request) => responder(request) });
});
afterAll(() => stub.close());

/** A graph: input nodes → one metric node → score and report outputs. */
function metricGraph(kind: string, inputs: Array<[string, string]>, data = {}): string {
  const doc = {
    version: 1,
    name: `metric ${kind}`,
    nodes: [
      ...inputs.map(([name, modality], i) => ({
        id: `in_${name}`,
        type: 'input',
        position: { x: 0, y: i * 120 },
        data: { name, modality },
      })),
      { id: 'metric', type: 'metric', position: { x: 250, y: 0 }, data: { kind, ...data } },
      { id: 'score', type: 'output', position: { x: 500, y: 0 }, data: { name: 'score' } },
      { id: 'report', type: 'output', position: { x: 500, y: 120 }, data: { name: 'report' } },
    ],
    edges: [
      ...inputs.map(([name]) => ({
        id: `e_${name}`,
        source: `in_${name}`,
        sourceHandle: 'value',
        target: 'metric',
        targetHandle: name,
      })),
      {
        id: 'e_s',
        source: 'metric',
        sourceHandle: 'score',
        target: 'score',
        targetHandle: 'value',
      },
      {
        id: 'e_r',
        source: 'metric',
        sourceHandle: 'report',
        target: 'report',
        targetHandle: 'value',
      },
    ],
  };
  const file = join(dir, `${kind}-${Object.keys(data).length}.society.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

const CLS = [5, 5];
const SEP = [-3, 2];
const PREDICTION = 'a bear';
const REFERENCE = 'bear';
/** Token vectors the server "computes", markers first and last as real tokenizers add them. */
const TOKENS: Record<string, number[][]> = {
  [PREDICTION]: [CLS, [0, 1], [1, 0], SEP],
  [REFERENCE]: [CLS, [1, 0], SEP],
};
const SENTENCES: Record<string, number[]> = {
  'the cat sat': [0.2, 0.9, -0.1],
  'a cat was sitting': [0.3, 0.7, 0.2],
  'a red square': [0.6, -0.2, 0.7],
};
const IMAGE_VECTORS = (image: Buffer): number[] | undefined =>
  image.equals(png) ? [0.9, 0.1, 0.4] : image.equals(otherPng) ? [0.2, 0.8, 0.5] : undefined;

/** The stub's answers to the runs: token vectors, sentence vectors, image vectors. */
function embeddings(request: StubHfRequest): StubHfReply | undefined {
  if (request.headers['content-type'] === 'image/png') {
    const vector = IMAGE_VECTORS(request.body);
    return vector ? { body: vector } : { status: 400, body: { error: 'unknown image' } };
  }
  const text = (request.json as { inputs?: string } | undefined)?.inputs ?? '';
  if (TOKENS[text]) return { body: [TOKENS[text]] };
  if (SENTENCES[text]) return { body: SENTENCES[text] };
  return { status: 400, body: { error: `unknown text "${text}"` } };
}

describe('society run with a metric node', () => {
  let pngFile: string;
  let otherFile: string;
  const endpoint = () => `hf-inference=${stub.url},kind=huggingface`;
  beforeAll(() => {
    pngFile = join(dir, 'red.png');
    otherFile = join(dir, 'blue.png');
    writeFileSync(pngFile, png);
    writeFileSync(otherFile, otherPng);
  });
  beforeEach(() => {
    responder = embeddings;
  });
  const outputsOf = (stdout: string) => JSON.parse(stdout).outputs;

  it('text similarity over token vectors is greedy-matching F1 without the markers, and replays from its cassette', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const cassette = join(dir, 'metric.cassette.json');
    const args = [
      'run',
      graph,
      '--input',
      `prediction=${PREDICTION}`,
      '--input',
      `reference=${REFERENCE}`,
      '--db',
      db,
      '--json',
      '-q',
    ];
    const before = stub.requests.length;
    const live = await societyInProcess([...args, '--provider', endpoint(), '--record', cassette]);
    expect(live.code, live.stderr).toBe(0);
    const { score, report } = outputsOf(live.stdout);
    // Without the markers: "a bear" is [0,1],[1,0] and "bear" is [1,0]. Precision (1 + 0)/2,
    // recall 1, F1 2/3 (the markers kept would have given another number).
    expect(score).toBeCloseTo(2 / 3, 12);
    expect(report).toMatchObject({
      kind: 'text-similarity',
      method: 'bertscore-greedy-f1',
      model: 'sentence-transformers/all-MiniLM-L6-v2',
      precision: 0.5,
      recall: 1,
      tokens: { prediction: 2, reference: 1 },
    });
    expect(report.simulated).toBeUndefined();
    const sent = stub.requests.slice(before).map((r) => r.json);
    expect(sent).toEqual([{ inputs: PREDICTION }, { inputs: REFERENCE }]);

    const served = stub.requests.length;
    const replay = await societyInProcess([...args, '--replay', cassette]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(outputsOf(replay.stdout).score).toBeCloseTo(2 / 3, 12);
    expect(stub.requests.length).toBe(served);
    const recorded = JSON.parse(readFileSync(cassette, 'utf8'));
    expect(recorded.experts[0].request.parameters).toEqual({ pooling: 'none' });
  });

  it('text similarity over sentence vectors is their cosine, and says so', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const result = await societyInProcess([
      'run',
      graph,
      '--input',
      'prediction=the cat sat',
      '--input',
      'reference=a cat was sitting',
      '--provider',
      endpoint(),
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { score, report } = outputsOf(result.stdout);
    expect(score).toBeCloseTo(
      expectedCosine(SENTENCES['the cat sat']!, SENTENCES['a cat was sitting']!),
      12,
    );
    expect(report.method).toBe('sentence-cosine');
  });

  it('image similarity is the cosine of the two image embeddings', async () => {
    const graph = metricGraph('image-similarity', [
      ['prediction', 'image'],
      ['reference', 'image'],
    ]);
    const before = stub.requests.length;
    const result = await societyInProcess([
      'run',
      graph,
      '--input',
      `prediction=@${pngFile}`,
      '--input',
      `reference=@${otherFile}`,
      '--provider',
      endpoint(),
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { score, report } = outputsOf(result.stdout);
    expect(score).toBeCloseTo(expectedCosine(IMAGE_VECTORS(png)!, IMAGE_VECTORS(otherPng)!), 12);
    expect(report).toMatchObject({
      method: 'vit-cosine',
      model: 'google/vit-base-patch16-224-in21k',
    });
    const sent = stub.requests.slice(before);
    expect(sent.map((r) => r.body.equals(png) || r.body.equals(otherPng))).toEqual([true, true]);
  });

  it('CLIP score compares the picture with the text, floored at 0', async () => {
    const graph = metricGraph(
      'clip-score',
      [
        ['image', 'image'],
        ['text', 'text'],
      ],
      { model: 'openai/clip-vit-base-patch32' },
    );
    const result = await societyInProcess([
      'run',
      graph,
      '--input',
      `image=@${pngFile}`,
      '--input',
      'text=a red square',
      '--provider',
      endpoint(),
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { score, report } = outputsOf(result.stdout);
    const cos = expectedCosine(IMAGE_VECTORS(png)!, SENTENCES['a red square']!);
    expect(cos).toBeGreaterThan(0);
    expect(score).toBeCloseTo(cos, 12);
    expect(report).toMatchObject({
      kind: 'clip-score',
      method: 'clip-cosine',
      model: 'openai/clip-vit-base-patch32',
    });
  });

  it('is refused before any request with no HF_TOKEN for the hosted service', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const before = stub.requests.length;
    const result = await societyInProcess([
      'run',
      graph,
      '--input',
      'prediction=a bear',
      '--input',
      'reference=bear',
      '--db',
      db,
    ]);
    // A score is never silently missing from a run that succeeded: the run does not start.
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'society: HF_TOKEN is not set: provider "hf-inference", for node metric',
    );
    expect(stub.requests.length).toBe(before);
  });

  it('under --simulate, scores made-up vectors and labels the score simulated', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const result = await societyInProcess([
      'run',
      graph,
      '--simulate',
      '--input',
      'prediction=a big bear',
      '--input',
      'reference=a big bear',
      '--db',
      db,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('[simulated] text-similarity 1.0000');
    expect(result.stdout).toContain('"simulated": true');
  });
});
