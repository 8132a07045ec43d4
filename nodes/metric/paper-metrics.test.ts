/**
 * The papers' metrics as their code computes them: BERTScore F1 (the `bert_score` package, as
 * OpenAGI calls it) and OpenAGI's ViT distance, scored in whole runs against fixed token vectors
 * and hidden states served by a local server speaking the Hugging Face protocol, and checked
 * against the same formulas written out again here; and the definition every score carries.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { societyHere } from '../../tests/support/cli.ts';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
} from '../../tests/support/stub-hf.ts';
import { bertScore, idfDictionary, markerWeights } from './bertscore.ts';
import { db, dir, testPngs } from './metric.test-helper.ts';
import { vitDistance } from './vit-distance.ts';

/** Fixed pseudo-random numbers in [-1, 1) (a linear congruential generator), so runs repeat. */
function numbers(seed: number, count: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state / 2147483648) * 2 - 1;
  });
}
function rows(seed: number, count: number, width: number): number[][] {
  const flat = numbers(seed, count * width);
  return Array.from({ length: count }, (_, i) => flat.slice(i * width, (i + 1) * width));
}

// --- The formulas again, written from the paper and the package, not from our modules. ---

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const unit = (v: number[]) => v.map((x) => x / Math.sqrt(dot(v, v)));

/** BERTScore P, R, F1 with token weights w (markers included, as the package weighs them). */
function paperBertScore(cand: number[][], ref: number[][], wc: number[], wr: number[]) {
  const c = cand.map(unit);
  const r = ref.map(unit);
  const sim = c.map((x) => r.map((y) => dot(x, y)));
  let p = 0;
  wc.forEach((w, i) => {
    p += (w * Math.max(...sim[i]!)) / wc.reduce((s, x) => s + x, 0);
  });
  let rec = 0;
  wr.forEach((w, j) => {
    rec += (w * Math.max(...sim.map((row) => row[j]!))) / wr.reduce((s, x) => s + x, 0);
  });
  return { p, r: rec, f: (2 * p * rec) / (p + rec) };
}

/** bert_score/rescale_baseline/en/microsoft/deberta-xlarge-mnli.tsv, the row of layer 40. */
const BASELINE_40 = { p: 0.5169066, r: 0.5170288, f: 0.5150192 };

/** ‖A − B‖_F / 100 (OpenAGI: np.linalg.norm(emb1[i] - emb2[i], ord='fro'), then dist/100). */
function paperVitDistance(a: number[][], b: number[][]): number {
  const squares = a.flatMap((row, i) => row.map((x, j) => (x - b[i]![j]!) ** 2));
  return Math.sqrt(squares.reduce((s, x) => s + x, 0)) / 100;
}

// --- What the stub serves. ---

const PREDICTION = 'the cat sat on the mat';
const REFERENCE = 'a cat was sitting on a mat';
/** Token vectors, [CLS] and [SEP] first and last as DeBERTa's tokenizer adds them. */
const TOKENS: Record<string, number[][]> = {
  [PREDICTION]: rows(7, 8, 16),
  [REFERENCE]: rows(11, 9, 16),
};
// Some tokens nearly agree, so matching has something to find.
TOKENS[REFERENCE]![2] = TOKENS[PREDICTION]![2]!.map((x, i) => x + (i % 3) * 0.05);
TOKENS[REFERENCE]![6] = TOKENS[PREDICTION]![5]!.map((x) => x * 0.9);
/** Hidden states of `nateraw/vit-base-beans` for the two pictures: 197 tokens × 24 numbers. */
let STATES: [number[][], number[][]];

let stub: StubHf;
let png: Buffer;
let otherPng: Buffer;
let pngFile: string;
let otherFile: string;

function serve(request: StubHfRequest): StubHfReply {
  if (request.headers['content-type'] === 'image/png') {
    return { body: [request.body.equals(png) ? STATES[0] : STATES[1]] };
  }
  const text = (request.json as { inputs?: string } | undefined)?.inputs ?? '';
  // A server that pools for itself: one vector for the whole text.
  if (text === 'pooled') return { body: [0.1, 0.2, 0.3] };
  const tokens = TOKENS[text];
  return tokens ? { body: [tokens] } : { status: 400, body: { error: `unknown text "${text}"` } };
}

beforeAll(async () => {
  [png, otherPng] = await testPngs();
  STATES = [rows(3, 197, 24), rows(5, 197, 24)];
  pngFile = join(dir, 'paper-red.png');
  otherFile = join(dir, 'paper-blue.png');
  writeFileSync(pngFile, png);
  writeFileSync(otherFile, otherPng);
  stub = await startStubHuggingFace({ respond: serve });
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
});

