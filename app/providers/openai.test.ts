import diagnostics from 'node:diagnostics_channel';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  type StubOpenAI,
  type StubOptions,
  startStubOpenAI,
  stubError,
} from '../../tests/support/stub-openai.ts';
import { OpenAICompatibleProvider } from './openai.ts';
import { parseRetryAfterMs } from './retry.ts';
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

const KEY = 'sk-test-0123456789abcdef';
const call = () => ({ signal: AbortSignal.timeout(10_000) });
const hello: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] };

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

describe('OpenAICompatibleProvider', () => {
  it('makes a plain call and maps the request and the response', async () => {
    const s = await start({
      respond: () => ({ text: 'Hi there', usage: { prompt_tokens: 11, completion_tokens: 2 } }),
    });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: KEY });
    const result = await provider.chat(
      {
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello' },
        ],
        temperature: 0.2,
        maxTokens: 50,
        extra: { seed: 7, top_p: 0.9 },
      },
      call(),
    );
    expect(result).toEqual({
      text: 'Hi there',
      usage: { promptTokens: 11, completionTokens: 2 },
      model: 'gpt-test',
      finishReason: 'stop',
      source: 'live',
    });
    expect(s.requests).toEqual([
      {
        model: 'gpt-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello' },
        ],
        temperature: 0.2,
        max_tokens: 50,
        seed: 7,
        top_p: 0.9,
      },
    ]);
    expect(s.headers[0]?.authorization).toBe(`Bearer ${KEY}`);
  });

  it('sends calls that follow one another over the connections already open', async () => {
    const s = await start();
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    let opened = 0;
    const count = () => opened++;
    diagnostics.subscribe('net.client.socket', count);
    try {
      // Two calls at a time, each followed at once by the next, as a provider's queue does.
      const chain = async () => {
        for (let i = 0; i < 3; i++) await provider.chat(hello, call());
      };
      await Promise.all([chain(), chain()]);
    } finally {
      diagnostics.unsubscribe('net.client.socket', count);
    }
    expect(s.count()).toBe(6);
    expect(opened).toBe(2);
  });

  it('sends a placeholder key to keyless local servers and estimates missing usage', async () => {
    const s = await start({ respond: () => ({ text: '12345678', usage: null }) });
    const provider = new OpenAICompatibleProvider({ id: 'local', baseUrl: s.url });
    const result = await provider.chat(
      { model: 'llama', messages: [{ role: 'user', content: 'sixteen chars!!!' }] },
      call(),
    );
    expect(s.headers[0]?.authorization).toBe('Bearer no-key-needed');
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 2 });
  });

  it('streams deltas in order and takes usage from the final chunk', async () => {
    const s = await start({
      respond: () => ({ text: 'one two three', usage: { prompt_tokens: 5, completion_tokens: 3 } }),
    });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: KEY });
    const deltas: string[] = [];
    const result = await provider.chat(
      { ...hello, stream: true },
      { ...call(), onDelta: (d) => deltas.push(d) },
    );
    expect(deltas).toEqual(['one ', 'two ', 'three']);
    expect(result).toMatchObject({
      text: 'one two three',
      usage: { promptTokens: 5, completionTokens: 3 },
      finishReason: 'stop',
      source: 'live',
    });
    expect(s.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('estimates usage when a stream carries none', async () => {
    const s = await start({ respond: () => ({ text: 'abcdefghi', usage: null }) });
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const result = await provider.chat({ ...hello, stream: true }, call());
    expect(result.text).toBe('abcdefghi');
    expect(result.usage).toEqual({ promptTokens: 2, completionTokens: 3 });
  });

  it('sends images as image_url parts', async () => {
    const s = await start();
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: KEY });
    const dataUrl = `data:image/png;base64,${Buffer.from('fake png bytes').toString('base64')}`;
    await provider.chat(
      {
        model: 'gpt-4o',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this picture?' },
              { type: 'image', url: dataUrl, mime: 'image/png' },
              { type: 'image', url: 'https://example.com/cat.jpg' },
            ],
          },
        ],
      },
      call(),
    );
    expect(s.requests[0].messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: dataUrl } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('rejects images outside user messages before sending anything', async () => {
    const s = await start();
    const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
    const error = await rejection(
      provider.chat(
        {
          model: 'm',
          messages: [{ role: 'system', content: [{ type: 'image', url: 'https://x/y.png' }] }],
        },
        call(),
      ),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(s.count()).toBe(0);
  });

  describe('error mapping', () => {
    const cases: Array<[number, string | null, boolean, string]> = [
      [400, 'invalid_value', false, 'Bad Request'],
      [401, 'invalid_api_key', false, 'Unauthorized'],
      [403, null, false, 'Forbidden'],
      [404, 'model_not_found', false, 'Not Found'],
      [422, null, false, 'Unprocessable Entity'],
      [408, null, true, 'Request Timeout'],
      [409, null, true, 'Conflict'],
      [429, 'rate_limit_exceeded', true, 'Too Many Requests'],
      [429, 'insufficient_quota', false, 'Too Many Requests'],
      [500, null, true, 'Internal Server Error'],
      [503, null, true, 'Service Unavailable'],
    ];
    it.each(cases)('HTTP %i (code %s) → retryable %s', async (status, code, retryable, reason) => {
      const s = await start({ respond: () => stubError(status, 'the server says no', { code }) });
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: KEY });
      const error = await rejection(provider.chat(hello, call()));
      expect(error).toBeInstanceOf(ProviderError);
      const pe = error as ProviderError;
      expect(pe.status).toBe(status);
      expect(pe.retryable).toBe(retryable);
      expect(pe.code).toBe(code ?? (status >= 500 ? 'server_error' : 'invalid_request_error'));
      expect(pe.message).toBe(`HTTP ${status} ${reason}: the server says no`);
      expect(s.count()).toBe(1);
    });

    it('reads retry-after-ms first, then Retry-After seconds', async () => {
      const s = await start({
        respond: (_body, { index }) =>
          stubError(429, 'slow down', {
            headers:
              index === 0
                ? { 'retry-after-ms': '1500', 'retry-after': '9' }
                : { 'retry-after': '2' },
          }),
      });
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url, apiKey: KEY });
      const first = (await rejection(provider.chat(hello, call()))) as ProviderError;
      const second = (await rejection(provider.chat(hello, call()))) as ProviderError;
      expect(first.retryAfterMs).toBe(1500);
      expect(second.retryAfterMs).toBe(2000);
    });

    it('parses Retry-After HTTP dates', () => {
      const now = Date.parse('2025-01-01T00:00:00Z');
      const headers = new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' });
      expect(parseRetryAfterMs(headers, now)).toBe(3000);
      expect(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
      expect(parseRetryAfterMs(new Headers(), now)).toBeUndefined();
    });

    it('keeps a short message for non-JSON error bodies', async () => {
      const s = await start({
        respond: () => ({ status: 502, body: '<html>Bad Gateway from the proxy</html>' }),
      });
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
      const error = (await rejection(provider.chat(hello, call()))) as ProviderError;
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('HTTP 502 Bad Gateway: ');
      expect(error.message).toContain('Bad Gateway from the proxy');
    });

    it('turns a refused connection into a retryable error naming the server', async () => {
      const s = await start();
      const url = s.url;
      await s.close();
      stub = undefined;
      const provider = new OpenAICompatibleProvider({ id: 'local', baseUrl: url });
      const error = (await rejection(provider.chat(hello, call()))) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.retryable).toBe(true);
      expect(error.code).toBe('connection_error');
      expect(error.message).toContain(`cannot reach local (${url})`);
      expect(error.message).toContain('is the local server running?');
    });

    it('never puts the API key in an error message', async () => {
      const s = await start({
        respond: (_body, { headers }) =>
          stubError(401, `Incorrect API key provided: ${headers.authorization}`, {
            code: 'invalid_api_key',
          }),
      });
      const provider = new OpenAICompatibleProvider({
        id: 'openai',
        baseUrl: s.url,
        apiKey: KEY,
        apiKeyEnv: 'OPENAI_API_KEY',
      });
      const error = (await rejection(provider.chat(hello, call()))) as ProviderError;
      expect(error.message).not.toContain(KEY);
      expect(String(error.stack)).not.toContain(KEY);
      expect(error.message).toBe(
        'HTTP 401 Unauthorized: Incorrect API key provided: Bearer [redacted] (check the key in OPENAI_API_KEY)',
      );
      expect(error.retryable).toBe(false);
      expect(s.count()).toBe(1);
    });
  });

  describe('cancellation', () => {
    it('aborting the signal aborts the in-flight request and surfaces AbortError', async () => {
      const s = await start({ latencyMs: 5000 });
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
      const controller = new AbortController();
      const pending = provider.chat(hello, { signal: controller.signal });
      await waitFor(() => s.count() === 1);
      const started = Date.now();
      controller.abort();
      const error = await rejection(pending);
      expect(error.name).toBe('AbortError');
      expect(error).not.toBeInstanceOf(ProviderError);
      expect(Date.now() - started).toBeLessThan(1000);
      await waitFor(() => s.aborted() === 1);
      expect(s.inFlight()).toBe(0);
    });

    it('aborting mid-stream stops the stream', async () => {
      const s = await start({ respond: () => ({ text: 'a b c d e f g h', chunkDelayMs: 50 }) });
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
      const controller = new AbortController();
      const deltas: string[] = [];
      const error = await rejection(
        provider.chat(
          { ...hello, stream: true },
          {
            signal: controller.signal,
            onDelta: (d) => {
              deltas.push(d);
              if (deltas.length === 2) controller.abort();
            },
          },
        ),
      );
      expect(error.name).toBe('AbortError');
      expect(deltas.length).toBeLessThan(8);
      await waitFor(() => s.aborted() === 1);
    });

    it('an already aborted signal sends nothing', async () => {
      const s = await start();
      const provider = new OpenAICompatibleProvider({ id: 'stub', baseUrl: s.url });
      const error = await rejection(provider.chat(hello, { signal: AbortSignal.abort() }));
      expect(error.name).toBe('AbortError');
      expect(s.count()).toBe(0);
    });
  });
});

