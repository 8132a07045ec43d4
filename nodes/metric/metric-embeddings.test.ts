/**
 * The embedding requests the metric node relies on (token vectors from text feature
 * extraction, image feature extraction), one provider call at a time, against a local server
 * speaking the Hugging Face protocol; and the simulator's made-up vectors.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHuggingFaceExpertProvider } from '../../app/experts/huggingface.ts';
import { SimulatedExpertProvider } from '../../app/experts/providers.ts';
import type { ExpertProvider, ExpertRequest } from '../../app/experts/types.ts';
import { ProviderError } from '../../app/providers/types.ts';
import { type StubHf, startStubHuggingFace } from '../../tests/support/stub-hf.ts';
import { type Responder, signal, TOKEN, testPngs } from './metric.test-helper.ts';

let stub: StubHf;
let responder: Responder = () => undefined;
let png: Buffer;
let otherPng: Buffer;

beforeAll(async () => {
  [png, otherPng] = await testPngs();
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
