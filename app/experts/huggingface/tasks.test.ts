import { beforeEach, describe, expect, it } from 'vitest';
import {
  image,
  last,
  png,
  type Responder,
  run,
  stub,
  TOKEN,
  withStubHuggingFace,
} from '../../../tests/support/hf-fixture.ts';
import type { BinaryValue } from '../../providers/expert-types.ts';
import { createHuggingFaceExpertProvider } from '../huggingface.ts';

let responder: Responder;
withStubHuggingFace((request) => responder(request));

beforeEach(() => {
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
