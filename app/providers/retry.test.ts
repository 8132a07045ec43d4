import { afterEach, describe, expect, it } from 'vitest';
import {
  type StubOpenAI,
  type StubOptions,
  startStubOpenAI,
  stubError,
} from '../../tests/support/stub-openai.ts';
import { OpenAICompatibleProvider } from './openai.ts';
import {
  CallTimeoutError,
  callWithRetry,
  DEFAULT_RETRY_POLICY,
  RetryAfterTooLongError,
  RetryExhaustedError,
  type RetryInfo,
  type RetryPolicy,
  retryDelayMs,
} from './retry.ts';
import type { ChatRequest } from './types.ts';
import { ProviderError } from './types.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function start(options: StubOptions = {}): Promise<StubOpenAI> {
  stub = await startStubOpenAI(options);
  return stub;
}

const hello: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] };
const fast: RetryPolicy = { attempts: 4, baseMs: 1, maxMs: 5, timeoutMs: 5000 };
const noSleep = async () => {};

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject');
}

async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('retry policy', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      attempts: 4,
      baseMs: 500,
      maxMs: 30_000,
      timeoutMs: 120_000,
    });
  });

  it('uses full jitter capped at maxMs, and the server hint (also capped) when there is one', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseMs: 100, maxMs: 300 };
    const half = () => 0.5;
    const plain = new Error('network');
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, policy, plain, half))).toEqual([
      50, 100, 150, 150,
    ]);
    const hinted = new ProviderError('429', { retryable: true, retryAfterMs: 200 });
    expect(retryDelayMs(1, policy, hinted, half)).toBe(200);
    const greedy = new ProviderError('429', { retryable: true, retryAfterMs: 7000 });
    expect(retryDelayMs(1, policy, greedy, half)).toBe(300);
  });

  it('gives up at once, saying why, when the server asks to wait longer than maxMs', async () => {
    const slept: number[] = [];
    let calls = 0;
    const error = await rejection(
      callWithRetry(
        async () => {
          calls++;
          throw new ProviderError('HTTP 429 Too Many Requests: slow down', {
            retryable: true,
            status: 429,
            retryAfterMs: 120_000,
          });
        },
        { attempts: 4, baseMs: 50, maxMs: 200, timeoutMs: 2000 },
        {
          signal: new AbortController().signal,
          sleep: async (ms) => {
            slept.push(ms);
          },
        },
      ),
    );
    expect(error).toBeInstanceOf(RetryAfterTooLongError);
    expect(error.message).toBe(
      'HTTP 429 Too Many Requests: slow down; the server asked to wait 120 s before trying again, longer than settings.retry.maxMs (200 ms)',
    );
    expect((error as RetryAfterTooLongError).status).toBe(429);
    expect(calls).toBe(1);
    expect(slept).toEqual([]);
  });

  it('reports each retry and sleeps for the computed delay', async () => {
    const retries: RetryInfo[] = [];
    const slept: number[] = [];
    let calls = 0;
    const result = await callWithRetry(
      async () => {
        calls++;
        if (calls < 3) throw new ProviderError(`fail ${calls}`, { retryable: true });
        return 'ok';
      },
      { ...fast, baseMs: 100, maxMs: 1000 },
      {
        signal: new AbortController().signal,
        random: () => 0.25,
        sleep: async (ms) => {
          slept.push(ms);
        },
        onRetry: (info) => retries.push(info),
      },
    );
    expect(result).toBe('ok');
    expect(slept).toEqual([25, 50]);
    expect(retries.map((r) => [r.attempt, r.delayMs, r.error.message])).toEqual([
      [1, 25, 'fail 1'],
      [2, 50, 'fail 2'],
    ]);
  });

  it('treats unknown errors as network errors and retries them', async () => {
    let calls = 0;
    const result = await callWithRetry(
      async () => {
        if (++calls === 1) throw new TypeError('fetch failed');
        return calls;
      },
      fast,
      { signal: new AbortController().signal, sleep: noSleep },
    );
    expect(result).toBe(2);
  });

  it('times out an attempt that ignores its signal', async () => {
    const error = await rejection(
      callWithRetry(
        () => new Promise(() => {}),
        { ...fast, attempts: 1, timeoutMs: 30 },
        {
          signal: new AbortController().signal,
        },
      ),
    );
    expect(error).toBeInstanceOf(RetryExhaustedError);
    expect(error.message).toBe('gave up after 1 attempt: model call timed out after 30 ms');
    expect((error.cause as Error).name).toBe('TimeoutError');
  });

  it('stops waiting between attempts when the run is cancelled', async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = callWithRetry(
      async () => {
        calls++;
        throw new ProviderError('busy', { retryable: true, retryAfterMs: 60_000 });
      },
      { ...fast, maxMs: 120_000 },
      { signal: controller.signal },
    );
    await waitFor(() => calls === 1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.name).toBe('AbortError');
    expect(calls).toBe(1);
  });

  it('never starts when the run is already cancelled', async () => {
    let calls = 0;
    const error = await rejection(
      callWithRetry(
        async () => {
          calls++;
        },
        fast,
        { signal: AbortSignal.abort() },
      ),
    );
    expect(error.name).toBe('AbortError');
    expect(calls).toBe(0);
  });
});

