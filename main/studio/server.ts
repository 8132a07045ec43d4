/**
 * The studio: the editor in a browser, served from this machine only. One HTTP server on
 * 127.0.0.1 serves the built renderer and, at `/api`, a WebSocket speaking the editor's API
 * contract (app/api/contract.ts). It is the "later debug server" of S19: loopback only, with a
 * per-launch token.
 *
 * Who may do what:
 * - Every request and the WebSocket upgrade must name this server in its Host header
 *   (`127.0.0.1:PORT` or `localhost:PORT`): a DNS-rebinding page sends its own host name.
 * - The files of the editor's bundle are served to any such request, token or not: they are the
 *   same for everyone and hold nothing secret, and the first page load cannot carry a header.
 *   Another site's page cannot read them (no CORS, `Cross-Origin-Resource-Policy: same-origin`)
 *   nor frame them (`frame-ancestors 'none'`).
 * - Everything else (documents, runs, keys, images of runs) goes over the API socket, and the
 *   socket opens only with the Origin of this server and the token offered as a subprotocol
 *   (app/api/studio-auth.ts). The printed URL hands the token to the page once, in `?token=`;
 *   the page keeps it to itself (renderer/studio-token.ts).
 * - There is no cookie, set or read. Browsers scope cookies by host and not by port, so a cookie
 *   for 127.0.0.1 would also be sent to every other local server's pages, and a socket offering
 *   the token only by cookie is refused like one offering nothing.
 *
 * - The project's docs (README.md, docs/*.md) are served at /docs/ under the same rule as the
 *   editor's files (main/docs/docs.ts), so the help links never leave the machine.
 *
 * Pages get a strict Content-Security-Policy (S3). The page names files and templates, never
 * paths (S9), and no key ever goes back to it (S12).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type WebSocket, WebSocketServer } from 'ws';
import { RequestMessage, type ResponseMessage } from '../../app/api/contract.ts';
import { STUDIO_PROTOCOL, tokenFromProtocols } from '../../app/api/studio-auth.ts';
import { ApiError, type ApiHandlersOptions, createApiHandlers } from '../api/handlers.ts';
import { runEventBatcher } from '../api/push-batch.ts';
import { DEFAULT_DOCS_ROOT, docsAnswer, isDocsPath } from '../docs/docs.ts';
import { mimeTypeOf } from '../renderer-files.ts';

/** Where `vite build` puts the renderer. */
export const DEFAULT_RENDERER_DIR = fileURLToPath(new URL('../../dist/renderer/', import.meta.url));

/** Largest WebSocket message accepted: room for an image input sent as a data URL. */
const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** The only address the studio listens on. */
const LOOPBACK = '127.0.0.1';

/** Options of `startStudio`: the server's, and the API handlers'. */
export interface StudioOptions extends ApiHandlersOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Always the loopback address: the studio is never reachable from another machine. */
  host?: typeof LOOPBACK;
  /** The built renderer (default: dist/renderer). */
  rendererDir?: string;
  /** The folder with README.md and docs/, served at /docs/ (default: the repository). */
  docsRoot?: string;
}

/** A running studio. */
export interface Studio {
  /** The URL to open, with the token: `http://127.0.0.1:PORT/?token=…`. */
  url: string;
  token: string;
  port: number;
  /** Cancels running runs (recording them), closes every connection and stops listening. */
  close(): Promise<void>;
}

