/**
 * A local HTTP server speaking the Hugging Face inference protocol for tests. It answers in two
 * ways, which combine: a `respond` callback that sees each request and may answer it, and
 * recorded traffic ("tapes") replayed when an incoming request matches a recorded one. Every
 * request is kept, with its raw body, so a test can check what actually went over the wire.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';

/** One recorded HTTP exchange, as the inference client's own test tapes store it. */
export interface Tape {
  url: string;
  init: {
    method?: string;
    headers?: Record<string, string>;
    /** The request body; absent when the request sent bytes that were not recorded. */
    body?: string | null;
  };
  response: {
    body: string;
    status: number;
    statusText?: string;
    headers?: Record<string, string>;
  };
}

/** A request as the stub received it. */
export interface StubHfRequest {
  method: string;
  /** The path with its query, e.g. `/models/facebook/bart-large-cnn`. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  /** The model the path names (`/models/<id>...`), if any. */
  model?: string;
  /** The key of the tape that answered, when one did. */
  tape?: string;
}

/** An answer: objects are sent as JSON, strings as text, bytes as they are. */
export interface StubHfReply {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer | Uint8Array | object;
}

export interface StubHfContext {
  /** 0-based number of this request. */
  index: number;
  /** Aborts when the client disconnects, so a slow responder can stop waiting. */
  signal: AbortSignal;
}

export interface StubHfOptions {
  /**
   * Answer a request, or return undefined to leave it to the tapes. Runs before tape matching,
   * so it can also put failures in front of recorded answers.
   */
  respond?: (
    request: StubHfRequest,
    ctx: StubHfContext,
  ) => StubHfReply | undefined | Promise<StubHfReply | undefined>;
  /** Recorded exchanges, keyed by name; replayed when a request matches one. */
  tapes?: Record<string, Tape>;
  /**
   * Applied to both the incoming and the recorded JSON body before they are compared, to
   * forgive differences that do not change the request's meaning (see `forgiveLegacyFields`).
   */
  normalizeBody?: (json: unknown, model: string | undefined) => unknown;
}

export interface StubHf {
  /** Base URL, without a trailing slash. */
  url: string;
  /** Every request received, in order. */
  requests: StubHfRequest[];
  /** Requests whose client disconnected before the answer was complete. */
  aborted(): number;
  close(): Promise<void>;
}

/**
 * Where a path names a model, and what follows it: `/models/<id>` plus an optional
 * `/pipeline/<task>` or `/v1/...` route, or the older `/pipeline/<task>/<id>` form.
 */
export function modelRoute(path: string): { model: string; route: string } | undefined {
  const pathname = path.split('?')[0] ?? '';
  const modern = /\/models\/(.+?)(\/pipeline\/[^/]+|\/v1\/.*)?\/?$/.exec(pathname);
  if (modern?.[1]) return { model: decodeURIComponent(modern[1]), route: modern[2] ?? '' };
  const legacy = /\/pipeline\/([^/]+)\/(.+?)\/?$/.exec(pathname);
  if (legacy?.[2]) {
    return { model: decodeURIComponent(legacy[2]), route: `/pipeline/${legacy[1]}` };
  }
  return undefined;
}

/**
 * A normalizer for tapes recorded by older client versions, which put fields in the body that
 * the current client leaves out without changing what is asked: an `options` object (client-side
 * switches) and a `model` that repeats the model already named by the URL.
 */
