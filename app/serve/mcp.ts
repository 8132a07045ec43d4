/**
 * The MCP server (official SDK): every served society is a tool (mcp-tools.ts). Over Streamable
 * HTTP it is mounted at `/mcp` as routes of the server's table, so the bearer token and the
 * Host/Origin checks apply to it as to every endpoint; each client gets a session of its own
 * (its logging level, its cancellations). Over stdio (`society serve --stdio`, stdio.ts) one
 * server talks to the client that started the process. A reloaded document shows in `tools/list`, and
 * clients listening are told (`notifications/tools/list_changed`).
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ServeContext } from './api.ts';
import type { Route, RouteContext } from './http.ts';
import { callSociety, societyTool } from './mcp-tools.ts';

/** How the server names itself to clients. */
const SERVER_INFO = { name: 'society-studio', title: 'Society Studio', version: '1' };

/** The JSON-RPC code the SDK's own transport answers an unknown session with. */
const SESSION_NOT_FOUND = -32001;

/** Sessions kept at most: a client that never ends its session cannot pile them up. */
const MAX_SESSIONS = 100;

export interface McpOptions {
  /** Scrubs key values from every result (the process's redactor). */
  redact: (text: string) => string;
  /**
   * Aborts when the HTTP request that carries tool call `requestId` of session `sessionId` is
   * closed before its answer: the client went away, and nobody can read the result.
   */
  callGone?: (sessionId: string | undefined, requestId: string | number) => AbortSignal | undefined;
}

/**
 * A call of a tool that is not served: a protocol error (invalid params), its message sent as
 * is (the SDK's McpError would repeat its code in the message the client shows).
 */
class UnknownTool extends Error {
  readonly code = ErrorCode.InvalidParams;
}

/** One MCP server over the served societies: a session's, or the stdio one. */
export function societyMcpServer(ctx: ServeContext, options: McpOptions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions:
      'Each tool runs a society of AI agents and answers with its outputs. Runs are recorded in the Society Studio run store.',
  });
  // The level this client asked for; until it asks, run progress is logged at info.
  let level: LoggingLevel = 'info';
  const severity = (l: LoggingLevel) => LoggingLevelSchema.options.indexOf(l);
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...ctx.societies.values()].map(societyTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name } = request.params;
    const society = ctx.societies.get(name);
    if (!society)
      throw new UnknownTool(`no tool "${name}" (tools: ${[...ctx.societies.keys()].join(', ')})`);
    const token = extra._meta?.progressToken;
    const logs = severity('info') >= severity(level);
    const send = (notification: Parameters<typeof extra.sendNotification>[0]) =>
      void extra.sendNotification(notification).catch(() => {});
    const gone = options.callGone?.(extra.sessionId, extra.requestId);
    return callSociety(ctx, society, request.params.arguments ?? {}, {
      signal: gone ? AbortSignal.any([extra.signal, gone]) : extra.signal,
      redact: options.redact,
      ...(token !== undefined || logs
        ? {
            progress: (done: number, total: number | undefined, message: string) => {
              if (token !== undefined)
                send({
                  method: 'notifications/progress',
                  params: {
                    progressToken: token,
                    progress: done,
                    ...(total === undefined ? {} : { total }),
                    message,
                  },
                });
              const count = total === undefined ? `${done} done` : `${done}/${total}`;
              if (logs)
                send({
                  method: 'notifications/message',
                  params: { level: 'info', logger: name, data: `${message} (${count})` },
                });
            },
          }
        : {}),
    });
  });
  return server;
}

/** The `/mcp` endpoint: its routes, how to tell its clients the tools changed, how to end it. */
export interface McpEndpoint {
  routes: Route[];
  toolsChanged(): void;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
}

/** The Streamable HTTP endpoint at `/mcp`, one session per client. */
export function mcpEndpoint(ctx: ServeContext, options: McpOptions): McpEndpoint {
  // In order of last use: the first is the one to end when there are too many.
  const sessions = new Map<string, Session>();
  // The connection of each tool call in flight, by session and request id: a client that goes
  // away without `notifications/cancelled` closes it, and the call's run is cancelled.
  const connections = new Map<string, AbortSignal>();
  const callKey = (sessionId: string | undefined, requestId: string | number) =>
    `${sessionId}\n${typeof requestId}:${requestId}`;
  const serverOptions: McpOptions = {
    ...options,
    callGone: (sessionId, requestId) => connections.get(callKey(sessionId, requestId)),
  };

  const end = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    void session.server.close().catch(() => {});
  };

  async function handle(route: RouteContext): Promise<void> {
    const body = route.req.method === 'POST' ? await route.body(z.unknown()) : undefined;
    const id = route.req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session) {
      // Most recently used goes last.
      sessions.delete(id as string);
      sessions.set(id as string, session);
    } else if (id !== undefined) {
      return rpcError(route, 404, SESSION_NOT_FOUND, 'no such session: initialize again');
    } else if (route.req.method === 'POST' && isInitializeRequest(body)) {
      session = await openSession();
    } else {
      return rpcError(
        route,
        400,
        ErrorCode.InvalidRequest,
        'no Mcp-Session-Id header: start with an initialize request',
      );
    }
    const sessionId = session.transport.sessionId;
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, id } = (message ?? {}) as { method?: unknown; id?: unknown };
      if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number')) continue;
      const key = callKey(sessionId, id);
      connections.set(key, route.signal);
      route.signal.addEventListener(
        'abort',
        () => connections.get(key) === route.signal && connections.delete(key),
        { once: true },
      );
    }
    await session.transport.handleRequest(route.req, route.res, body);
  }

  async function openSession(): Promise<Session> {
    const server = societyMcpServer(ctx, serverOptions);
    let session!: Session;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        if (sessions.size >= MAX_SESSIONS) end(sessions.keys().next().value!);
        sessions.set(sid, session);
      },
      onsessionclosed: (sid) => end(sid),
    });
    session = { server, transport };
    await server.connect(transport);
    return session;
  }

  const handler = (route: RouteContext) => handle(route);
  return {
    routes: (['POST', 'GET', 'DELETE'] as const).map((method) => ({
      method,
      path: '/mcp',
      handler,
    })),
    toolsChanged: () => {
      for (const { server } of sessions.values()) void server.sendToolListChanged().catch(() => {});
    },
    close: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.server.close().catch(() => {})));
    },
  };
}

/** A JSON-RPC error, as MCP clients read one, for a request no session could take. */
function rpcError(route: RouteContext, status: number, code: number, message: string): void {
  route.json(status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
