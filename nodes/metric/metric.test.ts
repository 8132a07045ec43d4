/**
 * The metric node: its arithmetic on hand-made vectors, the embedding requests it relies on
 * (token vectors from text feature extraction, image feature extraction) against a local server
 * speaking the Hugging Face protocol, and whole runs through the `society` command: scored over
 * HTTP, recorded and replayed, simulated, and skipped when no token is set.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHuggingFaceExpertProvider } from '../../app/experts/huggingface.ts';
import { SimulatedExpertProvider } from '../../app/experts/providers.ts';
import type { ExpertProvider, ExpertRequest } from '../../app/experts/types.ts';
import { ProviderError } from '../../app/providers/types.ts';
import { society } from '../../tests/support/cli.ts';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
} from '../../tests/support/stub-hf.ts';
import { clipScore, cosine, embeddingRows, greedyMatch } from './execute.ts';
import { DEFAULT_METRIC_MODELS, metricData, metricPorts } from './spec.ts';

// Assembled at run time so no key-like literal sits in the repository.
const TOKEN = ['hf', 'metric', 'test', 'token'].join('_');

const dir = mkdtempSync(join(tmpdir(), 'society-metric-'));
const db = join(dir, 'runs.db');
const signal = () => new AbortController().signal;

/** Cosine written out again here, so the end-to-end checks do not trust the code they test. */
function expectedCosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
}