// Real api.openai.com and llama.cpp traffic recorded with go-vcr by the Fantasy project.
const FANTASY_DIR = fileURLToPath(
  new URL('../../../shared/external-data/openai-api/cassettes-fantasy/', import.meta.url),
);
const hasFantasy = existsSync(FANTASY_DIR);
if (!hasFantasy) {
  console.warn(`skipping recorded-traffic tests: ${FANTASY_DIR} is absent`);
}

interface Recorded {
  name: string;
  requestBody: string;
  responseBody: string;
  contentType: string;
}

function recordedInteractions(): Recorded[] {
  if (!hasFantasy) return [];
  const found: Recorded[] = [];
  for (const dir of readdirSync(FANTASY_DIR, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const file of readdirSync(`${FANTASY_DIR}/${dir.name}`)) {
      if (!file.endsWith('.yaml')) continue;
      const doc = parseYaml(readFileSync(`${FANTASY_DIR}/${dir.name}/${file}`, 'utf8'));
      for (const interaction of doc.interactions ?? []) {
        const response = interaction.response;
        if (response?.code !== 200) continue;
        found.push({
          name: `${dir.name}/${file}#${interaction.id}`,
          requestBody: interaction.request.body,
          responseBody: response.body,
          contentType: response.headers?.['Content-Type']?.[0] ?? 'application/json',
        });
      }
    }
  }
  return found;
}

