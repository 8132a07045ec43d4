import { beforeEach, describe, expect, it } from 'vitest';
import {
  failure,
  provider,
  type Responder,
  signal,
  stub,
  TOKEN,
  withStubHuggingFace,
} from '../../../tests/support/hf-fixture.ts';
import { startStubHuggingFace, untilDisconnected } from '../../../tests/support/stub-hf.ts';
import type { ExpertRequest } from '../../providers/expert-types.ts';
import { ProviderError } from '../../providers/types.ts';
import { createHuggingFaceExpertProvider } from '../huggingface.ts';

let responder: Responder;
withStubHuggingFace((request) => responder(request));

beforeEach(() => {
  responder = () => ({ status: 500, body: { error: 'no responder set for this test' } });
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