/** Shown at `/` when the renderer has not been built. No script, so the CSP allows it as is. */
const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Society Studio</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Society Studio</h1>
<p>The editor is not built yet. Stop the studio, run <code>npm run build</code>, and start it again
(<code>npm run studio</code> builds it for you).</p>
</body>
</html>
`;

/** The Content-Security-Policy of every response, for a server on `port`. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Starts the studio on 127.0.0.1 and resolves once it listens. */
export async function startStudio(options: StudioOptions): Promise<Studio> {
  const {
    port: requestedPort = 0,
    host = LOOPBACK,
    rendererDir,
    docsRoot = DEFAULT_DOCS_ROOT,
    ...handlerOptions
  } = options;
  if (host !== LOOPBACK) throw new Error(`the studio listens on ${LOOPBACK} only, not ${host}`);
  const root = path.resolve(rendererDir ?? DEFAULT_RENDERER_DIR);
  const log = handlerOptions.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const api = createApiHandlers({ ...handlerOptions, log });
  const token = randomBytes(32).toString('hex');
  const tokenBytes = Buffer.from(token);
  let port = 0;

  const hosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const sameToken = (given: string | undefined): boolean => {
    if (!given) return false;
    const bytes = Buffer.from(given);
    return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
  };

  /** Whether a request names this server in its Host header (not a rebound host name). */
  const hostAllowed = (req: IncomingMessage): boolean => hosts().has(req.headers.host ?? '');

  /**
   * Whether an upgrade may open the API socket: this server's Host and Origin, and the token
   * offered as a subprotocol. Cookies and the URL's query are not looked at.
   */
  const socketAllowed = (req: IncomingMessage): boolean =>
    hostAllowed(req) &&
    origins().has(req.headers.origin ?? '') &&
    sameToken(tokenFromProtocols(headerText(req.headers['sec-websocket-protocol'])));

  const securityHeaders = (res: ServerResponse) => {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy(port));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // The token is in the first URL: never send it on as a referrer.
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
  };

  const refuse = (res: ServerResponse, status: number, text: string) => {
    securityHeaders(res);
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`${text}\n`);
  };

  const server = createServer((req, res) => {
    const url = parseUrl(req.url);
    if (!url || !hostAllowed(req)) return refuse(res, 403, 'Forbidden');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return refuse(res, 405, 'Method Not Allowed');
    }
    if (isDocsPath(url.pathname)) {
      // The docs are as public as the editor's files: the same Host rule, no token.
      const answer = docsAnswer(url.pathname, docsRoot);
      securityHeaders(res);
      res.writeHead(answer.status, { 'Content-Type': answer.contentType });
      res.end(req.method === 'HEAD' ? undefined : answer.body);
      return;
    }
    serveStatic(root, url.pathname, req, res, securityHeaders, refuse).catch((error) => {
      log(`society studio: cannot serve ${url.pathname}: ${(error as Error).message}`);
      if (!res.headersSent) refuse(res, 500, 'Internal Server Error');
      else res.destroy();
    });
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Answer with the plain protocol name: the token is never echoed back.
    handleProtocols: () => STUDIO_PROTOCOL,
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = parseUrl(req.url);
    if (url?.pathname !== '/api' || !socketAllowed(req)) {
      socket.on('error', () => {});
      socket.once('finish', () => socket.destroy());
      socket.end(
        'HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\nForbidden\n',
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const send = (ws: WebSocket, message: ResponseMessage | object) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(api.redactor.text(JSON.stringify(message)));
  };

  wss.on('connection', (ws: WebSocket) => {
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => {
      void respond(ws, isBinary ? undefined : data.toString());
    });
  });

  const respond = async (ws: WebSocket, text: string | undefined) => {
    let raw: unknown;
    try {
      if (text === undefined) throw new Error('binary');
      raw = JSON.parse(text);
    } catch {
      return send(ws, { id: -1, error: { message: 'malformed message: send JSON text' } });
    }
    const request = RequestMessage.safeParse(raw);
    if (!request.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      return send(ws, {
        id: Number.isInteger(id) ? (id as number) : -1,
        error: { message: 'malformed request: expected { id, method, params }' },
      });
    }
    const { id, method, params } = request.data;
    try {
      const result = await api.call(method, params);
      send(ws, { id, result });
    } catch (error) {
      if (error instanceof ApiError) {
        send(ws, {
          id,
          error: {
            message: error.message,
            ...(error.problems ? { problems: error.problems } : {}),
            ...(error.reason ? { reason: error.reason } : {}),
          },
        });
        return;
      }
      // A bug: the page gets the message, the log gets the stack; both without keys.
      const message = error instanceof Error ? error.message : String(error);
      log(
        api.redactor.text(
          `society studio: ${method} failed: ${(error as Error)?.stack ?? message}`,
        ),
      );
      send(ws, { id, error: { message } });
    }
  };

  // One person on a loopback server: every page sees every run's events.
  const batcher = runEventBatcher((batch) => {
    const text = JSON.stringify(batch);
    for (const client of wss.clients) if (client.readyState === client.OPEN) client.send(text);
  });
  const unsubscribe = api.onRunEvent((push) => batcher.add(push));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requestedPort, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;

  const studio: Studio = {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    token,
    port,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
  return studio;

  async function shutdown(): Promise<void> {
    await api.close();
    unsubscribe();
    // The last events of runs cancelled by the close, to pages still connected.
    batcher.flush();
    batcher.close();
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Serves a file of the built renderer; no listings, nothing outside `root`, no dotfiles. */
async function serveStatic(
  root: string,
  pathname: string,
  req: IncomingMessage,
  res: ServerResponse,
  securityHeaders: (res: ServerResponse) => void,
  refuse: (res: ServerResponse, status: number, text: string) => void,
): Promise<void> {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname === '/' ? '/index.html' : pathname);
  } catch {
    return refuse(res, 400, 'Bad Request');
  }
  const segments = relative.split(/[/\\]/).filter(Boolean);
  if (
    relative.includes('\0') ||
    segments.some((s) => s === '..' || s.startsWith('.')) ||
    segments.length === 0
  ) {
    return refuse(res, 404, 'Not Found');
  }
  const file = path.join(root, ...segments);
  if (!file.startsWith(root + path.sep)) return refuse(res, 404, 'Not Found');

  if (!existsSync(path.join(root, 'index.html'))) {
    if (relative !== '/index.html') return refuse(res, 404, 'Not Found');
    securityHeaders(res);
    res.writeHead(200, { 'Content-Type': mimeTypeOf('index.html') });
    res.end(req.method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
    return;
  }
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch {
    return refuse(res, 404, 'Not Found');
  }
  if (!info.isFile()) return refuse(res, 404, 'Not Found');
  securityHeaders(res);
  res.writeHead(200, {
    'Content-Type': mimeTypeOf(file),
    'Content-Length': info.size,
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(file);
    stream.on('error', reject);
    res.on('close', () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}

/** The request's URL, or undefined when it is not a plain path. */
function parseUrl(raw: string | undefined): URL | undefined {
  if (!raw?.startsWith('/') || raw.startsWith('//')) return undefined;
  try {
    // The base is only there to parse a path; the Host header is checked separately.
    return new URL(raw, 'http://127.0.0.1');
  } catch {
    return undefined;
  }
}

/** A header's value as one string (Node gives repeated headers as an array). */
function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
