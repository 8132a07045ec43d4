import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  brokenJson,
  cutStream,
  garbledStream,
  htmlPage,
  hugeAnswer,
  resetConnection,
  unfinishedStream,
} from '../../tests/support/faults.ts';
import {
  type StubOpenAI,
  type StubOptions,
  startStubOpenAI,
} from '../../tests/support/stub-openai.ts';
import { formatBytes, guardAnswers } from './answer-guard.ts';
import { OpenAICompatibleProvider } from './openai.ts';
import type { ChatRequest } from './types.ts';
import { ProviderError } from './types.ts';

let stub: StubOpenAI | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await stub?.close();
  stub = undefined;
});

async function provider(options: StubOptions): Promise<OpenAICompatibleProvider> {
  stub = await startStubOpenAI(options);
  return new OpenAICompatibleProvider({ id: 'stub', baseUrl: stub.url });
}

const hello: ChatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] };
const MiB = 1024 * 1024;

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error('expected the call to fail');
}

/** Everything the SDK or anything else printed through the console while `body` ran. */
async function consoleDuring(body: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
  }
  await body();
  return lines;
}

describe('formatBytes', () => {
  it('names sizes as a person reads them', () => {
    expect([100, 2048, 8 * MiB, 1.5 * MiB, 3 * 1024 * MiB].map(formatBytes)).toEqual([
      '100 bytes',
      '2 KiB',
      '8 MiB',
      '1.5 MiB',
      '3 GiB',
    ]);
  });
});

describe('guardAnswers', () => {
  it('refuses a declared length past the limit without reading the body', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const guard = guardAnswers(
      async () =>
        new Response(body, {
          headers: { 'content-type': 'application/json', 'content-length': String(200 * MiB) },
        }),
      { where: 'p', maxBytes: MiB, expect: 'json' },
    );
    const error = await failure(guard.fetch('http://p/'));
    expect(error.message).toBe('answer from p went past 1 MiB (settings.limits.answerBytes)');
    expect(error.retryable).toBe(false);
    expect(guard.failure).toBe(error);
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('passes a body within the limit through unchanged', async () => {
    const guard = guardAnswers(
      async () => new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }),
      { where: 'p', maxBytes: 11, expect: 'json' },
    );
    const response = await guard.fetch('http://p/');
    expect(await response.json()).toEqual({ ok: true });
    expect(guard.failure).toBeUndefined();
  });
});

describe('OpenAICompatibleProvider against answers that are not answers', () => {
  it.each([
    [false, 'JSON'],
    [true, 'an event stream'],
  ])('stops reading an answer past the limit (stream: %s)', async (stream) => {
    const huge = hugeAnswer(stream);
    const p = await provider({ respond: () => huge });
    const error = await failure(
      p.chat({ ...hello, stream }, { signal: AbortSignal.timeout(10_000), maxAnswerBytes: MiB }),
    );
    expect(error.message).toBe(
      `answer from stub (${stub?.url}) went past 1 MiB (settings.limits.answerBytes)`,
    );
    expect(error.retryable).toBe(false);
    // The client hung up long before the 200 MiB were out (the rest sat in socket buffers).
    expect(huge.sent()).toBeLessThan(64);
  });

  it('counts a compressed answer as it inflates, whatever length it declares', async () => {
    // 2 MiB of answer in a few KiB of gzip: the declared length is no bound on what is read.
    const completion = JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'x'.repeat(2 * MiB) },
          finish_reason: 'stop',
        },
      ],
    });
    const packed = gzipSync(completion);
    const p = await provider({
      respond: () => ({
        fault: (res) => {
          res.writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            'content-length': packed.byteLength,
          });
          res.end(packed);
        },
      }),
    });
    const error = await failure(
      p.chat(hello, { signal: AbortSignal.timeout(10_000), maxAnswerBytes: MiB }),
    );
    expect(packed.byteLength).toBeLessThan(MiB);
    expect(error.message).toBe(
      `answer from stub (${stub?.url}) went past 1 MiB (settings.limits.answerBytes)`,
    );
  });

  it('holds each call to its own limit when calls to one provider overlap', async () => {
    const p = await provider({ respond: () => ({ text: 'y'.repeat(4096) }), latencyMs: 20 });
    const signal = AbortSignal.timeout(10_000);
    const [small, large] = await Promise.allSettled([
      p.chat(hello, { signal, maxAnswerBytes: 1024 }),
      p.chat(hello, { signal, maxAnswerBytes: MiB }),
    ]);
    expect(small.status === 'rejected' && (small.reason as Error).message).toBe(
      `answer from stub (${stub?.url}) went past 1 KiB (settings.limits.answerBytes)`,
    );
    expect(large.status === 'fulfilled' && large.value.text).toBe('y'.repeat(4096));
  });

  it('names an HTML page where JSON belongs, and a stream that is not one', async () => {
    const p = await provider({ respond: () => htmlPage(200) });
    const plain = await failure(p.chat(hello, { signal: AbortSignal.timeout(10_000) }));
    expect(plain.message).toBe(
      `stub (${stub?.url}) answered with an HTML page, not JSON (HTTP 200, text/html)`,
    );
    expect(plain.retryable).toBe(false);
    const streamed = await failure(
      p.chat({ ...hello, stream: true }, { signal: AbortSignal.timeout(10_000) }),
    );
    expect(streamed.message).toBe(
      `stub (${stub?.url}) answered with an HTML page, not an event stream (HTTP 200, text/html)`,
    );
  });

  it("keeps a proxy's 502 page retryable", async () => {
    const p = await provider({ respond: () => htmlPage(502) });
    const error = await failure(p.chat(hello, { signal: AbortSignal.timeout(10_000) }));
    expect(error.message).toBe(
      `stub (${stub?.url}) answered with an HTML page, not JSON (HTTP 502 Bad Gateway, text/html)`,
    );
    expect(error.retryable).toBe(true);
  });

  it.each([
    [
      'JSON cut short',
      brokenJson,
      false,
      'stub (URL) answered with JSON that does not parse (Unterminated string in JSON at position …)',
    ],
    [
      'a stream cut off',
      cutStream,
      true,
      'stub (URL) closed the connection in the middle of the answer',
    ],
    [
      'a garbled stream',
      garbledStream,
      true,
      'the event stream from stub (URL) carried an event that is not JSON (cut off or garbled)',
    ],
    [
      'a stream with no end',
      unfinishedStream,
      true,
      'the event stream from stub (URL) ended before the answer was complete',
    ],
    [
      'a reset',
      resetConnection,
      false,
      'stub (URL) closed the connection before answering (other side closed)',
    ],
  ])(
    'says what went wrong for %s, in one line, with nothing on the console',
    async (_name, reply, stream, expected) => {
      const p = await provider({ respond: reply });
      const lines = await consoleDuring(async () => {
        const error = await failure(
          p.chat({ ...hello, stream }, { signal: AbortSignal.timeout(10_000) }),
        );
        // V8's own words on bad JSON say where it broke; the rest is ours, to the letter.
        const [mine, v8] = expected.replace('URL', stub?.url ?? '').split('…');
        if (v8 === undefined) expect(error.message).toBe(mine);
        else expect(error.message.slice(0, mine?.length)).toBe(mine);
        expect(error.retryable).toBe(true);
      });
      expect(lines).toEqual([]);
    },
  );
});
