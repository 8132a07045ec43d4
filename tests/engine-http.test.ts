/**
 * The engine against a real HTTP server speaking the OpenAI protocol: retries, timeouts and
 * cancellation as they happen on the wire.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createChatProvider } from '../app/providers/registry.ts';
import type { ChatProvider } from '../app/providers/types.ts';
import type { RunSettings } from '../app/schema/document.ts';
import {
  agent,
  edge,
  eventsOf,
  graph,
  input,
  nextEvent,
  output,
  run,
  start,
  until,
} from './support/graphs.ts';
import {
  type StubOpenAI,
  type StubOptions,
  startStubOpenAI,
  stubError,
} from './support/stub-openai.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function serve(options: StubOptions): Promise<StubOpenAI> {
  stub = await startStubOpenAI(options);
  return stub;
}

/** `n` parallel agents on provider `openai`, pointed at the stub with no key. */
function agents(n: number, settings: RunSettings) {
  const ids = Array.from({ length: n }, (_, i) => `a${i}`);
  return graph(
    [
      input('q'),
      ...ids.map((id) => agent(id, `${id}: {{ q }}`)),
      ...ids.map((id) => output(`o${id}`)),
    ],
    [
      ...ids.map((id) => edge('q.value', `${id}.q`)),
      ...ids.map((id) => edge(`${id}.text`, `o${id}.value`)),
    ],
    { models: { m: { provider: 'openai', model: 'gpt-test' } }, settings },
  );
}

/** Routes provider `openai` to the stub; an empty apiKeyEnv means "no key needed". */
const overStub = (s: StubOpenAI) => ({
  providerOverrides: { openai: { baseUrl: s.url, apiKeyEnv: '' } },
  env: {},
  inputs: { q: 'hello' },
});

