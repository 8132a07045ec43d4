import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StubOpenAI, startStubOpenAI } from '../../tests/support/stub-openai.ts';
import {
  Cassette,
  CassetteMissError,
  CassetteProvider,
  normalizeRequest,
  requestKey,
} from './cassette.ts';
import { OpenAICompatibleProvider } from './openai.ts';
import { SimulatedProvider } from './simulated.ts';
import type { ChatRequest, ChatResult } from './types.ts';
import { ProviderError } from './types.ts';

const KEY = 'sk-cassette-secret-42';
let stub: StubOpenAI | undefined;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cassette-test-'));
});
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  await rm(dir, { recursive: true, force: true });
});

const call = () => ({ signal: AbortSignal.timeout(10_000) });
const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'gpt-test',
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content },
  ],
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject');
}

/** A live provider whose answers differ per request number, to tell them apart. */
async function liveStub(): Promise<{ stub: StubOpenAI; live: OpenAICompatibleProvider }> {
  stub = await startStubOpenAI({
    respond: (body, { index }) => ({
      text: `answer ${index} to ${body.messages.at(-1).content}`,
      usage: { prompt_tokens: 10 + index, completion_tokens: 3 },
      model: 'gpt-test-2025',
    }),
  });
  return {
    stub,
    live: new OpenAICompatibleProvider({ id: 'openai', baseUrl: stub.url, apiKey: KEY }),
  };
}

function comparable(result: ChatResult) {
  const { source: _source, ...rest } = result;
  return rest;
}

