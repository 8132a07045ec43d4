/**
 * A served run at the edges: its event stream when the store refused to start it or its client
 * went away while it waited for a slot (runs of a fake executor, held open as long as a test
 * needs, without a model), and a run the server has let go of, read back from the store.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchDocuments } from '../app/cli/commands/serve/reload.ts';
import { type ServeFlags, serveCommand, serveOptions } from '../app/cli/commands/serve/serve.ts';
import type { RunResult } from '../app/runtime/engine.ts';
import type { RunEvent } from '../app/runtime/events.ts';
import { serve } from '../app/serve/index.ts';
import { emptyResult, type RunExecutor, type RunHandle } from '../app/serve/runs.ts';
import { agent, edge, graph, input, output, until } from './support/graphs.ts';

const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const dir = mkdtempSync(join(tmpdir(), 'society-serve-events-'));
const file = join(dir, 'pass.society.json');
writeFileSync(
  file,
  JSON.stringify(
    graph([input('question'), output('answer')], [edge('question.value', 'answer.value')], {
      name: 'Pass it on',
    }),
  ),
);

/** A run the test ends when it likes, counting who listens to it. */
class HeldRun implements RunHandle {
  listeners = 0;
  events: RunEvent[] = [];
  #end!: (result: RunResult) => void;
  readonly result: Promise<RunResult>;
  readonly id: string;
  constructor(id: string) {
    this.id = id;
    this.result = new Promise((resolve) => {
      this.#end = resolve;
    });
  }
  subscribe(): () => void {
    this.listeners++;
    return () => {
      this.listeners--;
    };
  }
  /** Set to keep the run going when it is cancelled, until `end` (a worker slow to stop). */
  slow = false;
  cancel(): void {
    if (!this.slow) this.end();
  }
  end(): void {
    this.#end(emptyResult(this.id, 'cancelled'));
  }
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function flags(): ServeFlags {
  return {
    port: '0',
    host: '127.0.0.1',
    token: TOKEN,
    auth: true,
    concurrency: '1',
    queueLimit: '4',
    maxBody: '65536',
    provider: [],
    allowHost: [],
    db: join(dir, `runs-${Math.random().toString(36).slice(2)}.db`),
  };
}

async function start(executor?: RunExecutor, keepFinished?: number, sseKeepAliveMs?: number) {
  const { options, close } = await serveOptions([file], flags());
  const serving = await serve({
    ...options,
    ...(executor ? { executor } : {}),
    ...(keepFinished !== undefined ? { keepFinished } : {}),
    ...(sseKeepAliveMs !== undefined ? { sseKeepAliveMs } : {}),
  });
  stops.push(async () => {
    await serving.close();
    close();
  });
  const post = async () => {
    const res = await fetch(`${serving.url}/societies/pass/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { question: 'q' } }),
    });
    return (await res.json()) as { id: string; status: string };
  };
  return { serving, post };
}

describe('a served run`s event stream', () => {
  it('ends a run the store refused to start as failed, saying why', async () => {
    const { serving, post } = await start({
      start: () => {
        throw new Error('the disk is full');
      },
    });
    const { id } = await post();
    const text = await (await fetch(`${serving.url}/runs/${id}/events`, { headers: auth })).text();
    const finished = JSON.parse(/^data: (.+)$/m.exec(text)![1]!);
    expect(finished).toMatchObject({
      type: 'run.finished',
      runId: id,
      status: 'failed',
      error: 'the disk is full',
    });
    const run = await (await fetch(`${serving.url}/runs/${id}`, { headers: auth })).json();
    expect(run).toMatchObject({ status: 'failed', error: 'the disk is full' });
  });

  it('does not follow a queued run whose client has gone by the time it starts', async () => {
    const runs: HeldRun[] = [];
    const { serving, post } = await start({
      start: (served) => {
        const run = new HeldRun(served.id);
        runs.push(run);
        return run;
      },
    });
    await post(); // holds the one slot
    const queued = await post();
    expect(queued.status).toBe('queued');
    const client = new AbortController();
    const res = await fetch(`${serving.url}/runs/${queued.id}/events`, {
      headers: auth,
      signal: client.signal,
    });
    expect(res.status).toBe(200);
    client.abort();
    await new Promise((r) => setTimeout(r, 50)); // the server sees the connection close
    runs[0]!.cancel(); // the slot frees: the queued run starts
    await serving.runner.get(queued.id)!.started;
    await new Promise((r) => setImmediate(r)); // the stream's own wait for the start is over
    // Before, the stream subscribed to it all the same and wrote to a closed connection until
    // the run ended; this one never ends by itself.
    await until(() => runs[1]!.listeners === 0, 'no one follows the run');
    expect(runs).toHaveLength(2);
  });
});

describe('an idle event stream', () => {
  it('sends comments while its run has nothing to say, so a proxy keeps it open', async () => {
    const { serving, post } = await start(
      { start: (served) => new HeldRun(served.id) },
      undefined,
      20,
    );
    const { id } = await post();
    const client = new AbortController();
    const res = await fetch(`${serving.url}/runs/${id}/events`, {
      headers: auth,
      signal: client.signal,
    });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': keep-alive\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    client.abort();
    expect(text).toMatch(/^: keep-alive\n\n/);
  });
});

describe('a stopping server', () => {
  it('refuses new runs while its runs end, so none outlives it', async () => {
    const runs: HeldRun[] = [];
    const { serving, post } = await start({
      start: (served) => {
        const run = new HeldRun(served.id);
        run.slow = true;
        runs.push(run);
        return run;
      },
    });
    await post();
    const closing = serving.close();
    const refused = await fetch(`${serving.url}/societies/pass/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { question: 'late' } }),
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: { message: 'the server is stopping' } });
    expect(runs).toHaveLength(1);
    runs[0]!.end();
    await closing;
  });
});

describe('a long-running server', () => {
  it('lets go of older finished runs, which it then reads from the store', async () => {
    const { serving, post } = await start(undefined, 1);
    const wait = async (id: string) =>
      (await fetch(`${serving.url}/runs/${id}?wait=1`, { headers: auth })).json();
    const first = await post();
    const held = await wait(first.id);
    expect(held).toMatchObject({ society: 'pass', status: 'succeeded', outputs: { answer: 'q' } });
    const second = await post();
    await wait(second.id);
    expect(serving.runner.get(first.id)).toBeUndefined();
    expect(serving.runner.get(second.id)).toBeDefined();
    expect(await wait(first.id)).toEqual(held);
    // Cancelling it, read from the store, says how it ended, as for a run the server holds.
    const late = await fetch(`${serving.url}/runs/${first.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: { message: string } }).error.message).toBe(
      `run "${first.id}" already ended: succeeded, nothing to cancel`,
    );
    const events = await (
      await fetch(`${serving.url}/runs/${first.id}/events`, { headers: auth })
    ).text();
    expect(events.trim().split('\n\n').at(-1)).toMatch(/^event: run.finished/);
  });
});

describe('/openapi.json', () => {
  it('documents the refusals every endpoint may answer', async () => {
    const { serving } = await start();
    const api = (await (await fetch(`${serving.url}/openapi.json`, { headers: auth })).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [path, methods] of Object.entries(api.paths))
      for (const [method, operation] of Object.entries(methods))
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['401', '403']),
        );
    expect(Object.keys(api.paths['/runs/{id}']!.delete!.responses)).toContain('409');
  });
});