describe('callWithRetry against a real HTTP server', () => {
  it('retries 429 with Retry-After: 0 and succeeds on the third request', async () => {
    const s = await start({
      respond: (_body, { index }) =>
        index < 2
          ? stubError(429, 'Rate limit reached for requests', {
              type: 'requests',
              code: 'rate_limit_exceeded',
              headers: { 'retry-after': '0' },
            })
          : { text: 'finally' },
    });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const retries: RetryInfo[] = [];
    const result = await callWithRetry((signal) => provider.chat(hello, { signal }), fast, {
      signal: new AbortController().signal,
      onRetry: (info) => retries.push(info),
    });
    expect(result.text).toBe('finally');
    expect(s.count()).toBe(3);
    expect(retries.map((r) => r.delayMs)).toEqual([0, 0]);
    expect((retries[0]!.error as ProviderError).status).toBe(429);
  });

  it('ends a 429 with Retry-After: 120 at once when maxMs is 200', async () => {
    const s = await start({
      respond: () =>
        stubError(429, 'Rate limit reached for requests', {
          code: 'rate_limit_exceeded',
          headers: { 'retry-after': '120' },
        }),
    });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const error = await rejection(
      callWithRetry(
        (signal) => provider.chat(hello, { signal }),
        { attempts: 4, baseMs: 50, maxMs: 200, timeoutMs: 2000 },
        { signal: new AbortController().signal },
      ),
    );
    expect(error.message).toBe(
      'HTTP 429 Too Many Requests: Rate limit reached for requests; the server asked to wait 120 s before trying again, longer than settings.retry.maxMs (200 ms)',
    );
    expect(s.count()).toBe(1);
  });

  it('gives up on 500 after the configured attempts with a clear message', async () => {
    const s = await start({ respond: () => stubError(500, 'The server had an error') });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const error = await rejection(
      callWithRetry(
        (signal) => provider.chat(hello, { signal }),
        { ...fast, attempts: 3 },
        {
          signal: new AbortController().signal,
          sleep: noSleep,
        },
      ),
    );
    expect(error).toBeInstanceOf(RetryExhaustedError);
    expect(error.message).toBe(
      'gave up after 3 attempts: HTTP 500 Internal Server Error: The server had an error',
    );
    expect((error as RetryExhaustedError).attempts).toBe(3);
    expect((error as RetryExhaustedError).status).toBe(500);
    expect(error.cause).toBeInstanceOf(ProviderError);
    expect(s.count()).toBe(3);
  });

  it('does not retry 401', async () => {
    const s = await start({
      respond: () => stubError(401, 'Incorrect API key provided', { code: 'invalid_api_key' }),
    });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: 'sk-x1' });
    const error = await rejection(
      callWithRetry((signal) => provider.chat(hello, { signal }), fast, {
        signal: new AbortController().signal,
        sleep: noSleep,
      }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(401);
    expect(error.message).toBe('HTTP 401 Unauthorized: Incorrect API key provided');
    expect(s.count()).toBe(1);
  });

  it('turns a slow server into retryable TimeoutErrors and aborts each slow request', async () => {
    const s = await start({ latencyMs: 3000 });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const error = await rejection(
      callWithRetry(
        (signal) => provider.chat(hello, { signal }),
        { ...fast, attempts: 2, timeoutMs: 80 },
        {
          signal: new AbortController().signal,
          sleep: noSleep,
          onRetry: (info) => retries.push(info),
        },
      ),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).toBe('gave up after 2 attempts: model call timed out after 80 ms');
    expect(error.cause).toBeInstanceOf(CallTimeoutError);
    expect((error.cause as Error).name).toBe('TimeoutError');
    expect(retries[0]?.error.name).toBe('TimeoutError');
    expect(s.count()).toBe(2);
    await waitFor(() => s.aborted() === 2);
  });

  it('cancelling the run aborts the in-flight request and is not retried', async () => {
    const s = await start({ latencyMs: 5000 });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const controller = new AbortController();
    const pending = callWithRetry((signal) => provider.chat(hello, { signal }), fast, {
      signal: controller.signal,
      sleep: noSleep,
    });
    await waitFor(() => s.count() === 1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.name).toBe('AbortError');
    expect(error).not.toBeInstanceOf(ProviderError);
    await waitFor(() => s.aborted() === 1);
    expect(s.count()).toBe(1);
  });
});
