import { afterEach, describe, expect, it } from 'vitest';
import { type StubOpenAI, startStubOpenAI } from './stub-openai.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const chat = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

describe('stub OpenAI server', () => {
  it('answers in the Chat Completions shape and records requests', async () => {
    stub = await startStubOpenAI();
    const body = { model: 'm', messages: [{ role: 'user', content: 'ping' }] };
    const res = await chat(stub.url, body);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toMatchObject({
      id: expect.any(String),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'm',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'echo: ping' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
    });
    expect(stub.requests).toEqual([body]);
  });

  it('streams SSE chunks, a usage chunk when asked, then [DONE]', async () => {
    stub = await startStubOpenAI({
      respond: () => ({ text: 'a b', usage: { prompt_tokens: 1, completion_tokens: 2 } }),
    });
    const res = await chat(stub.url, {
      model: 'm',
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text()).trim().split('\n\n');
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('a b');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
  });

  it('lists models and answers unknown routes with an OpenAI error', async () => {
    stub = await startStubOpenAI({ models: ['x', 'y'] });
    const models = (await (await fetch(`${stub.url}/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((m) => m.id)).toEqual(['x', 'y']);
    const missing = await fetch(`${stub.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
    });
  });

  it('tracks concurrency and client disconnects during latency', async () => {
    stub = await startStubOpenAI({ latencyMs: 100 });
    const body = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    await Promise.all([chat(stub.url, body), chat(stub.url, body), chat(stub.url, body)]);
    expect(stub.peakConcurrency()).toBe(3);
    expect(stub.inFlight()).toBe(0);
    expect(stub.aborted()).toBe(0);

    const controller = new AbortController();
    const pending = chat(stub.url, body, controller.signal).catch((e: Error) => e);
    while (stub.count() < 4) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(((await pending) as Error).name).toBe('AbortError');
    while (stub.aborted() < 1) await new Promise((r) => setTimeout(r, 5));
    expect(stub.aborted()).toBe(1);
  });
});