describe('a served file edited', () => {
  it('keeps the last good version when the edit needs a key that is not set, saying so', async () => {
    const copy = join(dir, 'edited.society.json');
    copyFileSync(file, copy);
    const { options, check, close } = await serveOptions([copy], flags());
    const log: string[] = [];
    const unwatch = watchDocuments(
      options.societies,
      () => {},
      check,
      (l) => log.push(l),
      20,
    );
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      writeFileSync(
        copy,
        JSON.stringify(
          graph(
            [input('question'), agent('a', '{{ question }}'), output('answer')],
            [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
            { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } } },
          ),
        ),
      );
      await until(() => log.length > 0, 'the reload');
      expect(log[0]).toMatch(
        /^.*edited\.society\.json: kept the last good version of "edited": OPENAI_API_KEY is not set: .*; nothing was sent\. /,
      );
      expect(log[0]).not.toContain('society:');
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
      unwatch();
      close();
    }
  });
});

describe('society serve at start', () => {
  it('refuses a society whose key is not set, offering its own flags', async () => {
    const needsKey = join(dir, 'ask.society.json');
    writeFileSync(
      needsKey,
      JSON.stringify(
        graph(
          [input('question'), agent('a', '{{ question }}'), output('answer')],
          [edge('question.value', 'a.question'), edge('a.text', 'answer.value')],
          { models: { m: { provider: 'openai', model: 'gpt-4o-mini' } } },
        ),
      ),
    );
    const alsoNeedsKey = join(dir, 'ask-too.society.json');
    copyFileSync(needsKey, alsoNeedsKey);
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const refused = await serveOptions([needsKey, file, alsoNeedsKey], flags()).catch(
        (error: Error) => error,
      );
      expect(refused).toBeInstanceOf(Error);
      // Every document that cannot be served is named, each once, then what to do, once.
      const lines = (refused as Error).message.split('\n');
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(/^society: .*\/ask\.society\.json: OPENAI_API_KEY is not set: /);
      expect(lines[1]).toMatch(/^society: .*\/ask-too\.society\.json: OPENAI_API_KEY is not set: /);
      expect(lines[2]).toMatch(/--provider NAME=URL\[,key=VAR\], or serve with --simulate$/);
      expect(lines[2]).not.toContain('--model');
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('refuses a society whose MCP server is missing, suggesting only what serve takes', async () => {
    const needsTools = join(dir, 'tooled.society.json');
    writeFileSync(
      needsTools,
      JSON.stringify(
        graph(
          [
            input('question'),
            agent('asker', '{{ question }}', { tools: [{ mcp: 'nowhere', allow: ['get-sum'] }] }),
            output('answer'),
          ],
          [edge('question.value', 'asker.question'), edge('asker.text', 'answer.value')],
          // A local provider needs no key: the MCP server is all that is missing.
          { models: { m: { provider: 'ollama', model: 'llama3.2' } } },
        ),
      ),
    );
    const refused = await serveOptions([needsTools], { ...flags(), simulate: false }).catch(
      (error: Error) => error,
    );
    const lines = (refused as Error).message.split('\n');
    expect(lines[0]).toMatch(
      /^society: .*\/tooled\.society\.json: no MCP server "nowhere": add it with society mcp --add nowhere=URL \(for asker\)$/,
    );
    expect(lines.at(-1)).toBe(
      'society: nothing was sent. Add the server, or serve with --simulate',
    );
    expect((refused as Error).message).not.toMatch(/--replay|--mcp /);
    // Simulated, no server is called: it serves.
    const { close } = await serveOptions([needsTools], { ...flags(), simulate: true });
    close();
  });

  it('prints no token for a server that could not listen', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      said.push(String(text));
      return true;
    });
    try {
      const { token: _given, ...rest } = flags();
      await expect(serveCommand([file], { ...rest, port: String(port) })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
      );
    } finally {
      write.mockRestore();
      taken.close();
    }
    expect(said.join('')).not.toContain('bearer token');
  });
});