describe('metric arithmetic', () => {
  it('cosine: parallel, orthogonal, opposite, 45 degrees; zero vectors score 0', () => {
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1, 12);
    expect(cosine([1, 0], [0, 3])).toBe(0);
    expect(cosine([1, -1], [-2, 2])).toBeCloseTo(-1, 12);
    expect(cosine([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    expect(() => cosine([1, 2], [1, 2, 3])).toThrow(/2 and 3 numbers/);
  });

  it('greedy matching: precision from the candidate side, recall from the reference side', () => {
    // Candidate tokens x and y against the reference token x: x matches itself (1), y finds
    // nothing (0), so precision is 1/2; the reference's x is fully matched, so recall is 1.
    const match = greedyMatch(
      [
        [1, 0],
        [0, 1],
      ],
      [[1, 0]],
    );
    expect(match.precision).toBeCloseTo(0.5, 12);
    expect(match.recall).toBeCloseTo(1, 12);
    expect(match.f1).toBeCloseTo(2 / 3, 12);

    // Every similarity is cos 45°, so precision, recall and F1 are all 1/√2.
    const diagonal = greedyMatch([[1, 0]], [[1, 1]]);
    expect(diagonal.f1).toBeCloseTo(Math.SQRT1_2, 12);

    // Same tokens in another order: greedy matching ignores order.
    const same = greedyMatch(
      [
        [1, 2],
        [3, -1],
      ],
      [
        [3, -1],
        [1, 2],
      ],
    );
    expect(same).toEqual({ precision: 1, recall: 1, f1: 1 });

    // Nothing in common: F1 is 0, not NaN.
    expect(greedyMatch([[1, 0]], [[0, 1]]).f1).toBe(0);
    expect(() => greedyMatch([], [[1]])).toThrow(/at least one token vector/);
  });

  it('CLIP score is max(100·cos, 0)/100: negative similarity counts as 0', () => {
    expect(clipScore([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(clipScore([1, 0], [-1, 0.1])).toBe(0);
  });

  it('reads embeddings as rows: a vector is one row, token vectors stay rows', () => {
    expect(embeddingRows([1, 2])).toEqual([[1, 2]]);
    expect(
      embeddingRows([
        [1, 2],
        [3, 4],
      ]),
    ).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(() => embeddingRows('text')).toThrow(/vector/);
    expect(() => embeddingRows([])).toThrow(/vector/);
  });

  it('has ports by kind and a default model for each', () => {
    const names = (kind: 'text-similarity' | 'clip-score' | 'image-similarity') =>
      metricPorts(kind).inputs.map((p) => `${p.name}:${p.modality}`);
    expect(names('text-similarity')).toEqual(['prediction:text', 'reference:text']);
    expect(names('clip-score')).toEqual(['image:image', 'text:text']);
    expect(names('image-similarity')).toEqual(['prediction:image', 'reference:image']);
    expect(metricPorts('clip-score').outputs.map((p) => p.name)).toEqual(['score', 'report']);
    expect(metricData.parse({})).toMatchObject({
      kind: 'text-similarity',
      provider: 'hf-inference',
      keepSpecialTokens: false,
    });
    expect(DEFAULT_METRIC_MODELS['text-similarity']).toBe('sentence-transformers/all-MiniLM-L6-v2');
  });
});

// ---- the embedding requests, one provider call at a time ------------------------------------

type Responder = (request: StubHfRequest) => StubHfReply | undefined;
let stub: StubHf;
let responder: Responder = () => undefined;
let png: Buffer;
let otherPng: Buffer;

beforeAll(async () => {
  png = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  otherPng = await sharp({ create: { width: 6, height: 4, channels: 3, background: '#33c' } })
    .png()
    .toBuffer();
  stub = await startStubHuggingFace({ respond: (request) => responder(request) });
});
afterAll(() => stub.close());

describe('embedding requests through the Hugging Face provider', () => {
  let provider: ExpertProvider;
  beforeEach(() => {
    stub.requests.length = 0;
    provider = createHuggingFaceExpertProvider({ id: 'hf', token: TOKEN, endpointUrl: stub.url });
  });
  const run = (request: ExpertRequest, p: ExpertProvider = provider) =>
    p.run(request, { signal: signal() });
  const failure = async (request: ExpertRequest, p: ExpertProvider = provider) => {
    const error = await run(request, p).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  };

  it('pooling "none" keeps token vectors and is never sent to the server', async () => {
    const tokens = [
      [1, 0],
      [0, 1],
      [1, 1],
    ];
    responder = () => ({ body: [tokens] });
    const request: ExpertRequest = {
      task: 'feature-extraction',
      model: 'bert-base-uncased',
      inputs: { text: 'two words' },
      parameters: { pooling: 'none', truncate: true },
    };
    expect((await run(request)).output).toEqual(tokens);
    expect(stub.requests.at(-1)!.json).toEqual({
      inputs: 'two words',
      parameters: { truncate: true },
    });
    // The default pools the same answer into one vector, as before.
    const pooled = await run({ ...request, parameters: { pooling: 'mean' } });
    const mean = pooled.output as number[];
    expect(mean).toHaveLength(2);
    for (const value of mean) expect(value).toBeCloseTo(2 / 3, 12);
    expect(stub.requests.at(-1)!.json).toEqual({ inputs: 'two words' });
  });

  it('pooling "none" gives a single vector when the server pools for itself', async () => {
    responder = () => ({ body: [0.25, -0.5, 1] });
    const result = await run({
      task: 'feature-extraction',
      model: 'sentence-transformers/all-MiniLM-L6-v2',
      inputs: { text: 'hello' },
      parameters: { pooling: 'none' },
    });
    expect(result.output).toEqual([0.25, -0.5, 1]);
  });

  it('refuses an unknown pooling before sending anything', async () => {
    const error = await failure({
      task: 'feature-extraction',
      model: 'bert-base-uncased',
      inputs: { text: 'hello' },
      parameters: { pooling: 'max' },
    });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('"pooling" must be "mean" or "none"');
    expect(stub.requests).toHaveLength(0);
  });

  it('image-feature-extraction posts the image bytes and mean-pools patch vectors', async () => {
    responder = () => ({
      body: [
        [
          [1, 2, 3],
          [3, 4, 5],
        ],
      ],
    });
    const result = await run({
      task: 'image-feature-extraction',
      model: 'google/vit-base-patch16-224-in21k',
      inputs: { image: { bytes: new Uint8Array(png), mime: 'image/png' } },
    });
    expect(result).toEqual({
      output: [2, 3, 4],
      model: 'google/vit-base-patch16-224-in21k',
      source: 'live',
    });
    const sent = stub.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.body.equals(png)).toBe(true);
    expect(sent.headers['content-type']).toBe('image/png');
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('image-feature-extraction reports a server error and a non-vector answer clearly', async () => {
    const image = { bytes: new Uint8Array(png), mime: 'image/png' };
    const request: ExpertRequest = {
      task: 'image-feature-extraction',
      model: 'm',
      inputs: { image },
    };
    responder = () => ({ status: 404, body: { error: 'Model m does not exist' } });
    const missing = await failure(request);
    expect(missing.code).toBe('model_not_found');
    responder = () => ({ body: [{ label: 'cat', score: 1 }] });
    const wrong = await failure(request);
    expect(wrong.code).toBe('bad_response');
    expect(wrong.message).toContain('one vector per patch');
    const noImage = await failure({ ...request, inputs: { image: 'plain text' } });
    expect(noImage.code).toBe('invalid_request');
  });

  it('on the hosted service, goes to hf-inference once the Hub says it serves the model for the task', async () => {
    const seen: string[] = [];
    const hub =
      (task: string): typeof fetch =>
      async (input) => {
        const url = String(input);
        seen.push(url);
        if (url.includes('/api/models/')) {
          const model = decodeURIComponent(/\/api\/models\/(.+?)\?/.exec(url)![1]!);
          return Response.json({
            inferenceProviderMapping: {
              'hf-inference': { providerId: model, status: 'live', task },
            },
          });
        }
        return Response.json([0.5, 0.5]);
      };
    const hosted = createHuggingFaceExpertProvider({
      id: 'hf-inference',
      token: TOKEN,
      fetch: hub('image-feature-extraction'),
    });
    const image = { bytes: new Uint8Array(png), mime: 'image/png' };
    const result = await run(
      { task: 'image-feature-extraction', model: 'test-org/vit-served', inputs: { image } },
      hosted,
    );
    expect(result.output).toEqual([0.5, 0.5]);
    expect(seen.at(-1)).toBe(
      'https://router.huggingface.co/hf-inference/models/test-org/vit-served',
    );

    const mismatched = createHuggingFaceExpertProvider({
      id: 'hf-inference',
      token: TOKEN,
      fetch: hub('image-classification'),
    });
    const error = await failure(
      { task: 'image-feature-extraction', model: 'test-org/vit-classifier', inputs: { image } },
      mismatched,
    );
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('not supported for task image-feature-extraction');

    const otherProvider = createHuggingFaceExpertProvider({
      id: 'hf',
      token: TOKEN,
      inferenceProvider: 'fal-ai',
      fetch: hub('image-feature-extraction'),
    });
    const unsupported = await failure(
      { task: 'image-feature-extraction', model: 'test-org/vit-served', inputs: { image } },
      otherProvider,
    );
    expect(unsupported.code).toBe('unsupported_task');
  });

  it('the simulator makes up the same vectors for the same request, per word when asked', async () => {
    const simulator = new SimulatedExpertProvider();
    const image = { bytes: new Uint8Array(png), mime: 'image/png' };
    const request: ExpertRequest = {
      task: 'image-feature-extraction',
      model: 'm',
      inputs: { image },
    };
    const first = await run(request, simulator);
    expect(first.simulated).toBe(true);
    expect(first.output).toHaveLength(8);
    expect((await run(request, simulator)).output).toEqual(first.output);
    const other = await run(
      { ...request, inputs: { image: { bytes: new Uint8Array(otherPng), mime: 'image/png' } } },
      simulator,
    );
    expect(other.output).not.toEqual(first.output);

    const words = (text: string) =>
      run(
        {
          task: 'feature-extraction',
          model: 'm',
          inputs: { text },
          parameters: { pooling: 'none' },
        },
        simulator,
      ).then((r) => r.output as number[][]);
    const a = await words('A big bear');
    const b = await words('big grass');
    expect(a).toHaveLength(5); // two marker vectors around three words
    expect(a[2]).toEqual(b[1]); // "big" is the same vector in both texts
    const pooled = await run(
      { task: 'feature-extraction', model: 'm', inputs: { text: 'x' } },
      simulator,
    );
    expect(pooled.output).toHaveLength(8);
  });
});

// ---- whole runs through the CLI ------------------------------------------------------------

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
    const live = await society([...args, '--provider', endpoint(), '--record', cassette]);
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
    const replay = await society([...args, '--replay', cassette]);
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
    const result = await society([
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
    const result = await society([
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
    const result = await society([
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

  it('is skipped, not failed, with no HF_TOKEN for the hosted service', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const before = stub.requests.length;
    const result = await society([
      'run',
      graph,
      '--input',
      'prediction=a bear',
      '--input',
      'reference=bear',
      '--db',
      db,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('score: null');
    expect(result.stderr).toContain('metric skipped: HF_TOKEN is not set');
    expect(stub.requests.length).toBe(before);

    const json = await society([
      'run',
      graph,
      '--input',
      'prediction=a bear',
      '--input',
      'reference=bear',
      '--db',
      db,
      '--json',
      '-q',
    ]);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out.status).toBe('succeeded');
    expect(out.outputs.score).toBeNull();
    expect(out.outputs.report).toMatchObject({ score: null, method: null });
    expect(out.outputs.report.skipped).toMatch(/^HF_TOKEN is not set/);
  });

  it('under --simulate, scores made-up vectors and labels the score simulated', async () => {
    const graph = metricGraph('text-similarity', [
      ['prediction', 'text'],
      ['reference', 'text'],
    ]);
    const result = await society([
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
