/**
 * A small MCP server built with the official SDK's server side, for tests that must see what a
 * server receives: every tool call is counted on arrival, and a tool may hold a call (answer it
 * only when the test lets it), or read the request's headers to echo them. Served over
 * Streamable HTTP on a free port of 127.0.0.1, statelessly (a server and transport per request,
 * as the SDK's stateless example does), so a client that dies mid-call leaves nothing behind.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { z } from 'zod';

/** One tool the server offers: a zod shape for its arguments and what it answers. */
export interface CountedTool {
  name: string;
  description?: string;
  input: z.ZodRawShape;
  /** What it says of itself (MCP's annotations), e.g. `{ destructiveHint: true }`. */
  annotations?: { destructiveHint?: boolean; readOnlyHint?: boolean };
  /** Throwing answers the call as an error result carrying the message, as the SDK does. */
  answer: (
    args: Record<string, unknown>,
    request: { headers: IncomingHttpHeaders; signal: AbortSignal },
  ) => Promise<string> | string;
}

/** A call the server received, in order of arrival. */
export interface ReceivedCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface CountingMcpServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Every tool call received so far (counted before it is answered). */
  calls: ReceivedCall[];
  close(): Promise<void>;
}

/** The SDK server offering `tools`, recording each call in `calls` as it arrives. */
export function countingMcp(tools: readonly CountedTool[], calls: ReceivedCall[]): McpServer {
  const server = new McpServer({ name: 'counting-test-server', version: '1.0.0' });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description ?? tool.name,
        inputSchema: tool.input,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
      },
      async (args: Record<string, unknown>, extra) => {
        calls.push({ tool: tool.name, args });
        const text = await tool.answer(args, {
          headers: (extra.requestInfo?.headers ?? {}) as IncomingHttpHeaders,
          signal: extra.signal,
        });
        return { content: [{ type: 'text' as const, text }] };
      },
    );
  }
  return server;
}

/** Starts the server over Streamable HTTP; resolves once it listens. */
export async function startCountingMcp(tools: readonly CountedTool[]): Promise<CountingMcpServer> {
  const calls: ReceivedCall[] = [];
  const http = createServer(async (req, res) => {
    const server = countingMcp(tools, calls);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