/** The text and usage a correct client must extract, computed straight from the recording. */
function expected(recorded: Recorded): { text: string; usage: unknown; model: string } {
  if (!recorded.contentType.startsWith('text/event-stream')) {
    const body = JSON.parse(recorded.responseBody);
    return {
      text: body.choices[0].message.content ?? '',
      usage: {
        promptTokens: body.usage.prompt_tokens,
        completionTokens: body.usage.completion_tokens,
      },
      model: body.model,
    };
  }
  let text = '';
  let usage: unknown;
  let model = '';
  for (const line of recorded.responseBody.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    model = chunk.model || model;
    text += chunk.choices?.[0]?.delta?.content ?? '';
    if (chunk.usage) {
      usage = {
        promptTokens: chunk.usage.prompt_tokens,
        completionTokens: chunk.usage.completion_tokens,
      };
    }
  }
  return { text, usage, model };
}

describe.skipIf(!hasFantasy)('recorded real-server responses (cassettes-fantasy)', () => {
  const withText = recordedInteractions().filter((r) => expected(r).text !== '');

  it('finds recorded chat completions with text', () => {
    expect(withText.some((r) => r.contentType.startsWith('application/json'))).toBe(true);
    expect(withText.some((r) => r.contentType.startsWith('text/event-stream'))).toBe(true);
  });

  it.each(withText.map((r) => [r.name, r] as const))('parses %s', async (_name, recorded) => {
    const s = await start({
      respond: () => ({
        status: 200,
        headers: { 'content-type': recorded.contentType },
        body: recorded.responseBody,
      }),
    });
    const sent = JSON.parse(recorded.requestBody);
    const streaming = recorded.contentType.startsWith('text/event-stream');
    // Only the plain system/user turns: this provider does not send tool calls.
    const messages = sent.messages.filter(
      (m: { role: string; content: unknown }) =>
        (m.role === 'system' || m.role === 'user') && typeof m.content === 'string',
    );
    const provider = new OpenAICompatibleProvider({ id: 'recorded', baseUrl: s.url, apiKey: KEY });
    const deltas: string[] = [];
    const result = await provider.chat(
      { model: sent.model, messages, stream: streaming },
      { ...call(), onDelta: (d) => deltas.push(d) },
    );
    const want = expected(recorded);
    expect(result.text).toBe(want.text);
    expect(result.usage).toEqual(want.usage);
    expect(result.model).toBe(want.model);
    expect(result.finishReason).toBe('stop');
    if (streaming) expect(deltas.join('')).toBe(want.text);
    // What we sent has the recorded request's shape for the same conversation.
    expect(s.requests[0].model).toBe(sent.model);
    expect(s.requests[0].messages).toEqual(messages);
  });
});