describe('CassetteProvider', () => {
  it('records live answers, then replays them identically without any request', async () => {
    const { stub: s, live } = await liveStub();
    const recorder = new CassetteProvider({ cassette: new Cassette(), mode: 'record', live });
    const requests = [ask('one'), ask('two', { temperature: 0 }), ask('one'), ask('one')];
    const recorded: ChatResult[] = [];
    for (const request of requests) recorded.push(await recorder.chat(request, call()));
    expect(recorded.map((r) => r.source)).toEqual(['live', 'live', 'live', 'live']);
    expect(s.count()).toBe(4);
    const path = join(dir, 'run.cassette.json');
    await recorder.cassette.save(path);

    // Strict replay from the file: same answers, in the same order, from the cassette.
    const replay = new CassetteProvider({ cassette: await Cassette.load(path), mode: 'replay' });
    const replayed: ChatResult[] = [];
    for (const request of requests) replayed.push(await replay.chat(request, call()));
    expect(replayed.map(comparable)).toEqual(recorded.map(comparable));
    expect(replayed.every((r) => r.source === 'cassette')).toBe(true);

    // Replay-then-live with the stub as fallback: the stub sees nothing new.
    const fallback = new CassetteProvider({
      cassette: await Cassette.load(path),
      mode: 'replay-then-live',
      live,
    });
    for (const request of requests) await fallback.chat(request, call());
    expect(s.count()).toBe(4);

    // Once the recorded answers of a request run out, the last one repeats.
    expect((await replay.chat(ask('one'), call())).text).toBe(recorded[3]?.text);
  });

  it('writes a stable, key-free file', async () => {
    const { live } = await liveStub();
    const recorder = new CassetteProvider({ cassette: new Cassette(), mode: 'record', live });
    for (const content of ['zeta', 'alpha', 'mid']) await recorder.chat(ask(content), call());
    const path = join(dir, 'c.json');
    await recorder.cassette.save(path);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text.toLowerCase()).not.toContain('bearer');
    const json = JSON.parse(text);
    expect(Object.keys(json)).toEqual(['format', 'version', 'entries']);
    expect(json.format).toBe('society-cassette');
    expect(json.version).toBe(1);
    const keys = json.entries.map((e: { key: string }) => e.key);
    expect(keys).toEqual([...keys].sort());
    expect(Object.keys(json.entries[0])).toEqual(['key', 'request', 'responses']);
    expect(json.entries[0].responses[0]).toEqual({
      text: expect.any(String),
      usage: { promptTokens: expect.any(Number), completionTokens: 3 },
      model: 'gpt-test-2025',
      finishReason: 'stop',
    });
    // Saving what was loaded gives the same bytes.
    const again = join(dir, 'again.json');
    await (await Cassette.load(path)).save(again);
    expect(await readFile(again, 'utf8')).toBe(text);
  });

  it('strict replay fails clearly on a miss from an empty cassette', async () => {
    const replay = new CassetteProvider({ cassette: new Cassette(), mode: 'replay' });
    const long = `Please weigh these options carefully: ${'x'.repeat(100)} END`;
    const error = await rejection(replay.chat(ask(long, { model: 'gpt-4o' }), call()));
    expect(error).toBeInstanceOf(CassetteMissError);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect(error.name).toBe('CassetteMissError');
    expect(error.message).toContain('the cassette holds no model answers (model "gpt-4o"');
    expect(error.message).toContain(long.slice(0, 79));
    expect(error.message).not.toContain('END');
  });

  it('a miss quotes where the nearest recording parts from the request', async () => {
    const cassette = new Cassette();
    const answer = { text: 'a', usage: { promptTokens: 1, completionTokens: 1 }, model: 'm' };
    const prompt = (question: string) =>
      `Our team answers a multiple-choice question about an image. Question and options: ${question} Answer with one letter.`;
    cassette.record(ask(prompt('What is the large shape in the picture? (a) a circle')), answer);
    cassette.record(ask('Describe this image in detail.'), answer);
    const path = join(dir, 'vqa.cassette.json');
    await cassette.save(path);
    const replay = new CassetteProvider({ cassette: await Cassette.load(path), mode: 'replay' });
    const error = await rejection(
      replay.chat(ask(prompt('What is the shape in the picture? (a) a circle')), call()),
    );
    expect(error.message).toBe(
      'no recording of this request in vqa.cassette.json; the nearest recording differs at messages[1].content: "…and options: What is the shape in the picture? (a) a circle Answer…" here, "…and options: What is the large shape in the picture? (a) a circle…" recorded',
    );
    // Another model: the model is where they part.
    const other = await rejection(
      replay.chat(ask('Describe this image in detail.', { model: 'gpt-other' }), call()),
    );
    expect(other.message).toContain('differs at model: "gpt-other" here, "gpt-test" recorded');
    // A quote takes whole words, so a key in a prompt is never cut where redaction misses it.
    const key = 'sk-proj-0123456789abcdefghijklmnopqrstuvwxyz';
    const leak = await rejection(
      replay.chat(ask(prompt(`What is the large ${key} shape?`)), call()),
    );
    expect(leak.message).toContain(key);
  });

  it('replay-then-live falls back to the live provider and records its answer', async () => {
    const { stub: s, live } = await liveStub();
    const cassette = new Cassette();
    cassette.record(ask('known'), {
      text: 'from tape',
      usage: { promptTokens: 1, completionTokens: 2 },
      model: 'gpt-test',
      source: 'live',
    });
    // Read back as a file, as runs read their records: 'known' is there to be given once.
    const tape = Cassette.fromJSON(cassette.toJSON());
    const provider = new CassetteProvider({ cassette: tape, mode: 'replay-then-live', live });
    expect((await provider.chat(ask('known'), call())).text).toBe('from tape');
    expect(s.count()).toBe(0);
    const fresh = await provider.chat(ask('new'), call());
    expect(fresh).toMatchObject({ text: 'answer 0 to new', source: 'live' });
    expect(s.count()).toBe(1);
    // Asked again, it is sent again, as an unbroken live run would: an answer this run got
    // live is kept in the record, not handed back for a second ask.
    expect(await provider.chat(ask('new'), call())).toMatchObject({ source: 'live' });
    expect(s.count()).toBe(2);
    expect(tape.size).toBe(2);
  });

  it('replay-then-live gives each recorded answer once, then sends the repeat', async () => {
    const { stub: s, live } = await liveStub();
    const recorded = new Cassette();
    const answer = (text: string) => ({
      text,
      usage: { promptTokens: 1, completionTokens: 1 },
      model: 'gpt-test',
      source: 'live' as const,
    });
    recorded.record(ask('same'), answer('first'));
    recorded.record(ask('same'), answer('second'));
    const tape = Cassette.fromJSON(recorded.toJSON());
    const provider = new CassetteProvider({ cassette: tape, mode: 'replay-then-live', live });
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await provider.chat(ask('same'), call())).text);
    expect(texts.slice(0, 2)).toEqual(['first', 'second']);
    expect(s.count()).toBe(1);
    // A strict replay of the same tape repeats the last answer instead (it never sends).
    const strict = new CassetteProvider({
      cassette: Cassette.fromJSON(recorded.toJSON()),
      mode: 'replay',
    });
    const again = [];
    for (let i = 0; i < 3; i++) again.push((await strict.chat(ask('same'), call())).text);
    expect(again).toEqual(['first', 'second', 'second']);
  });

  it('keeps the simulated label through a cassette and replays deltas', async () => {
    const recorder = new CassetteProvider({
      cassette: new Cassette(),
      mode: 'record',
      live: new SimulatedProvider(),
    });
    const request = ask('Simulate me', { stream: true });
    const original = await recorder.chat(request, call());
    const cassette = Cassette.fromJSON(JSON.parse(JSON.stringify(recorder.cassette.toJSON())));
    const deltas: string[] = [];
    const replayed = await new CassetteProvider({ cassette, mode: 'replay' }).chat(request, {
      ...call(),
      onDelta: (d) => deltas.push(d),
    });
    expect(replayed).toMatchObject({ text: original.text, simulated: true, source: 'cassette' });
    expect(deltas.join('')).toBe(original.text);
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('refuses a recorded answer larger than the run allows', async () => {
    const recorder = new CassetteProvider({
      cassette: new Cassette(),
      mode: 'record',
      live: new SimulatedProvider(),
    });
    const request = ask('Simulate me');
    const original = await recorder.chat(request, call());
    const replay = new CassetteProvider({ cassette: recorder.cassette, mode: 'replay' });
    const error = await rejection(
      replay.chat(request, { ...call(), maxAnswerBytes: original.text.length - 1 }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^answer from the cassette went past \d+ bytes \(settings\.limits\.answerBytes\)$/,
    );
    expect((error as ProviderError).retryable).toBe(false);
    const fits = await replay.chat(request, { ...call(), maxAnswerBytes: original.text.length });
    expect(fits.text).toBe(original.text);
  });

  it('needs a live provider unless it only replays', () => {
    expect(() => new CassetteProvider({ cassette: new Cassette(), mode: 'record' })).toThrow(
      "cassette mode 'record' needs a live provider",
    );
  });
});

describe('request normalization', () => {
  const bytes = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37) % 256));
  const b64 = bytes.toString('base64');
  const image = (url: string): ChatRequest => ({
    model: 'gpt-4o',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Describe.' },
          { type: 'image', url },
        ],
      },
    ],
  });

  it('hashes image bytes, so base64 formatting does not matter but content does', () => {
    const plain = image(`data:image/png;base64,${b64}`);
    const wrapped = image(`data:image/png;base64,${b64.replace(/(.{8})/g, '$1\n')}`);
    const unpadded = image(`data:image/png;base64,${b64.replace(/=+$/, '')}`);
    expect(b64.endsWith('=')).toBe(true);
    expect(requestKey(wrapped)).toBe(requestKey(plain));
    expect(requestKey(unpadded)).toBe(requestKey(plain));

    const other = Buffer.from(bytes);
    other[0] = (other[0]! + 1) % 256;
    expect(requestKey(image(`data:image/png;base64,${other.toString('base64')}`))).not.toBe(
      requestKey(plain),
    );
    const hex = createHash('sha256').update(bytes).digest('hex');
    expect(normalizeRequest(plain).messages[0]?.content).toEqual([
      { type: 'text', text: 'Describe.' },
      { type: 'image', url: `sha256:${hex}`, mime: 'image/png' },
    ]);
  });

  it('keeps http image URLs, drops stream and orders keys canonically', () => {
    const request = image('https://example.com/cat.jpg');
    expect(normalizeRequest(request).messages[0]?.content).toEqual([
      { type: 'text', text: 'Describe.' },
      { type: 'image', url: 'https://example.com/cat.jpg' },
    ]);
    expect(requestKey({ ...request, stream: true })).toBe(requestKey(request));
    expect(requestKey({ ...request, extra: { b: 1, a: 2 } })).toBe(
      requestKey({ ...request, extra: { a: 2, b: 1 } }),
    );
    expect(requestKey({ ...request, temperature: 0.5 })).not.toBe(requestKey(request));
    expect(requestKey(normalizeRequest(request))).toBe(requestKey(request));
    expect(requestKey(request)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('cassette files', () => {
  it('rejects a file that is not a cassette, naming the file and the problem', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, JSON.stringify({ format: 'vcr', entries: [{ key: 1 }] }));
    const error = await rejection(Cassette.load(path));
    expect(error.message).toContain(`${path} is not a valid cassette`);
    expect(error.message).toContain('format');
    expect(error.message).toContain('entries.0.key');
  });

  it('rejects a file that is not JSON', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, 'version: 2\ninteractions: []\n');
    await expect(Cassette.load(path)).rejects.toThrow(`${path} is not a valid cassette: not JSON`);
  });

  it('reports a missing file clearly', async () => {
    await expect(Cassette.load(join(dir, 'nope.json'))).rejects.toThrow('cannot read cassette');
  });
});

