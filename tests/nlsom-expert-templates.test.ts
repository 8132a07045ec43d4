/**
 * The NLSOM templates that use expert models (captioning, 3D design) and the egocentric
 * retrieval debates, run with their example inputs against local servers speaking the OpenAI
 * and Hugging Face protocols: the calls each protocol makes are counted on the wire.
 */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillExamples } from '../app/cli/inputs.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { BlobStore } from '../app/runtime/blobs.ts';
import { type RunResult, startRun } from '../app/runtime/engine.ts';
import { compile, registry } from './support/graphs.ts';
import { type StubHf, type StubHfRequest, startStubHuggingFace } from './support/stub-hf.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './support/stub-openai.ts';

const ENTITIES = [
  { entity_group: 'PER', score: 0.99, word: 'Marie Dubois', start: 38, end: 50 },
  { entity_group: 'LOC', score: 0.98, word: 'Lyon', start: 0, end: 4 },
];

/** What the chat stub answers, by the wording of each template's prompts. */
function chat(body: StubRequestBody): string {
  const text = JSON.stringify(body.messages);
  if (text.includes('ask the observers one new short question')) return 'Who painted the disc?';
  if (text.includes('write one fluent, logically ordered caption')) {
    return 'Marie Dubois unveils a red disc in Lyon.';
  }
  if (text.includes('write an improved prompt')) return 'a glossy red sports car, low roof';
  if (text.includes('Timestamps:')) return 'The scissors went into the drawer. Timestamps: 124, 60';
  if (text.includes('vote: list the moments')) return '124, 53';
  if (text.includes('Summarize in two or three sentences')) return 'C cooks porridge and eats it.';
  return 'The drawer at 124 s, I think.';
}

/** What the Hugging Face stub answers, by model. */
function hf(request: StubHfRequest) {
  switch (request.model) {
    case 'dslim/bert-base-NER':
      return { body: ENTITIES };
    case 'Salesforce/blip-image-captioning-large':
      return { body: [{ generated_text: 'a red box on a grey floor' }] };
    // One vector for every text and picture: cosine 1, so every CLIP score is 1.
    case 'openai/clip-vit-base-patch16':
      return { body: [0.6, 0.8] };
    case 'sentence-transformers/all-MiniLM-L6-v2':
      return { body: [1, 0] };
    default:
      return { status: 404, body: { error: `no model ${request.model}` } };
  }
}

let openai: StubOpenAI;
let hfStub: StubHf;

beforeAll(async () => {
  openai = await startStubOpenAI({ respond: (body) => ({ text: chat(body) }) });
  hfStub = await startStubHuggingFace({ respond: hf });
});
afterAll(async () => {
  await openai.close();
  await hfStub.close();
});

interface TemplateRun {
  result: RunResult;
  chatCalls: number;
  hfRequests: StubHfRequest[];
  doc: {
    nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>;
    params?: Record<string, { default: unknown }>;
  };
}

/** Runs a shipped template with its example inputs; counts what each server was sent. */
async function runTemplate(base: string): Promise<TemplateRun> {
  const text = readFileSync(new URL(`../templates/${base}.society.json`, import.meta.url), 'utf8');
  const compiled = await compile(JSON.parse(text));
  const blobs = new BlobStore();
  const given = { inputs: {}, humanAnswers: {} };
  fillExamples(given, compiled.plan, blobs);
  const chatBefore = openai.count();
  const hfBefore = hfStub.requests.length;
  const result = await startRun(compiled, {
    experts: expertProviders,
    registry,
    blobs,
    inputs: given.inputs,
    providerOverrides: {
      openai: { baseUrl: openai.url, apiKeyEnv: '' },
      'hf-inference': { kind: 'huggingface', baseUrl: `${hfStub.url}/models/{model}` },
    },
    env: {},
  }).result;
  return {
    result,
    chatCalls: openai.count() - chatBefore,
    hfRequests: hfStub.requests.slice(hfBefore),
    doc: JSON.parse(text),
  };
}

/** The mindstorm's rounds: a number, or a parameter's default (`{ "$param": "rounds" }`). */
const maxRounds = (run: TemplateRun) => {
  const rounds = run.doc.nodes.find((n) => n.type === 'mindstorm')!.data.maxRounds;
  if (typeof rounds === 'number') return rounds;
  return run.doc.params![(rounds as { $param: string }).$param]!.default as number;
};

describe('NLSOM captioning (App. F)', () => {
  let run: TemplateRun;
  beforeAll(async () => {
    run = await runTemplate('nlsom-captioning');
  });

  it('makes 3 + 4R + 2 chat calls and 3 expert calls (entities, two sentence embeddings)', () => {
    expect(run.result.error).toBeUndefined();
    const R = maxRounds(run);
    expect(run.chatCalls).toBe(3 + 4 * R + 2);
    expect(run.hfRequests).toHaveLength(3);
    expect(run.result.usage.expertCalls).toBe(3);
  });

  it('asks the NER model for whole entities and scores the caption against them', () => {
    const ner = run.hfRequests.find((r) => r.model === 'dslim/bert-base-NER')!;
    expect(ner.json).toMatchObject({
      inputs: expect.stringContaining('Marie Dubois'),
      parameters: { aggregation_strategy: 'simple' },
    });
    expect(run.result.outputs.entities).toBe('Marie Dubois, Lyon');
    expect(run.result.outputs.caption).toBe('Marie Dubois unveils a red disc in Lyon.');
    // Both texts embed to [1, 0]: the sentence cosine is 1.
    expect(run.result.outputs.score).toBe(1);
  });
});