export function forgiveLegacyFields(json: unknown, model: string | undefined): unknown {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const copy: Record<string, unknown> = { ...json };
  delete copy.options;
  if (model !== undefined && copy.model === model) delete copy.model;
  return copy;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Headers that describe the recorded transfer, not the answer; the stub sets its own. */
const TRANSFER_HEADERS = new Set([
  'connection',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'keep-alive',
]);

function sleepUntilAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Start the stub on 127.0.0.1 on a free port. */
export async function startStubHuggingFace(options: StubHfOptions = {}): Promise<StubHf> {
  const requests: StubHfRequest[] = [];
  const normalize = options.normalizeBody ?? ((json: unknown) => json);
  const tapes = Object.entries(options.tapes ?? {}).map(([key, tape]) => {
    const route = modelRoute(new URL(tape.url, 'http://tape').pathname);
    const raw = tape.init.body ?? undefined;
    const json = raw === undefined ? undefined : parseJson(raw);
    return { key, tape, route, raw, json };
  });
  const served = new Set<string>();
  let aborted = 0;

  function findTape(request: StubHfRequest) {
    const route = modelRoute(request.path);
    const text = request.body.toString('utf8');
    const matches = tapes.filter((candidate) => {
      if ((candidate.tape.init.method ?? 'GET').toUpperCase() !== request.method) return false;
      // A request that names a model (and a route after it) must name the recorded one.
      if (route && candidate.route) {
        if (route.model !== candidate.route.model || route.route !== candidate.route.route) {
          return false;
        }
      }
      // A tape whose body was not recorded can only stand for a request without one.
      if (candidate.raw === undefined) return request.body.length === 0;
      if (candidate.raw === text) return true;
      if (request.json === undefined || candidate.json === undefined) return false;
      const model = route?.model ?? candidate.route?.model;
      return isDeepStrictEqual(normalize(request.json, model), normalize(candidate.json, model));
    });
    // Recorded twice, answered twice: each matching tape is served once before any repeats.
    return matches.find((m) => !served.has(m.key)) ?? matches[0];
  }

  function send(res: ServerResponse, reply: StubHfReply): void {
    const status = reply.status ?? 200;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.headers ?? {})) {
      if (!TRANSFER_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    let payload: Buffer;
    let contentType: string;
    if (typeof reply.body === 'string') {
      payload = Buffer.from(reply.body, 'utf8');
      contentType = 'text/plain; charset=utf-8';
    } else if (reply.body instanceof Uint8Array) {
      payload = Buffer.from(reply.body);
      contentType = 'application/octet-stream';
    } else {
      payload = Buffer.from(JSON.stringify(reply.body), 'utf8');
      contentType = 'application/json';
    }
    headers['content-type'] ??= contentType;
    headers['content-length'] = String(payload.length);
    res.writeHead(status, STATUS_CODES[status] ?? 'Unknown', headers);
    res.end(payload);
  }

  const server = createServer(async (req, res) => {
    const disconnect = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) {
        aborted++;
        disconnect.abort();
      }
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    const route = modelRoute(req.url ?? '/');
    const request: StubHfRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: req.url ?? '/',
      headers: req.headers,
      body,
      json: body.length > 0 ? parseJson(text) : undefined,
      model: route?.model,
    };
    const index = requests.length;
    requests.push(request);
    const signal = disconnect.signal;

    let reply: StubHfReply | undefined;
    try {
      reply = await options.respond?.(request, { index, signal });
    } catch (error) {
      if (!signal.aborted) {
        send(res, { status: 500, body: { error: `stub responder failed: ${error}` } });
      }
      return;
    }
    if (signal.aborted) return;
    if (reply) {
      send(res, reply);
      return;
    }

    const match = findTape(request);
    if (match) {
      served.add(match.key);
      request.tape = match.key;
      const { response } = match.tape;
      send(res, { status: response.status, headers: response.headers, body: response.body });
      return;
    }
    const shown = text.length > 300 ? `${text.slice(0, 299)}…` : text;
    const asked = route ? ` (model ${route.model}${route.route})` : '';
    send(res, {
      status: 404,
      body: {
        error: `stub-hf: no responder or tape for ${request.method} ${request.path}${asked}, body ${
          body.length === 0
            ? '(empty)'
            : request.json === undefined
              ? `${body.length} bytes`
              : shown
        }`,
      },
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    aborted: () => aborted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Wait until the client disconnects; for tests that cancel a call mid-request. */
export function untilDisconnected(ctx: StubHfContext): Promise<void> {
  return sleepUntilAbort(ctx.signal);
}
