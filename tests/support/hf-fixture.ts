/**
 * One stub Hugging Face server and a provider pointed at it, shared by the tests of
 * app/experts/huggingface: `withStubHuggingFace` starts them for the calling test file. The
 * bindings below are live: they hold the stub, the provider and a small PNG once it has started.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createHuggingFaceExpertProvider } from '../../app/experts/huggingface.ts';
import type {
  BinaryValue,
  ExpertProvider,
  ExpertRequest,
} from '../../app/providers/expert-types.ts';
import { ProviderError } from '../../app/providers/types.ts';
import {
  type StubHf,
  type StubHfReply,
  type StubHfRequest,
  startStubHuggingFace,
} from './stub-hf.ts';

// Assembled at run time so no key-like literal sits in the repository.
export const TOKEN = ['hf', 'test', 'token'].join('_');

export type Responder = (request: StubHfRequest) => StubHfReply | Promise<StubHfReply>;

export let stub: StubHf;
export let png: Buffer;
export let provider: ExpertProvider;

export const signal = () => new AbortController().signal;
export const run = (request: ExpertRequest, p: ExpertProvider = provider) =>
  p.run(request, { signal: signal() });
export const image = (): BinaryValue => ({ bytes: new Uint8Array(png), mime: 'image/png' });
export const last = () => stub.requests.at(-1)!;

/** Run a request that must fail, and hand back its ProviderError. */
export async function failure(request: ExpertRequest, p: ExpertProvider = provider) {
  const error = await run(request, p).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/**
 * Starts the stub (answering with `respond`) and the provider before the file's tests, closes
 * the stub after them, and forgets the requests seen before each test.
 */
export function withStubHuggingFace(respond: Responder): void {
  beforeAll(async () => {
    png = await sharp({
      create: { width: 2, height: 2, channels: 3, background: '#f00' },
    })
      .png()
      .toBuffer();
    stub = await startStubHuggingFace({ respond });
    provider = createHuggingFaceExpertProvider({ id: 'hf', token: TOKEN, endpointUrl: stub.url });
  });

  afterAll(async () => {
    await stub.close();
  });

  beforeEach(() => {
    stub.requests.length = 0;
  });
}