describe('NLSOM 3D generation (App. H)', () => {
  let run: TemplateRun;
  beforeAll(async () => {
    run = await runTemplate('nlsom-3d');
  });

  it('makes R leader calls; 3R captions and 3 + 1 CLIP embeddings over HTTP; 7R + 8 expert calls in all', () => {
    expect(run.result.error).toBeUndefined();
    const R = maxRounds(run);
    expect(run.chatCalls).toBe(R);
    const captions = run.hfRequests.filter((r) => r.model?.startsWith('Salesforce/'));
    const clip = run.hfRequests.filter((r) => r.model === 'openai/clip-vit-base-patch16');
    expect(captions).toHaveLength(3 * R);
    expect(clip).toHaveLength(3 + 1);
    // Designs and renders are local: R designs + 3R renders in the rounds, then 1 + 3.
    expect(run.result.usage.expertCalls).toBe(7 * R + 8);
  });

  it('scores the final views with the multi-view CLIP score and says which way is better', () => {
    const report = run.result.outputs.report as Record<string, unknown>;
    expect(run.result.outputs.score).toBeCloseTo(1, 10);
    expect(report).toMatchObject({
      kind: 'multiview-clip-score',
      method: 'mean-clip-cosine',
      direction: 'higher-is-better',
    });
    expect(report.perView).toHaveLength(3);
    expect(String(report.explanation)).toContain('smaller the Clip score');
    expect(run.result.outputs.prompt).toBe('a glossy red sports car, low roof');
  });

  it('labels the designed model a stand-in in its messages', () => {
    const transcript = String(run.result.outputs.transcript);
    expect(transcript).toContain('stand-in mesh for "a red sports car');
    expect(transcript).toContain('no text-to-3D model ran');
  });
});

describe('NLSOM egocentric retrieval debate (App. I)', () => {
  it('monarchy: a summary, 4 openings + 4R exchanges + 1 editor (1 + 4 + 4R + 1 chat calls), scored R5@1', async () => {
    const before = openai.requests.length;
    const run = await runTemplate('nlsom-ego-monarchy');
    expect(run.result.error).toBeUndefined();
    // Round 1 is the openings; the exchanges are the rounds after it.
    const R = maxRounds(run) - 1;
    expect(run.chatCalls).toBe(1 + 4 + 4 * R + 1);
    // Each debater is given the video's summary and only its quarter of the narrations input.
    const openings = openai.requests
      .slice(before)
      .map((r) => JSON.stringify(r.messages.at(-1)))
      .filter((t) => t.includes('The video ends here'));
    expect(openings).toHaveLength(4);
    for (const t of openings) expect(t).toContain('C cooks porridge and eats it.');
    expect(openings.filter((t) => t.includes('124 C puts the scissors'))).toHaveLength(1);
    expect(openings.filter((t) => t.includes('0 C walks into the kitchen'))).toHaveLength(1);
    expect(run.hfRequests).toHaveLength(0);
    // The editor's "Timestamps: 124, 60", padded with the grid of T = 210 s to k = 5.
    expect(run.result.outputs.timestamps).toBe('124, 60, 35, 70, 105');
    expect(run.result.outputs.score).toBe(1);
    expect(run.result.outputs['score-raw']).toBe(1);
  });

  it('democracy: a summary, 4 openings + 4R exchanges + 4 ballots (1 + 4 + 4R + 4 chat calls), timestamps ranked by votes', async () => {
    const run = await runTemplate('nlsom-ego-democracy');
    expect(run.result.error).toBeUndefined();
    const R = maxRounds(run) - 1;
    expect(run.chatCalls).toBe(1 + 4 + 4 * R + 4);
    const tally = run.result.outputs.tally as { ranking: string[]; counts: Record<string, number> };
    expect(tally.ranking.slice(0, 2)).toEqual(['124', '53']);
    expect(tally.counts['124']).toBe(4);
    expect(run.result.outputs.timestamps).toBe('124, 53, 35, 70, 105');
    expect(run.result.outputs.score).toBe(1);
  });
});

describe('the "w. exec." step of the retrieval debate', () => {
  it('drops negatives, clamps to T, merges times under 1 s apart and pads with the grid to k = 5', async () => {
    const doc = JSON.parse(
      readFileSync(
        new URL('../templates/nlsom-ego-monarchy.society.json', import.meta.url),
        'utf8',
      ),
    );
    const exec = doc.nodes.find((n: { id: string }) => n.id === 'exec');
    const graph = {
      version: 1,
      name: 'w. exec.',
      nodes: [
        { id: 'ranked', type: 'input', position: { x: 0, y: 0 }, data: { name: 'ranked' } },
        { id: 'duration', type: 'input', position: { x: 0, y: 0 }, data: { name: 'duration' } },
        { ...exec, position: { x: 200, y: 0 } },
        { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'out' } },
      ],
      edges: [
        {
          id: 'a',
          source: 'ranked',
          sourceHandle: 'value',
          target: 'exec',
          targetHandle: 'ranked',
        },
        {
          id: 'b',
          source: 'duration',
          sourceHandle: 'value',
          target: 'exec',
          targetHandle: 'duration',
        },
        { id: 'c', source: 'exec', sourceHandle: 'value', target: 'out', targetHandle: 'value' },
      ],
    };
    const result = await startRun(await compile(graph), {
      experts: expertProviders,
      registry,
      inputs: { ranked: '-5, 60, 60.4, 300, nonsense', duration: '210' },
    }).result;
    // −5 dropped, 60.4 merged into 60, 300 clamped to 210; then the grid T·i/6: 35, 70, 105.
    expect(result.outputs.out).toBe('60, 210, 35, 70, 105');
  });
});
