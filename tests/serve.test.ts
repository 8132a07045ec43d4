/**
 * `society serve`: a society served in-process on 127.0.0.1 (port 0), its model a local stub of
 * the OpenAI protocol. The official `openai` SDK chats with it (plain and streamed); the API
 * lists it, runs it with its events over SSE into the run store, and refuses what it must.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchDocuments } from '../app/cli/commands/serve/reload.ts';
import type { ServeFlags } from '../app/cli/commands/serve/serve.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { startServing } from './support/serve.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const TOKEN = 'test-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'society-serve-'));
const file = join(dir, 'echo.society.json');
writeFileSync(
  file,
  JSON.stringify(
    graph(
      [input('question'), agent('a', 'Answer: {{ question }}'), output('answer')],
      [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
      { models: { m: { provider: 'stub', model: 'stub-model' } }, name: 'echo society' },
    ),
  ),
);

/** Serves `document` with a new store in `dir` (tests/support/serve.ts). */
function start(stub: StubOpenAI, extra: Partial<ServeFlags> = {}, document = file) {
  return startServing(dir, [document], TOKEN, stub.url, extra);
}

const auth = { authorization: `Bearer ${TOKEN}` };

/** What the server answers, as far as these tests read it. */
interface Answer {
  error: { message: string; field?: string };
  id: string;
  status: string;
}

const answer = async (res: Response) => (await res.json()) as Answer;

