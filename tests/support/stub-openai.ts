/**
 * A local HTTP server speaking enough of the OpenAI Chat Completions protocol for tests:
 * JSON and SSE responses in the real shapes, OpenAI-shaped errors, and counters that let a
 * test see what actually went over the wire (requests, concurrency, client disconnects).
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** Usage as the server reports it; `null` sends none (like some local servers). */
export interface StubUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A successful answer. */
export interface StubTextReply {
  text: string;
  usage?: StubUsage | null;
  /** The model the server claims answered; defaults to the requested one. */
  model?: string;
  finishReason?: string;
  /** Streamed fragments; defaults to the text split into words. */
  chunks?: string[];
  /** Pause between streamed chunks, to let a test act mid-stream. */
  chunkDelayMs?: number;
  /**
   * Tools the model asks to call (function calling): each a name and its arguments (an object
   * is sent as JSON text; a string as it is, so a test can send arguments that do not parse).
   * The finish reason becomes `tool_calls` unless one is given.
   */
  toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
}

/** The `tool_calls` of a reply in the protocol's shape, with ids made up where none is given. */
function wireToolCalls(reply: StubTextReply, index: number) {
  return (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments:
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

/**
 * A raw answer, mostly for errors. With no body an error status gets an OpenAI-shaped error
 * body; a string body is written as is (for replaying recorded JSON or SSE bodies).
 */
export interface StubRawReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * Full control of the response, for faults the protocol has no words for: an event stream cut
 * off, a connection reset, a body far too large, a server that never answers.
 */
export interface StubFaultReply {
  fault: (res: ServerResponse) => void;
}

export type StubReply = StubTextReply | StubRawReply | StubFaultReply;

export interface StubContext {
  /** 0-based number of this chat request. */
  index: number;
  headers: IncomingHttpHeaders;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are arbitrary JSON sent by clients.
export type StubRequestBody = any;

export interface StubOptions {
  respond?: (body: StubRequestBody, ctx: StubContext) => StubReply | Promise<StubReply>;
  /** Delay before every chat response; abortable by the client disconnecting. */
  latencyMs?: number;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
}

export interface StubOpenAI {
  /** Base URL ending in /v1. */
  url: string;
  /** Every chat request body received, in order. */
  requests: StubRequestBody[];
  /** The headers of every chat request, in the same order. */
  headers: IncomingHttpHeaders[];
  /** Chat requests received so far. */
  count(): number;
  /** The most chat requests ever in flight at once. */
  peakConcurrency(): number;
  inFlight(): number;
  /** Chat requests whose client disconnected before the response was finished. */
  aborted(): number;
  close(): Promise<void>;
}

/** An error reply in OpenAI's shape: `{ error: { message, type, param, code } }`. */
export function stubError(
  status: number,
  message: string,
  opts: { type?: string; code?: string | null; headers?: Record<string, string> } = {},
): StubRawReply {
  return {
    status,
    headers: opts.headers,
    body: {
      error: {
        message,
        type: opts.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
        param: null,
        code: opts.code ?? null,
      },
    },
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part) => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('\n');
}

function lastUserText(body: StubRequestBody): string {
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: string; content?: unknown };
    if (message?.role === 'user') return textOf(message.content);
  }
  return '';
}

/** The default answer: echoes the last user message, so it is deterministic. */
export function echoReply(body: StubRequestBody): StubTextReply {
  return { text: `echo: ${lastUserText(body)}` };
}

function promptTokens(body: StubRequestBody): number {
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  const chars = messages
    .map((m) => textOf((m as { content?: unknown })?.content))
    .join('\n').length;
  return Math.ceil(chars / 4);
}

function isRaw(reply: StubReply): reply is StubRawReply {
  return 'status' in reply;
}

function isFault(reply: StubReply): reply is StubFaultReply {
  return 'fault' in reply;
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Start the stub on 127.0.0.1 on a free port. */
export async function startStubOpenAI(options: StubOptions = {}): Promise<StubOpenAI> {
  const respond = options.respond ?? echoReply;
  const requests: StubRequestBody[] = [];
  const headers: IncomingHttpHeaders[] = [];
  let inFlight = 0;
  let peak = 0;
  let aborted = 0;
  let created = 1_700_000_000;

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      const data = (options.models ?? ['stub-model']).map((id) => ({
        id,
        object: 'model',
        created,
        owned_by: 'stub',
      }));
      sendJson(res, 200, { object: 'list', data });
      return;
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      const reply = stubError(404, `Unknown request URL: ${req.method} ${url.pathname}`, {
        code: 'unknown_url',
      });
      sendJson(res, reply.status, reply.body);
      return;
    }

    inFlight++;
    peak = Math.max(peak, inFlight);
    const disconnect = new AbortController();
    let finished = false;
    res.once('close', () => {
      inFlight--;
      if (!res.writableFinished && !finished) {
        aborted++;
        disconnect.abort();
      }
    });
    res.once('finish', () => {
      finished = true;
    });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: StubRequestBody;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      const reply = stubError(400, 'We could not parse the JSON body of your request.');
      sendJson(res, reply.status, reply.body);
      return;
    }
    const index = requests.length;
    requests.push(body);
    headers.push(req.headers);

    const signal = disconnect.signal;
    if (options.latencyMs && !(await sleep(options.latencyMs, signal))) return;
    let reply: StubReply;
    try {
      reply = await respond(body, { index, headers: req.headers, signal });
    } catch (error) {
      const reply500 = stubError(500, `stub responder failed: ${(error as Error).message}`);
      if (!signal.aborted) sendJson(res, reply500.status, reply500.body);
      return;
    }
    if (signal.aborted) return;

    if (isFault(reply)) {
      reply.fault(res);
      return;
    }
    if (isRaw(reply)) {
      writeRaw(res, reply);
      return;
    }
    const model = reply.model ?? (typeof body?.model === 'string' ? body.model : 'stub-model');
    const id = `chatcmpl-stub${index}`;
    created++;
    const usage =
      reply.usage === null
        ? null
        : (reply.usage ?? {
            prompt_tokens: promptTokens(body),
            completion_tokens: Math.ceil(reply.text.length / 4),
          });
    const usageJson = usage && {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
    };
    const toolCalls = wireToolCalls(reply, index);
    const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');

    if (body?.stream !== true) {
      const completion: Record<string, unknown> = {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: toolCalls.length > 0 && !reply.text ? null : reply.text,
              refusal: null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: finishReason,
          },
        ],
      };
      if (usageJson) completion.usage = usageJson;
      sendJson(res, 200, completion);
      return;
    }

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    });
    const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
    const fragments = reply.chunks ?? reply.text.match(/\s*\S+\s*/g) ?? [];
    const includeUsage = body?.stream_options?.include_usage === true;
    res.write(
      event([
        {
          index: 0,
          delta: { role: 'assistant', content: '' },
          logprobs: null,
          finish_reason: null,
        },
      ]),
    );
    for (const fragment of fragments) {
      if (reply.chunkDelayMs && !(await sleep(reply.chunkDelayMs, signal))) return;
      if (signal.aborted) return;
      res.write(
        event([{ index: 0, delta: { content: fragment }, logprobs: null, finish_reason: null }]),
      );
    }
    // Tool calls stream in two pieces each: the name first, then the arguments.
    for (const [i, call] of toolCalls.entries()) {
      const piece = (delta: unknown) =>
        event([{ index: 0, delta: { tool_calls: [delta] }, logprobs: null, finish_reason: null }]);
      res.write(
        piece({
          index: i,
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: '' },
        }),
      );
      res.write(piece({ index: i, function: { arguments: call.function.arguments } }));
    }
    res.write(event([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]));
    if (includeUsage && usageJson) res.write(event([], { usage: usageJson }));
    res.end('data: [DONE]\n\n');
  });

  function writeRaw(res: ServerResponse, reply: StubRawReply): void {
    let body = reply.body;
    if (body === undefined && reply.status >= 400) {
      body = stubError(reply.status, STATUS_CODES[reply.status] ?? 'Error').body;
    }
    if (typeof body === 'string') {
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(body);
    } else if (body === undefined) {
      res.writeHead(reply.status, reply.headers);
      res.end();
    } else {
      sendJson(res, reply.status, body, reply.headers);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    count: () => requests.length,
    peakConcurrency: () => peak,
    inFlight: () => inFlight,
    aborted: () => aborted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
