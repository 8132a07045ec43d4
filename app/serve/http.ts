/**
 * The server's HTTP layer: a table of routes (method, path pattern, handler), in front of which
 * every request passes the DNS-rebinding checks (its Host must name the address the server is
 * bound to when that is loopback; a browser's Origin must be the server's own) and the bearer
 * token. Bodies are read up to a size cap (413 beyond it). Every refusal is
 * `{ error: { message, field } }`; an unexpected error is a 500 that tells nothing of its cause.
 * Everything written passes through the process's redactor, so no key can leave in a response.
 * Later parts (the MCP endpoint) mount as more routes.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { HttpError } from './errors.ts';
import { readForm } from './multipart.ts';

/** What a handler gets: the request, its path parameters and query, and the response. */
export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body, read and checked against `schema` (a 400 naming the field otherwise). */
  body<T>(schema: z.ZodType<T>): Promise<T>;
  /** A multipart/form-data body's parts by name (files as uploads), read up to the same cap. */
  form(): Promise<Record<string, unknown>>;
  /** Sends `value` as JSON with `status`. */
  json(status: number, value: unknown, headers?: Record<string, string>): void;
  /** Starts a Server-Sent Events response; `send` writes one event, `end` closes it. */
  sse(): { send(data: unknown, event?: string): void; raw(line: string): void; end(): void };
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

/** One route: `path` has `:name` segments for parameters. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  handler: (ctx: RouteContext) => Promise<void> | void;
}

export interface HttpOptions {
  host: string;
  port: number;
  /** The bearer token every request must carry; undefined with `--no-auth`. */
  token?: string | undefined;
  /** Largest request body, in bytes. */
  maxBodyBytes: number;
  routes: Route[];
  /** Scrubs key values from every text written (the process's redactor). */
  redact: (text: string) => string;
  /** Told of every 500 (already redacted), for the server's log. */
  onError?: (message: string) => void;
  /** Milliseconds between the comments an idle event stream sends (default 15 s). */
  sseKeepAliveMs?: number;
}

/**
 * An event stream sends a comment line this often while it has nothing to say (a run waiting
 * for its slot, a long model call): a reverse proxy in front (for TLS) closes a response that
 * stays silent for a minute, and clients and the SDKs skip comment lines.
 */
const SSE_KEEP_ALIVE_MS = 15_000;

/** True for an address that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** Starts the server; resolves once it listens, with its URL and how to stop it. */
export async function startHttp(
  options: HttpOptions,
): Promise<{ server: Server; url: string; port: number; close(): Promise<void> }> {
  const compiled = options.routes.map((route) => ({ route, match: pathMatcher(route.path) }));
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendError(res, error, options.redact);
      options.onError?.(options.redact((error as Error)?.message ?? String(error)));
      sendError(
        res,
        new HttpError(500, 'the server failed to answer this request'),
        options.redact,
      );
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const address = server.address() as AddressInfo;
    checkHost(req, options.host, address.port);
    const url = new URL(req.url ?? '/', 'http://server');
    const candidates = compiled
      .map(({ route, match }) => ({ route, params: match(url.pathname) }))
      .filter((c) => c.params !== undefined);
    if (candidates.length === 0) throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    const found = candidates.find((c) => c.route.method === req.method);
    if (!found)
      throw new HttpError(405, `${req.method} is not allowed on ${url.pathname}`, undefined, {
        allow: candidates.map((c) => c.route.method).join(', '),
      });
    checkToken(req, options.token);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    await found.route.handler({
      req,
      res,
      params: found.params!,
      query: url.searchParams,
      signal: abort.signal,
      body: (schema) => readBody(req, options.maxBodyBytes, schema),
      form: () => readForm(req, options.maxBodyBytes),
      json: (status, value, headers = {}) => sendJson(res, status, value, options.redact, headers),
      sse: () => {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
        res.flushHeaders();
        const keepAlive = setInterval(
          () => res.write(': keep-alive\n\n'),
          options.sseKeepAliveMs ?? SSE_KEEP_ALIVE_MS,
        );
        keepAlive.unref();
        res.on('close', () => clearInterval(keepAlive));
        return {
          send: (data, event) =>
            res.write(
              `${event ? `event: ${event}\n` : ''}data: ${options.redact(JSON.stringify(data))}\n\n`,
            ),
          raw: (line) => res.write(line),
          end: () => {
            clearInterval(keepAlive);
            res.end();
          },
        };
      },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    server,
    port,
    url: `http://${shown}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * DNS-rebinding protection: a page on another site that makes its name resolve to 127.0.0.1
 * still sends its own name as Host, and a browser always sends its page's Origin.
 */
function checkHost(req: IncomingMessage, bound: string, port: number): void {
  const host = req.headers.host;
  if (!host) throw new HttpError(400, 'the request has no Host header', 'Host');
  const name = host.replace(/:\d+$/, '').toLowerCase();
  if (isLoopback(bound) && !isLoopback(name))
    throw new HttpError(403, `Host "${host}" is not this server's address`, 'Host');
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let same = false;
    try {
      const o = new URL(origin);
      same =
        o.host.toLowerCase() === host.toLowerCase() ||
        (isLoopback(o.hostname) && isLoopback(name) && Number(o.port) === port);
    } catch {
      same = false;
    }
    if (!same) throw new HttpError(403, `Origin "${origin}" may not call this server`, 'Origin');
  }
}

function checkToken(req: IncomingMessage, token: string | undefined): void {
  if (token === undefined) return;
  const header = req.headers.authorization ?? '';
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw new HttpError(
      401,
      'a bearer token is required (Authorization: Bearer TOKEN)',
      'Authorization',
      {
        'www-authenticate': 'Bearer',
      },
    );
}

async function readBody<T>(req: IncomingMessage, max: number, schema: z.ZodType<T>): Promise<T> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > max)
    throw new HttpError(413, `the request body is larger than ${max} bytes`, 'body');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max)
      throw new HttpError(413, `the request body is larger than ${max} bytes`, 'body');
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
  } catch {
    throw new HttpError(400, 'the request body is not JSON', 'body');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A key the body may not have is named itself, not as the object that holds it.
    const extra = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const path = extra === undefined ? issue.path : [...issue.path, extra];
    const field = path.length ? path.join('.') : 'body';
    throw new HttpError(400, `${field}: ${issue.message}`, field);
  }
  return parsed.data;
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  redact: (text: string) => string,
  headers: Record<string, string> = {},
): void {
  const text = redact(JSON.stringify(value));
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: HttpError, redact: (text: string) => string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  // A body the server did not read keeps the connection busy: close it after answering.
  const headers = { ...error.headers, ...(error.status === 413 ? { connection: 'close' } : {}) };
  sendJson(
    res,
    error.status,
    { error: { message: error.message, ...(error.field ? { field: error.field } : {}) } },
    redact,
    headers,
  );
}

function pathMatcher(pattern: string): (path: string) => Record<string, string> | undefined {
  const parts = pattern.split('/');
  return (path) => {
    const given = path.split('/');
    if (given.length !== parts.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.startsWith(':')) {
        if (!given[i]) return undefined;
        try {
          params[part.slice(1)] = decodeURIComponent(given[i]!);
        } catch {
          return undefined;
        }
      } else if (part !== given[i]) return undefined;
    }
    return params;
  };
}