/** A graph: inputs → one metric node → its score, report and definition. */
function metricGraph(name: string, inputs: Array<[string, string]>, data: object): string {
  const outputs = ['score', 'report', 'definition'];
  const doc = {
    version: 1,
    name,
    nodes: [
      ...inputs.map(([input, modality], i) => ({
        id: `in_${input}`,
        type: 'input',
        position: { x: 0, y: i * 120 },
        data: { name: input, modality },
      })),
      { id: 'metric', type: 'metric', position: { x: 250, y: 0 }, data },
      ...outputs.map((output, i) => ({
        id: output,
        type: 'output',
        position: { x: 500, y: i * 120 },
        data: { name: output },
      })),
    ],
    edges: [
      ...inputs.map(([input]) => ({
        id: `e_${input}`,
        source: `in_${input}`,
        sourceHandle: 'value',
        target: 'metric',
        targetHandle: input,
      })),
      ...outputs.map((output) => ({
        id: `e_${output}`,
        source: 'metric',
        sourceHandle: output,
        target: output,
        targetHandle: 'value',
      })),
    ],
  };
  const file = join(dir, `${name}.society.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

async function run(graph: string, inputs: string[]) {
  const result = await societyHere([
    'run',
    graph,
    ...inputs.flatMap((i) => ['--input', i]),
    '--provider',
    `hf-inference=${stub.url}/models/{model},kind=huggingface`,
    '--db',
    db,
    '--json',
    '-q',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).outputs;
}

const TEXT_INPUTS: Array<[string, string]> = [
  ['prediction', 'text'],
  ['reference', 'text'],
];
const TEXTS = [`prediction=${PREDICTION}`, `reference=${REFERENCE}`];

describe('BERTScore as bert_score computes it', () => {
  it('scores F1 over served token vectors as the package does, OpenAGI settings by default', async () => {
    const graph = metricGraph('bertscore-default', TEXT_INPUTS, { kind: 'bertscore' });
    const { score, report, definition } = await run(graph, TEXTS);
    const cand = TOKENS[PREDICTION]!;
    const ref = TOKENS[REFERENCE]!;
    // No idf: every token weighs 1, [CLS] and [SEP] 0 (they still take part in the matching).
    const w = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 || i === n - 1 ? 0 : 1));
    const expected = paperBertScore(cand, ref, w(cand.length), w(ref.length));
    expect(Math.abs(score - expected.f)).toBeLessThan(1e-6);
    expect(Math.abs(report.precision - expected.p)).toBeLessThan(1e-6);
    expect(Math.abs(report.recall - expected.r)).toBeLessThan(1e-6);
    // Both requests name OpenAGI's model and ask every token's vector.
    expect(stub.requests.map((r) => r.model)).toEqual([
      'microsoft/deberta-xlarge-mnli',
      'microsoft/deberta-xlarge-mnli',
    ]);
    expect(stub.requests.map((r) => r.json)).toEqual([
      { inputs: PREDICTION },
      { inputs: REFERENCE },
    ]);
    expect(definition).toEqual({
      kind: 'bertscore',
      name: 'BERTScore F1',
      model: 'microsoft/deberta-xlarge-mnli',
      settings: {
        layer: 40,
        idf: false,
        rescaleWithBaseline: false,
        baselineF1: null,
        markers: 'matched, weight 0',
      },
      better: 'higher',
    });
    expect(report.definition).toEqual(definition);
  });

  it('rescales with the published layer-40 baseline and weighs tokens by a given idf', async () => {
    const graph = metricGraph('bertscore-idf-rescaled', [...TEXT_INPUTS, ['idf', 'json']], {
      kind: 'bertscore',
      idf: true,
      rescaleWithBaseline: true,
    });
    // Token ids of the reference texts (markers 1 and 2), and of the prediction.
    const corpus = [
      [1, 30, 31, 32, 33, 34, 30, 35, 2],
      [1, 31, 40, 41, 2],
      [1, 50, 35, 2],
    ];
    const predictionIds = [1, 60, 31, 61, 34, 60, 35, 2];
    // idf by its definition: log((M + 1) / (df + 1)), df counted once per text.
    const idf = (id: number) =>
      Math.log((corpus.length + 1) / (corpus.filter((ids) => ids.includes(id)).length + 1));
    const weights = { prediction: predictionIds.map(idf), reference: corpus[0]!.map(idf) };
    expect(weights.prediction[0]).toBe(0); // the markers are in every text
    const { score, report, definition } = await run(graph, [
      ...TEXTS,
      `idf=${JSON.stringify(weights)}`,
    ]);
    const raw = paperBertScore(
      TOKENS[PREDICTION]!,
      TOKENS[REFERENCE]!,
      weights.prediction,
      weights.reference,
    );
    const f = (raw.f - BASELINE_40.f) / (1 - BASELINE_40.f);
    expect(Math.abs(score - f)).toBeLessThan(1e-6);
    expect(Math.abs(report.precision - (raw.p - BASELINE_40.p) / (1 - BASELINE_40.p))).toBeLessThan(
      1e-6,
    );
    expect(Math.abs(report.unscaled.f1 - raw.f)).toBeLessThan(1e-6);
    expect(definition.settings).toMatchObject({ idf: true, rescaleWithBaseline: true });
    expect(definition.settings.baselineF1).toBe(BASELINE_40.f);
    // The module's own idf table agrees with the definition above.
    const table = idfDictionary(corpus);
    expect(predictionIds.map(table)).toEqual(weights.prediction);
  });

  it('refuses a rescale without a published baseline, and a pooled answer, in one line', async () => {
    const graph = metricGraph('bertscore-layer-12', TEXT_INPUTS, {
      kind: 'bertscore',
      layer: 12,
      rescaleWithBaseline: true,
    });
    const result = await societyHere([
      'run',
      graph,
      ...TEXTS.flatMap((i) => ['--input', i]),
      '--provider',
      `hf-inference=${stub.url}/models/{model},kind=huggingface`,
      '--db',
      db,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'no published baseline for microsoft/deberta-xlarge-mnli at layer 12',
    );
    expect(stub.requests).toHaveLength(0);

    const pooled = await societyHere([
      'run',
      metricGraph('bertscore-pooled', TEXT_INPUTS, { kind: 'bertscore' }),
      '--input',
      'prediction=pooled',
      '--input',
      'reference=pooled',
      '--provider',
      `hf-inference=${stub.url}/models/{model},kind=huggingface`,
      '--db',
      db,
    ]);
    expect(pooled.code).toBe(1);
    expect(pooled.stderr).toContain('BERTScore needs one vector per token');
  });

  it('scores an empty text 0 and an identical text 1, as the package does', () => {
    const tokens = TOKENS[PREDICTION]!;
    expect(bertScore(tokens, tokens).f1).toBeCloseTo(1, 12);
    expect(bertScore([tokens[0]!, tokens[7]!], tokens)).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(markerWeights(4)).toEqual([0, 1, 1, 0]);
  });
});

describe("OpenAGI's ViT distance", () => {
  it('is the Frobenius norm of the hidden states’ difference over 100, lower is better', async () => {
    const graph = metricGraph(
      'vit-distance',
      [
        ['prediction', 'image'],
        ['reference', 'image'],
      ],
      { kind: 'vit-distance' },
    );
    const { score, report, definition } = await run(graph, [
      `prediction=@${pngFile}`,
      `reference=@${otherFile}`,
    ]);
    const expected = paperVitDistance(STATES[0], STATES[1]);
    expect(expected).toBeGreaterThan(0);
    expect(Math.abs(score - expected)).toBeLessThan(1e-6);
    expect(report).toMatchObject({
      method: 'vit-frobenius-distance',
      direction: 'lower-is-better',
      tokens: { prediction: 197, reference: 197 },
    });
    expect(stub.requests.map((r) => r.model)).toEqual([
      'nateraw/vit-base-beans',
      'nateraw/vit-base-beans',
    ]);
    expect(definition).toMatchObject({
      kind: 'vit-distance',
      model: 'nateraw/vit-base-beans',
      settings: { divisor: 100 },
      better: 'lower',
    });
    // The same picture is at distance 0.
    expect(vitDistance(STATES[0], STATES[0])).toBe(0);
  });
});

describe('every score says which definition produced it', () => {
  it('a simulated run of each kind reports its definition beside the score', async () => {
    const cases: Array<[object, Array<[string, string]>, string[], string]> = [
      [{ kind: 'text-similarity' }, TEXT_INPUTS, TEXTS, 'text embedding cosine similarity'],
      [
        { kind: 'clip-score' },
        [
          ['image', 'image'],
          ['text', 'text'],
        ],
        [`image=@${pngFile}`, 'text=a red square'],
        'CLIP score / 100',
      ],
      [
        { kind: 'vit-distance' },
        [
          ['prediction', 'image'],
          ['reference', 'image'],
        ],
        [`prediction=@${pngFile}`, `reference=@${pngFile}`],
        'ViT hidden-state distance (OpenAGI)',
      ],
    ];
    for (const [data, inputs, values, name] of cases) {
      const graph = metricGraph(`definition-${name.replace(/\W+/g, '-')}`, inputs, data);
      const result = await societyHere([
        'run',
        graph,
        '--simulate',
        ...values.flatMap((i) => ['--input', i]),
        '--db',
        db,
        '--json',
        '-q',
      ]);
      expect(result.code, result.stderr).toBe(0);
      const { score, definition } = JSON.parse(result.stdout).outputs;
      expect(typeof score).toBe('number');
      expect(definition.name).toBe(name);
      expect(definition.kind).toBe((data as { kind: string }).kind);
      expect(['higher', 'lower']).toContain(definition.better);
    }
    expect(stub.requests).toHaveLength(0);
  });
});