/** A raw request, for headers fetch will not send (Host). */
function raw(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Answer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('society serve', () => {
  let stub: StubOpenAI;
  let server: Awaited<ReturnType<typeof start>>;
  let url: string;

  beforeAll(async () => {
    stub = await startStubOpenAI();
    server = await start(stub);
    url = server.serving.url;
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.close();
  });

  it('answers the openai SDK as a model, plain and streamed, with the society`s tokens', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['echo']);

    const reply = await client.chat.completions.create({
      model: 'echo',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'user', content: 'Is the sky blue?' },
      ],
    });
    // The stub echoes the agent's prompt: the last user message reached the society's input.
    expect(reply.choices[0]!.message.content).toBe('echo: Answer: Is the sky blue?');
    expect(reply.usage!.total_tokens).toBeGreaterThan(0);
    expect(reply.usage!.total_tokens).toBe(
      reply.usage!.prompt_tokens + reply.usage!.completion_tokens,
    );

    const stream = await client.chat.completions.create({
      model: 'echo',
      messages: [{ role: 'user', content: 'And the grass?' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('echo: Answer: And the grass?');
  });

  it('lists the society with its input and output schemas', async () => {
    const res = await fetch(`${url}/societies`, { headers: auth });
    expect(res.status).toBe(200);
    const { societies } = (await res.json()) as { societies: unknown[] };
    expect(societies).toEqual([
      {
        name: 'echo',
        title: 'echo society',
        inputs: {
          type: 'object',
          properties: { question: { type: 'string' } },
          required: ['question'],
        },
        outputs: {
          type: 'object',
          properties: { answer: { type: 'string' } },
          required: ['answer'],
        },
      },
    ]);
    const api = (await (await fetch(`${url}/openapi.json`, { headers: auth })).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(api.openapi).toBe('3.1.0');
    expect(Object.keys(api.paths)).toContain('/v1/chat/completions');
  });

  it('streams a run`s events over SSE, ending with its outputs, and keeps it in the store', async () => {
    const res = await fetch(`${url}/societies/echo/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { question: 'Two plus two?' } }),
    });
    expect(res.status).toBe(202);
    const { id } = await answer(res);
    const events = await fetch(`${url}/runs/${id}/events`, { headers: auth });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await events.text()).trim().split('\n\n');
    const types = frames.map((f) => /^event: (.+)$/m.exec(f)?.[1]);
    expect(types[0]).toBe('run.started');
    expect(types).toContain('model.response');
    expect(types.at(-1)).toBe('run.finished');
    const finished = JSON.parse(/^data: (.+)$/m.exec(frames.at(-1)!)![1]!);
    expect(finished).toMatchObject({
      status: 'succeeded',
      outputs: { answer: 'echo: Answer: Two plus two?' },
    });

    const waited = await (await fetch(`${url}/runs/${id}?wait=1`, { headers: auth })).json();
    expect(waited).toMatchObject({ id, society: 'echo', status: 'succeeded' });
    // Cancelling a run that has ended leaves it as it ended, and says so.
    const late = await fetch(`${url}/runs/${id}`, { method: 'DELETE', headers: auth });
    expect(late.status).toBe(409);
    expect((await answer(late)).error).toEqual({
      message: `run "${id}" already ended: succeeded, nothing to cancel`,
      field: 'id',
    });
    expect(await (await fetch(`${url}/runs/${id}`, { headers: auth })).json()).toMatchObject({
      status: 'succeeded',
    });
    const store = openRunStore(server.db);
    try {
      expect(store.getRun(id)).toMatchObject({ status: 'succeeded', graphName: 'echo society' });
      expect(store.events(id).map((e) => e.type)).toEqual(
        frames.map((f) => /^event: (.+)$/m.exec(f)?.[1]),
      );
    } finally {
      store.close();
    }
  });

  it('refuses a request without the token, a bad body, and another Host', async () => {
    const anonymous = await fetch(`${url}/societies`);
    expect(anonymous.status).toBe(401);
    expect((await answer(anonymous)).error.field).toBe('Authorization');

    const post = (body: unknown) =>
      fetch(`${url}/societies/echo/runs`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [body, field] of [
      [{ inputs: { question: 5 } }, 'inputs.question'],
      [{ inputs: { colour: 'red' } }, 'inputs.colour'],
      [{ inputs: {} }, 'inputs.question'],
      [{ input: {} }, 'input'],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await answer(res)).error.field).toBe(field);
    }
    const chat = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: 'hi' }),
    });
    expect(chat.status).toBe(400);
    expect(await chat.json()).toEqual({
      error: { message: expect.stringContaining('messages'), field: 'messages' },
    });
    const big = await post({ inputs: { question: 'x'.repeat(70_000) } });
    expect(big.status).toBe(413);
    expect((await answer(big)).error.field).toBe('body');

    const rebound = await raw(`${url}/societies`, { ...auth, host: 'attacker.example:80' });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.field).toBe('Host');
    const crossSite = await raw(`${url}/societies`, {
      ...auth,
      origin: 'https://attacker.example',
    });
    expect(crossSite.status).toBe(403);
  });
});

describe('society serve under load', () => {
  it('answers 429 with Retry-After beyond its concurrency and queue', async () => {
    const stub = await startStubOpenAI({ latencyMs: 2_000 });
    const server = await start(stub, { concurrency: '1', queueLimit: '1' });
    try {
      const post = () =>
        fetch(`${server.serving.url}/societies/echo/runs`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ inputs: { question: 'slow?' } }),
        });
      const running = await post();
      const queued = await post();
      const refused = await post();
      expect([running.status, queued.status, refused.status]).toEqual([202, 202, 429]);
      expect((await answer(queued)).status).toBe('queued');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Cancelling frees the slot: the queued run starts, and a new one is accepted in the queue.
      const { id } = await answer(running);
      const cancelled = await fetch(`${server.serving.url}/runs/${id}`, {
        method: 'DELETE',
        headers: auth,
      });
      expect((await answer(cancelled)).status).toBe('cancelled');
      const again = await fetch(`${server.serving.url}/runs/${id}`, {
        method: 'DELETE',
        headers: auth,
      });
      expect([again.status, (await answer(again)).error.message]).toEqual([
        409,
        `run "${id}" already ended: cancelled, nothing to cancel`,
      ]);
      expect((await post()).status).toBe(202);
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('cancels a run that takes longer than --timeout, saying so', async () => {
    const stub = await startStubOpenAI({ latencyMs: 5_000 });
    const server = await start(stub, { timeout: '0.2' });
    try {
      const res = await fetch(`${server.serving.url}/societies/echo/runs`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ inputs: { question: 'slow?' } }),
      });
      const { id } = await answer(res);
      const ended = await answer(
        await fetch(`${server.serving.url}/runs/${id}?wait=1`, { headers: auth }),
      );
      expect(ended).toMatchObject({
        status: 'cancelled',
        error: 'the run took longer than 0.2 s and was cancelled',
      });
      // The model call in flight was aborted, not left to finish.
      for (let i = 0; i < 40 && stub.aborted() === 0; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(stub.aborted()).toBe(1);
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('answers 20 concurrent chats with 100 ms model latency, 3 at a time, none lost', async () => {
    const stub = await startStubOpenAI({ latencyMs: 100 });
    const server = await start(stub, { concurrency: '3', queueLimit: '20' });
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.chat.completions.create({
            model: 'echo',
            messages: [{ role: 'user', content: `question ${i}` }],
          }),
        ),
      );
      expect(answers.map((a) => a.choices[0]!.message.content)).toEqual(
        Array.from({ length: 20 }, (_, i) => `echo: Answer: question ${i}`),
      );
      expect(stub.count()).toBe(20);
      expect(stub.peakConcurrency()).toBe(3);
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it("labels a simulated society's chat answer as simulated, and sends nothing to a model", async () => {
    const stub = await startStubOpenAI();
    const server = await start(stub, { simulate: true });
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const reply = await client.chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'Is the sky blue?' }],
      });
      expect(reply.choices[0]!.message.content).toMatch(/^\[simulated\] /);
      expect(stub.count()).toBe(0);
    } finally {
      await server.stop();
      await stub.close();
    }
  });

  it('refuses --no-auth beyond loopback and an invalid document (exit 2)', async () => {
    const open = await societyHere(['serve', file, '--no-auth', '--host', '0.0.0.0']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--no-auth is accepted only on a loopback address');
    const broken = join(dir, 'broken.society.json');
    writeFileSync(broken, JSON.stringify(graph([output('answer')], [])));
    const invalid = await societyHere(['serve', file, broken, '--db', join(dir, 'x.db')]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain(`${broken}: `);
  });
});

describe('society serve keeps keys and follows edits', () => {
  it('never answers with a provider key, even when a model repeats it', async () => {
    const key = 'sk-serve-test-key-0123456789abcdef';
    process.env.SERVE_TEST_STUB_KEY = key;
    // A model that repeats the Authorization header it was sent: the key reaches the output.
    const stub = await startStubOpenAI({
      respond: (_body, ctx) => ({ text: `I was sent ${ctx.headers.authorization}` }),
    });
    const server = await start(stub, { provider: [`stub=${stub.url},key=SERVE_TEST_STUB_KEY`] });
    try {
      const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
      const reply = await client.chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'What were you sent?' }],
      });
      expect(stub.headers[0]!.authorization).toBe(`Bearer ${key}`);
      expect(reply.choices[0]!.message.content).toMatch(/^I was sent Bearer /);
      expect(JSON.stringify(reply)).not.toContain(key);
      const runId = reply.id.replace('chatcmpl-', '');
      const events = await (
        await fetch(`${server.serving.url}/runs/${runId}/events`, { headers: auth })
      ).text();
      expect(events).toContain('run.finished');
      expect(events).not.toContain(key);
    } finally {
      delete process.env.SERVE_TEST_STUB_KEY;
      await server.stop();
      await stub.close();
    }
  });

  it('serves an edited document from the next request, and keeps the last good one on a broken edit', async () => {
    const copy = join(dir, 'edited.society.json');
    const doc = (prompt: string) =>
      JSON.stringify(
        graph(
          [input('question'), agent('a', prompt), output('answer')],
          [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
          { models: { m: { provider: 'stub', model: 'stub-model' } } },
        ),
      );
    writeFileSync(copy, doc('First: {{ question }}'));
    const stub = await startStubOpenAI();
    const server = await start(stub, {}, copy);
    const log: string[] = [];
    const unwatch = watchDocuments(
      server.options.societies,
      server.serving.replace,
      server.check,
      (line) => log.push(line),
      50,
    );
    const client = new OpenAI({ baseURL: `${server.serving.url}/v1`, apiKey: TOKEN });
    const ask = async () =>
      (
        await client.chat.completions.create({
          model: 'edited',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).choices[0]!.message.content;
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      expect(await ask()).toBe('echo: First: hi');
      writeFileSync(copy, doc('Second: {{ question }}'));
      await until(() => log.length > 0);
      expect(log).toEqual([`${copy}: reloaded "edited"`]);
      expect(await ask()).toBe('echo: Second: hi');
      writeFileSync(copy, '{ "version": 1, "nodes": [');
      await until(() => log.length > 1);
      expect(log[1]).toContain(`${copy}: kept the last good version of "edited": `);
      expect(await ask()).toBe('echo: Second: hi');
      rmSync(copy);
      await until(() => log.length > 2);
      expect(log[2]).toBe(
        `${copy}: kept the last good version of "edited": cannot read ${copy} (ENOENT)`,
      );
      expect(await ask()).toBe('echo: Second: hi');
    } finally {
      unwatch();
      await server.stop();
      await stub.close();
    }
  });
});