describe('engine over HTTP', () => {
  it('retries 429 twice and completes on the third request', async () => {
    const s = await serve({
      respond: (_body, { index }) =>
        index < 2
          ? stubError(429, 'Rate limit reached', { code: 'rate_limit_exceeded' })
          : { text: 'finally' },
    });
    const { status, outputs, events } = await run(agents(1, { retry: { baseMs: 1 } }), overStub(s));
    expect(status).toBe('succeeded');
    expect(outputs).toEqual({ oa0: 'finally' });
    expect(s.count()).toBe(3);
    expect(eventsOf(events, 'model.retry').map((e) => e.attempt)).toEqual([1, 2]);
    expect(eventsOf(events, 'model.response')[0]).toMatchObject({ attempts: 3, text: 'finally' });
  });

  it('gives up on a server that keeps failing, after the configured attempts', async () => {
    const s = await serve({ respond: () => stubError(500, 'The server had an error') });
    const { status, error } = await run(
      agents(1, { retry: { attempts: 3, baseMs: 1 } }),
      overStub(s),
    );
    expect(status).toBe('failed');
    expect(s.count()).toBe(3);
    expect(error).toMatch(/^node "a0": gave up after 3 attempts: .*500/);
    expect(error).toContain('The server had an error');
  });

  it('does not retry a request the server rejects', async () => {
    const s = await serve({ respond: () => stubError(400, 'Invalid model') });
    const { error } = await run(agents(1, { retry: { attempts: 3, baseMs: 1 } }), overStub(s));
    expect(s.count()).toBe(1);
    expect(error).toMatch(/^node "a0": .*Invalid model/);
  });

  it("fails a call whose answer goes past the document's answer limit, without retrying", async () => {
    const s = await serve({ respond: () => ({ text: 'word '.repeat(1000) }) });
    const { status, error } = await run(
      agents(1, { limits: { answerBytes: 1024 }, retry: { attempts: 3, baseMs: 1 } }),
      overStub(s),
    );
    expect(status).toBe('failed');
    expect(error).toBe(
      `node "a0": answer from openai (${s.url}) went past 1 KiB (settings.limits.answerBytes)`,
    );
    expect(s.count()).toBe(1);
  });

  it('times out a call that takes too long', async () => {
    const s = await serve({ latencyMs: 5_000 });
    const { status, error } = await run(
      agents(1, { timeoutMs: 50, retry: { attempts: 2, baseMs: 1 } }),
      overStub(s),
    );
    expect(status).toBe('failed');
    expect(error).toBe('node "a0": gave up after 2 attempts: model call timed out after 50 ms');
    expect(s.count()).toBe(2);
    await until(() => s.aborted() === 2, 'the stub to see both requests dropped');
  });

  it("does not count a provider's first load against a call's timeout", async () => {
    const s = await serve({ respond: () => ({ text: 'loaded, then answered' }) });
    // The real provider for the stub, whose client library (as the OpenAI SDK is on a
    // process's first call) takes longer to load than a call may last.
    const real = createChatProvider(
      { name: 'openai', kind: 'openai-compatible', baseUrl: s.url, apiKeyEnv: '' },
      {},
    );
    let library: Promise<void> | undefined;
    const load = () => {
      library ??= new Promise((resolve) => setTimeout(resolve, 300));
      return library;
    };
    let loaded = false;
    const slowToLoad: ChatProvider = {
      id: 'openai',
      // Its own load, then the real provider's (the SDK, loaded once per process).
      ready: () =>
        loaded
          ? real.ready?.()
          : load().then(() => {
              loaded = true;
              return real.ready?.();
            }),
      async chat(request, options) {
        await load();
        return real.chat(request, options);
      },
    };
    const { status, outputs, error } = await run(
      agents(1, { timeoutMs: 100, retry: { attempts: 1 } }),
      {
        ...overStub(s),
        providerFor: () => slowToLoad,
      },
    );
    expect(error).toBeUndefined();
    expect(status).toBe('succeeded');
    expect(outputs).toEqual({ oa0: 'loaded, then answered' });
    expect(s.count()).toBe(1);
  });

  it('cancel() aborts every request in flight', async () => {
    const s = await serve({ latencyMs: 10_000 });
    const r = await start(agents(3, { concurrency: { default: 3 } }), overStub(s));
    await until(() => s.inFlight() === 3, 'three requests in flight');
    r.cancel();
    const result = await r.result;
    expect(result.status).toBe('cancelled');
    await until(() => s.aborted() === 3, 'the stub to see three requests dropped');
    expect(s.aborted()).toBe(3);
    expect(eventsOf(r.events, 'run.finished')[0]).toMatchObject({ status: 'cancelled' });
    expect(eventsOf(r.events, 'model.error')).toEqual([]);
  });

  it('cancels through the signal passed to the run', async () => {
    const s = await serve({ latencyMs: 10_000 });
    const controller = new AbortController();
    const r = await start(agents(2, {}), { ...overStub(s), signal: controller.signal });
    await nextEvent(r, 'model.request');
    await until(() => s.inFlight() === 2, 'two requests in flight');
    controller.abort();
    expect((await r.result).status).toBe('cancelled');
    await until(() => s.aborted() === 2, 'the stub to see two requests dropped');
  });

  it('streams an answer as deltas when the agent asks for it', async () => {
    const s = await serve({
      respond: () => ({ text: 'one two three', chunks: ['one ', 'two ', 'three'] }),
    });
    const doc = agents(1, {});
    doc.nodes[1]!.data.stream = true;
    const { outputs, events } = await run(doc, overStub(s));
    expect(outputs).toEqual({ oa0: 'one two three' });
    expect(s.requests[0].stream).toBe(true);
    expect(eventsOf(events, 'model.delta').map((e) => e.text)).toEqual(['one ', 'two ', 'three']);
  });

  it('fails clearly when the key variable is not set, before any request', async () => {
    const s = await serve({});
    const r = await run(agents(1, {}), {
      providerOverrides: { openai: { baseUrl: s.url } },
      env: {},
      inputs: { q: '?' },
    });
    expect(r.error).toMatch(
      /^nothing was sent: a key is not set: OPENAI_API_KEY \(provider "openai" with model profile \S+, for node a0\); export it, or run with --simulate or --replay CASSETTE$/,
    );
    expect(s.count()).toBe(0);
    // The run never got as far as a call.
    expect(eventsOf(r.events, 'model.request')).toEqual([]);
  });
});