describe('cassette keys with tools', () => {
  const plain: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'add 2 and 3' }] };
  const add = {
    name: 'add',
    parameters: { type: 'object', properties: { a: { type: 'number' } } },
  };

  it('keys a request without tools exactly as before tools existed', () => {
    // The normalized form of a request as cassettes recorded before tools hold it.
    const before = createHash('sha256')
      .update('{"messages":[{"content":"add 2 and 3","role":"user"}],"model":"m"}')
      .digest('hex');
    expect(requestKey(plain)).toBe(before);
    expect(requestKey({ ...plain, tools: [] })).toBe(before);
  });

  it('keys the tools offered and the tool messages', () => {
    const offered = { ...plain, tools: [add] };
    const answered: ChatRequest = {
      ...offered,
      messages: [
        ...plain.messages,
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'add', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'c1', content: '5' },
      ],
    };
    const keys = new Set([plain, offered, answered].map((r) => requestKey(r)));
    expect(keys.size).toBe(3);
  });

  it('keeps tool calls, tool results and tool lists through the file format', () => {
    const cassette = new Cassette();
    cassette.record(
      { ...plain, tools: [add] },
      {
        text: '',
        usage: { promptTokens: 1, completionTokens: 1 },
        model: 'm',
        source: 'live',
        toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a":2}' }],
      },
    );
    cassette.recordTool(
      { source: 'mcp:calc', tool: 'add', arguments: { a: 2, b: 3 } },
      { content: '5' },
    );
    cassette.recordToolList('mcp:calc', [add]);
    const read = Cassette.fromJSON(JSON.parse(JSON.stringify(cassette.toJSON())));
    expect(read.lookup({ ...plain, tools: [add] })?.toolCalls).toEqual([
      { id: 'c1', name: 'add', arguments: '{"a":2}' },
    ]);
    // Arguments are keyed canonically: the order a model wrote them in does not matter.
    expect(read.lookupTool({ source: 'mcp:calc', tool: 'add', arguments: { b: 3, a: 2 } })).toEqual(
      {
        content: '5',
      },
    );
    expect(read.toolList('mcp:calc')).toEqual([add]);
  });
});
