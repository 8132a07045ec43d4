/**
 * Per-request budgets of `society serve`: a run request's `budget` and a chat request's
 * `budget_usd` (or its header) cap what that one run spends, within the server's `--budget`;
 * a run its budget stops fails saying so, and a chat client is not left to run it again.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { serve } from '../app/serve/index.ts';
import { agent, edge, graph, input, output } from './support/graphs.ts';
import { type StubOpenAI, startStubOpenAI } from './support/stub-openai.ts';

const TOKEN = 'test-token-budget-0123456789';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'society-serve-budget-'));
// Two calls in a row: a draft, then its revision.
const file = join(dir, 'two-calls.society.json');
writeFileSync(
  file,
  JSON.stringify(
    graph(
      [
        input('question'),
        agent('draft', 'Answer: {{ question }}'),
        agent('revise', 'Revise: {{ draft }}'),
        output('answer'),
      ],
      [
        edge('question.value', 'draft.question'),
        edge('draft.text', 'revise.draft'),
        edge('revise.text', 'answer.value'),
      ],
      { models: { m: { provider: 'stub', model: 'priced-model' } } },
    ),
  ),
);

interface Answer {
  id: string;
  status: string;
  error?: string | { message: string; field?: string };
  usage?: { calls: number };
}

describe('per-request budgets', () => {
  let stub: StubOpenAI;
  let server: { url: string; close(): Promise<void> };
  let closeStore: () => void;

  beforeAll(async () => {
    stub = await startStubOpenAI();
    const flags: ServeFlags = {
      port: '0',
      host: '127.0.0.1',
      token: TOKEN,
      auth: true,
      concurrency: '2',
      queueLimit: '4',
      maxBody: '65536',
      budget: '1',
      provider: [`stub=${stub.url}`],
      allowHost: [],
      db: join(dir, 'runs.db'),
    };
    const { options, close } = await serveOptions([file], flags);
    closeStore = close;
    // A cent a thousand tokens: a call's worst case (its prompt and 1024 answer tokens) just above a cent.
    const price = { inputPerMillion: 10, outputPerMillion: 10 };
    server = await serve({ ...options, prices: { ...options.prices, 'priced-model': price } });
  });
  afterAll(async () => {
    await server?.close();
    closeStore?.();
    await stub?.close();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...auth, ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  };

  it('stops a run at its request`s budget of calls, saying so', async () => {
    const started = await post('/societies/two-calls/runs', {
      inputs: { question: 'Is 7 prime?' },
      budget: { calls: 1 },
    });
    expect(started.status).toBe(202);
    const res = await fetch(`${server.url}/runs/${started.body.id}?wait=1`, { headers: auth });
    const run = (await res.json()) as Answer;
    expect(run.status).toBe('failed');
    expect(run.error).toContain('budget exceeded: the run may make at most 1 model calls');
    expect(run.usage!.calls).toBe(1);
  });

  it('takes a form`s budget from its header, the one place a form has for it', async () => {
    const form = new FormData();
    form.set('question', 'Is 7 prime?');
    const started = await fetch(`${server.url}/societies/two-calls/runs`, {
      method: 'POST',
      headers: { authorization: auth.authorization, 'x-society-budget-usd': '0.01' },
      body: form,
    });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as Answer;
    const run = (await (
      await fetch(`${server.url}/runs/${id}?wait=1`, { headers: auth })
    ).json()) as Answer;
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/budget exceeded: the next call could cost .* at most \$0\.01 /);

    form.set('question', 'Is 9 prime?');
    const refused = await fetch(`${server.url}/societies/two-calls/runs`, {
      method: 'POST',
      headers: { authorization: auth.authorization, 'x-society-budget-usd': '5' },
      body: form,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Answer).error).toMatchObject({
      field: 'X-Society-Budget-Usd',
    });
  });

  it('refuses a budget that does not fit, and one above what the server has left', async () => {
    for (const [body, field] of [
      [{ inputs: { question: 'q' }, budget: { calls: 0 } }, 'budget.calls'],
      [{ inputs: { question: 'q' }, budget: { dollars: 1 } }, 'budget.dollars'],
      [{ inputs: { question: 'q' }, budget: { usd: 5 } }, 'budget.usd'],
    ] as const) {
      const refused = await post('/societies/two-calls/runs', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toMatchObject({ field });
    }
    const chat = { model: 'two-calls', messages: [{ role: 'user', content: 'q' }] };
    const above = await post('/v1/chat/completions', { ...chat, budget_usd: 2 });
    expect(above.status).toBe(400);
    expect(above.body.error).toEqual({
      message: expect.stringMatching(
        /^budget_usd: asks \$2 but the server has \$(1|0\.\d+) of its budget left$/,
      ),
      field: 'budget_usd',
    });
    const header = await post('/v1/chat/completions', chat, { 'x-society-budget-usd': 'lots' });
    expect(header.status).toBe(400);
    expect(header.body.error).toMatchObject({ field: 'X-Society-Budget-Usd' });
  });

  it('answers a chat its budget stops with an error naming it, which the SDK does not retry', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: TOKEN });
    const before = stub.count();
    // One call's worst case costs more than a cent: the first call is refused before it is sent.
    const plain = client.chat.completions.create(
      { model: 'two-calls', messages: [{ role: 'user', content: 'Is 7 prime?' }] },
      { headers: { 'X-Society-Budget-Usd': '0.01' } },
    );
    await expect(plain).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('budget exceeded'),
    });
    const stream = await client.chat.completions.create({
      model: 'two-calls',
      messages: [{ role: 'user', content: 'Is 7 prime?' }],
      stream: true,
      // @ts-expect-error: the server's extension of the request
      budget_usd: 0.01,
    });
    const streamed = (async () => {
      for await (const _chunk of stream) {
        // the error ends it
      }
    })();
    await expect(streamed).rejects.toThrow(/budget exceeded/);
    expect(stub.count()).toBe(before);
    // The SDKs retry a 5xx unless told not to: a failed run is not run again behind the client.
    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        model: 'two-calls',
        messages: [{ role: 'user', content: 'q' }],
        budget: { usd: 0.01 },
      }),
    });
    expect(raw.status).toBe(502);
    expect(raw.headers.get('x-should-retry')).toBe('false');
    expect(((await raw.json()) as Answer).error).toMatchObject({ field: 'budget' });

    // Within the budget, the same request is answered.
    const reply = await client.chat.completions.create({
      model: 'two-calls',
      messages: [{ role: 'user', content: 'Is 7 prime?' }],
      // @ts-expect-error: the server's extension of the request
      budget_usd: 0.5,
    });
    expect(reply.choices[0]!.message.content).toBe('echo: Revise: echo: Answer: Is 7 prime?');
  });
});
