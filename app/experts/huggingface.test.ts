import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
  untilDisconnected,
} from '../../tests/support/stub-hf.ts';
import { ProviderError } from '../providers/types.ts';
import { createHuggingFaceExpertProvider, toVector } from './huggingface.ts';
import type { BinaryValue, ExpertProvider, ExpertRequest } from './types.ts';

// Assembled at run time so no key-like literal sits in the repository.
const TOKEN = ['hf', 'test', 'token'].join('_');

type Responder = (request: StubHfRequest) => StubHfReply | Promise<StubHfReply>;

let stub: StubHf;
let responder: Responder;
let png: Buffer;
let provider: ExpertProvider;

const signal = () => new AbortController().signal;
const run = (request: ExpertRequest, p: ExpertProvider = provider) =>
  p.run(request, { signal: signal() });
const image = (): BinaryValue => ({ bytes: new Uint8Array(png), mime: 'image/png' });
const last = () => stub.requests.at(-1)!;

/** Run a request that must fail, and hand back its ProviderError. */
async function failure(request: ExpertRequest, p: ExpertProvider = provider) {
  const error = await run(request, p).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

beforeAll(async () => {
  png = await sharp({
    create: { width: 2, height: 2, channels: 3, background: '#f00' },
  })
    .png()
    .toBuffer();
  stub = await startStubHuggingFace({ respond: (request) => responder(request) });
  provider = createHuggingFaceExpertProvider({ id: 'hf', token: TOKEN, endpointUrl: stub.url });
});

afterAll(async () => {
  await stub.close();
});

beforeEach(() => {
  stub.requests.length = 0;
  responder = () => ({ status: 500, body: { error: 'no responder set for this test' } });
});

describe('Hugging Face expert provider: tasks over HTTP', () => {
  it('image-to-text sends the image bytes and returns the caption', async () => {
    // The list is what hf-inference captioners answer; the client itself only accepts an object.
    responder = () => ({ body: [{ generated_text: 'a red square' }] });
    const result = await run({
      task: 'image-to-text',
      model: 'nlpconnect/vit-gpt2-image-captioning',
      inputs: { image: image() },
    });
    expect(result).toEqual({
      output: 'a red square',
      model: 'nlpconnect/vit-gpt2-image-captioning',
      source: 'live',
    });
    expect(stub.requests).toHaveLength(1);
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/');
    expect(last().body.equals(png)).toBe(true);
    expect(last().headers['content-type']).toBe('image/png');
    expect(last().headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('image-to-text also reads a caption sent as a bare object', async () => {
    responder = () => ({ body: { generated_text: 'a small red square' } });
    const result = await run({ task: 'image-to-text', model: 'm', inputs: { image: image() } });
    expect(result.output).toBe('a small red square');
  });

  it('visual-question-answering sends the question and the image as base64 JSON', async () => {
    responder = () => ({
      body: [
        { answer: 'red', score: 0.91 },
        { answer: 'orange', score: 0.05 },
      ],
    });
    const result = await run({
      task: 'visual-question-answering',
      model: 'dandelin/vilt-b32-finetuned-vqa',
      inputs: { image: image(), question: 'What colour is it?' },
    });
    expect(result.output).toBe('red');
    expect(last().json).toEqual({
      inputs: { question: 'What colour is it?', image: png.toString('base64') },
    });
  });

  it('text-to-image returns the PNG bytes with their MIME type', async () => {
    responder = () => ({ headers: { 'content-type': 'image/png' }, body: png });
    const result = await run({
      task: 'text-to-image',
      model: 'stabilityai/stable-diffusion-2',
      inputs: { prompt: 'a red square' },
      parameters: { width: 2, height: 2 },
    });
    const output = result.output as BinaryValue;
    expect(output.mime).toBe('image/png');
    expect(Buffer.from(output.bytes).equals(png)).toBe(true);
    expect(last().json).toEqual({ inputs: 'a red square', parameters: { width: 2, height: 2 } });
    expect(last().headers['content-type']).toBe('application/json');
  });

  it('text-to-image tells the format from the bytes when the server does not say', async () => {
    responder = () => ({
      headers: { 'content-type': 'application/octet-stream' },
      body: png,
    });
    const result = await run({
      task: 'text-to-image',
      model: 'm',
      inputs: { prompt: 'x' },
    });
    expect((result.output as BinaryValue).mime).toBe('image/png');
  });

  it('image-to-image sends the prompt as a parameter and returns the new image', async () => {
    responder = () => ({ headers: { 'content-type': 'image/png' }, body: png });
    const result = await run({
      task: 'image-to-image',
      model: 'timbrooks/instruct-pix2pix',
      inputs: { image: image(), prompt: 'make it blue' },
      parameters: { guidance_scale: 7 },
    });
    expect((result.output as BinaryValue).mime).toBe('image/png');
    expect(last().json).toEqual({
      inputs: png.toString('base64'),
      parameters: { guidance_scale: 7, prompt: 'make it blue' },
    });
  });

  it('translation passes parameters through and returns the translated text', async () => {
    responder = () => ({ body: [{ translation_text: 'Bonjour le monde' }] });
    const result = await run({
      task: 'translation',
      model: 'facebook/nllb-200-distilled-600M',
      inputs: { text: 'Hello world' },
      parameters: { src_lang: 'eng_Latn', tgt_lang: 'fra_Latn' },
    });
    expect(result.output).toBe('Bonjour le monde');
    expect(last().json).toEqual({
      inputs: 'Hello world',
      parameters: { src_lang: 'eng_Latn', tgt_lang: 'fra_Latn' },
    });
  });

  it('summarization returns the summary text', async () => {
    responder = () => ({ body: [{ summary_text: 'A tall tower.' }] });
    const result = await run({
      task: 'summarization',
      model: 'facebook/bart-large-cnn',
      inputs: { text: 'The tower is 324 metres tall ...' },
    });
    expect(result.output).toBe('A tall tower.');
    expect(last().json).toEqual({ inputs: 'The tower is 324 metres tall ...' });
  });

  it('question-answering sends question and context and returns the answer', async () => {
    responder = () => ({ body: { answer: 'Paris', score: 0.97, start: 25, end: 30 } });
    const result = await run({
      task: 'question-answering',
      model: 'deepset/roberta-base-squad2',
      inputs: { question: 'What is the capital?', context: 'The capital of France is Paris.' },
    });
    expect(result.output).toBe('Paris');
    expect(last().json).toEqual({
      inputs: { question: 'What is the capital?', context: 'The capital of France is Paris.' },
    });
  });

  it('image-classification returns labels best first, without boxes', async () => {
    responder = () => ({
      body: [
        { label: 'tabby cat', score: 0.2 },
        { label: 'red square', score: 0.7 },
        { label: 'stop sign', score: 0.1 },
      ],
    });
    const result = await run({
      task: 'image-classification',
      model: 'google/vit-base-patch16-224',
      inputs: { image: image() },
    });
    expect(result.output).toEqual([
      { label: 'red square', score: 0.7 },
      { label: 'tabby cat', score: 0.2 },
      { label: 'stop sign', score: 0.1 },
    ]);
    expect(last().body.equals(png)).toBe(true);
  });

  it('object-detection returns labels best first with their boxes', async () => {
    const box = (n: number) => ({ xmin: n, ymin: n, xmax: n + 1, ymax: n + 1 });
    responder = () => ({
      body: [
        { label: 'cat', score: 0.5, box: box(0) },
        { label: 'remote', score: 0.99, box: box(1) },
      ],
    });
    const result = await run({
      task: 'object-detection',
      model: 'facebook/detr-resnet-50',
      inputs: { image: image() },
    });
    expect(result.output).toEqual([
      { label: 'remote', score: 0.99, box: box(1) },
      { label: 'cat', score: 0.5, box: box(0) },
    ]);
    expect(last().body.equals(png)).toBe(true);
  });

  it('fill-mask returns the sequence of the best-scored candidate', async () => {
    responder = () => ({
      body: [
        { score: 0.1, token: 1, token_str: 'a', sequence: 'a world!' },
        { score: 0.3, token: 2, token_str: 'the', sequence: 'the world!' },
        { score: 0.2, token: 3, token_str: 'hello', sequence: 'hello world!' },
      ],
    });
    const result = await run({
      task: 'fill-mask',
      model: 'google-bert/bert-base-uncased',
      inputs: { text: '[MASK] world!' },
    });
    expect(result.output).toBe('the world!');
    expect(last().json).toEqual({ inputs: '[MASK] world!' });
  });

  it('text-classification returns every label, best first', async () => {
    responder = () => ({
      body: [
        [
          { label: 'NEGATIVE', score: 0.01 },
          { label: 'POSITIVE', score: 0.99 },
        ],
      ],
    });
    const result = await run({
      task: 'text-classification',
      model: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
      inputs: { text: 'I like you.' },
    });
    expect(result.output).toEqual([
      { label: 'POSITIVE', score: 0.99 },
      { label: 'NEGATIVE', score: 0.01 },
    ]);
  });

  it('feature-extraction returns one vector from a single row', async () => {
    responder = () => ({ body: [[0.5, -1, 2]] });
    const result = await run({
      task: 'feature-extraction',
      model: 'sentence-transformers/all-MiniLM-L6-v2',
      inputs: { text: 'hello' },
    });
    expect(result.output).toEqual([0.5, -1, 2]);
    expect(last().json).toEqual({ inputs: 'hello' });
  });

  it('feature-extraction mean-pools per-token vectors into one', async () => {
    responder = () => ({
      body: [
        [
          [1, 2],
          [3, 6],
        ],
      ],
    });
    const result = await run({
      task: 'feature-extraction',
      model: 'bert-base-uncased',
      inputs: { text: 'two tokens' },
    });
    expect(result.output).toEqual([2, 4]);
  });

  it('text-generation posts an OpenAI-style completion and returns its text', async () => {
    responder = () => ({
      body: { id: 'c', object: 'text_completion', choices: [{ index: 0, text: ' forty-two' }] },
    });
    const result = await run({
      task: 'text-generation',
      model: 'openai-community/gpt2',
      inputs: { text: 'The answer is' },
      parameters: { max_new_tokens: 5 },
    });
    expect(result.output).toBe(' forty-two');
    expect(last().path).toBe('/v1/completions');
    expect(last().json).toEqual({
      model: 'openai-community/gpt2',
      prompt: 'The answer is',
      max_tokens: 5,
    });
  });

  it('automatic-speech-recognition sends the audio bytes and returns the transcript', async () => {
    const flac = Buffer.from('fLaC fake audio');
    responder = () => ({ body: { text: 'HELLO' } });
    const result = await run({
      task: 'automatic-speech-recognition',
      model: 'openai/whisper-large-v3',
      inputs: { audio: { bytes: new Uint8Array(flac), mime: 'audio/flac' } },
    });
    expect(result.output).toBe('HELLO');
    expect(last().body.equals(flac)).toBe(true);
    expect(last().headers['content-type']).toBe('audio/flac');
  });

  it('text-to-speech returns audio bytes, flac when the server gives no type', async () => {
    const audio = Buffer.from([1, 2, 3, 4, 5]);
    responder = () => ({ headers: { 'content-type': '' }, body: audio });
    const result = await run({
      task: 'text-to-speech',
      model: 'espnet/kan-bayashi_ljspeech_vits',
      inputs: { text: 'hello' },
    });
    const output = result.output as BinaryValue;
    expect(output.mime).toBe('audio/flac');
    expect(Buffer.from(output.bytes).equals(audio)).toBe(true);
    expect(last().json).toEqual({ inputs: 'hello' });
  });

  it('sends no Authorization header without a token', async () => {
    const keyless = createHuggingFaceExpertProvider({ id: 'local', endpointUrl: stub.url });
    responder = () => ({ body: [{ summary_text: 's' }] });
    const result = await run({ task: 'summarization', model: 'm', inputs: { text: 't' } }, keyless);
    expect(result.output).toBe('s');
    expect(last().headers.authorization).toBeUndefined();
  });

  it('puts the model in the URL where the endpoint template asks for it', async () => {
    const routed = createHuggingFaceExpertProvider({
      id: 'router-like',
      token: TOKEN,
      endpointUrl: `${stub.url}/hf-inference/models/{model}`,
    });
    responder = () => ({ body: [{ translation_text: 'Hallo' }] });
    await run(
      { task: 'translation', model: 'google-t5/t5-base', inputs: { text: 'Hello' } },
      routed,
    );
    expect(last().path).toBe('/hf-inference/models/google-t5/t5-base');
    expect(last().model).toBe('google-t5/t5-base');
  });

  it('reaches hosted providers through the given fetch: Hub look-up, then the router', async () => {
    // Everything the client would send to huggingface.co goes to the stub instead.
    const viaStub: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      return fetch(`${stub.url}/${url.host}${url.pathname}${url.search}`, init);
    };
    const hosted = createHuggingFaceExpertProvider({
      id: 'hosted',
      token: TOKEN,
      inferenceProvider: 'hf-inference',
      fetch: viaStub,
    });
    responder = (request) =>
      request.method === 'GET'
        ? {
            body: {
              _id: 'x',
              id: 'stub-org/summariser',
              inferenceProviderMapping: {
                'hf-inference': {
                  providerId: 'stub-org/summariser',
                  status: 'live',
                  task: 'summarization',
                },
              },
            },
          }
        : { body: [{ summary_text: 'hosted summary' }] };
    const result = await run(
      { task: 'summarization', model: 'stub-org/summariser', inputs: { text: 'long text' } },
      hosted,
    );
    expect(result.output).toBe('hosted summary');
    expect(stub.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'GET /huggingface.co/api/models/stub-org/summariser',
      'POST /router.huggingface.co/hf-inference/models/stub-org/summariser',
    ]);
    expect(last().headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('refuses an endpoint URL together with an inference provider', () => {
    expect(() =>
      createHuggingFaceExpertProvider({
        id: 'both',
        endpointUrl: stub.url,
        inferenceProvider: 'fal-ai',
      }),
    ).toThrow(/either an endpoint URL or an inference provider/);
  });
});

describe('Hugging Face expert provider: inputs', () => {
  it('image-to-3d is refused, not retryable, without a request', async () => {
    const error = await failure({
      task: 'image-to-3d',
      model: 'stabilityai/TripoSR',
      inputs: { image: image() },
    });
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/Hugging Face inference client has no image-to-3d task/);
    expect(stub.requests).toHaveLength(0);
  });

  it('a missing input is named with its task, without a request', async () => {
    const error = await failure({
      task: 'visual-question-answering',
      model: 'dandelin/vilt-b32-finetuned-vqa',
      inputs: { image: image() },
    });
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('visual-question-answering');
    expect(error.message).toContain('"question"');
    expect(stub.requests).toHaveLength(0);
  });

  it('an image given as a data: URL is sent as its bytes', async () => {
    responder = () => ({ body: [{ label: 'red', score: 1 }] });
    const result = await run({
      task: 'image-classification',
      model: 'm',
      inputs: { image: `data:image/png;base64,${png.toString('base64')}` },
    });
    expect(result.output).toEqual([{ label: 'red', score: 1 }]);
    expect(last().body.equals(png)).toBe(true);
    expect(last().headers['content-type']).toBe('image/png');
  });

  it('text where an image is expected is refused', async () => {
    const error = await failure({
      task: 'image-classification',
      model: 'm',
      inputs: { image: 'not an image' },
    });
    expect(error.message).toMatch(/image-classification input "image" must be image bytes/);
  });
});

describe('Hugging Face expert provider: failures', () => {
  const summarise: ExpertRequest = {
    task: 'summarization',
    model: 'facebook/bart-large-cnn',
    inputs: { text: 'some text' },
  };

  it('a loading model (503) is retryable after its estimated time, tried once', async () => {
    responder = () => ({
      status: 503,
      body: { error: 'Model facebook/bart-large-cnn is currently loading', estimated_time: 20.5 },
    });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 503, retryable: true, retryAfterMs: 20_500 });
    expect(error.message).toContain('loading');
    // The engine retries; the client must not have retried on its own.
    expect(stub.requests).toHaveLength(1);
  });

  it('Retry-After is respected', async () => {
    responder = () => ({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: 'Rate limit reached' },
    });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
    expect(error.message).toContain('Rate limit reached');
  });

  it('an answer past the limit fails the call, once, naming the limit', async () => {
    responder = () => ({ body: [{ summary_text: 'x'.repeat(2 * 1024 * 1024) }] });
    const error = await provider
      .run(summarise, { signal: signal(), maxAnswerBytes: 1024 * 1024 })
      .then(
        () => undefined,
        (e: unknown) => e as ProviderError,
      );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error?.message).toBe(
      `answer from hf (${stub.url}) went past 1 MiB (settings.limits.answerBytes)`,
    );
    expect(error?.retryable).toBe(false);
  });

  it("a proxy's HTML page is named as such, not read as the answer", async () => {
    responder = () => ({
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<html><body>Sign in to the network</body></html>',
    });
    const error = await failure(summarise);
    expect(error.message).toBe(
      `hf (${stub.url}) answered with an HTML page, not the model's output (HTTP 200, text/html)`,
    );
    expect(error.retryable).toBe(false);
  });

  it('a server error is retryable', async () => {
    responder = () => ({ status: 500, body: 'upstream exploded' });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(error.message).toContain('upstream exploded');
  });

  it('401 is not retryable and points at the token without showing it', async () => {
    responder = (request) => ({
      status: 401,
      body: {
        error: `Invalid credentials in Authorization header: ${request.headers.authorization}`,
      },
    });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toMatch(/token/);
    expect(error.message).not.toContain(TOKEN);
  });

  it('403 without a token says that none was sent', async () => {
    const keyless = createHuggingFaceExpertProvider({
      id: 'anon',
      endpointUrl: stub.url,
      tokenEnv: 'HF_TOKEN',
    });
    responder = () => ({ status: 403, body: { error: 'Forbidden' } });
    const error = await failure(summarise, keyless);
    expect(error).toMatchObject({ status: 403, retryable: false });
    expect(error.message).toMatch(/no Hugging Face access token was sent/);
    expect(error.message).toContain('HF_TOKEN');
  });

  it('404 names the model', async () => {
    responder = () => ({
      status: 404,
      body: { error: 'Model facebook/bart-large-cnn does not exist' },
    });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 404, retryable: false, code: 'model_not_found' });
    expect(error.message).toContain('model "facebook/bart-large-cnn" not found');
  });

  it('400 is not retryable', async () => {
    responder = () => ({ status: 400, body: { error: 'bad input' } });
    const error = await failure(summarise);
    expect(error).toMatchObject({ status: 400, retryable: false });
  });

  it('an answer of the wrong shape is reported, not retried', async () => {
    responder = () => ({ body: { unexpected: true } });
    const error = await failure(summarise);
    expect(error).toMatchObject({ retryable: false, code: 'bad_response' });
  });

  it('an unreachable server is a retryable connection error', async () => {
    const gone = await startStubHuggingFace();
    await gone.close();
    const offline = createHuggingFaceExpertProvider({ id: 'offline', endpointUrl: gone.url });
    const error = await failure(summarise, offline);
    expect(error).toMatchObject({ retryable: true, code: 'connection_error' });
    expect(error.message).toContain('is the local server running?');
  });

  it('cancelling mid-request rejects with AbortError and drops the connection', async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const stalled = await startStubHuggingFace({
      respond: async (_request, ctx) => {
        arrived();
        await untilDisconnected(ctx);
        return { body: [{ summary_text: 'too late' }] };
      },
    });
    try {
      const slow = createHuggingFaceExpertProvider({ id: 'slow', endpointUrl: stalled.url });
      const controller = new AbortController();
      const pending = slow.run(summarise, { signal: controller.signal });
      await requestArrived;
      controller.abort(new Error('run cancelled'));
      const error = await pending.then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.name).toBe('AbortError');
      await expect.poll(() => stalled.aborted()).toBe(1);
    } finally {
      await stalled.close();
    }
  });

  it('an already cancelled call sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(provider.run(summarise, { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('toVector', () => {
  it('keeps a vector, unwraps one row or a batch of one, and rejects ragged rows', () => {
    expect(toVector([1, 2])).toEqual([1, 2]);
    expect(toVector(3)).toEqual([3]);
    expect(
      toVector([
        [
          [0, 4],
          [2, 0],
        ],
      ]),
    ).toEqual([1, 2]);
    expect(toVector([[1], [2, 3]])).toBeUndefined();
    expect(toVector([])).toBeUndefined();
  });
});
