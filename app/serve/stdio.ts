/**
 * `society serve --stdio`: the MCP server for a client that starts the server itself (Claude
 * Desktop, Cursor), over the process's stdin and stdout. Nothing listens on the network; stdout
 * carries the protocol only, so every line the server logs goes to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ServedSociety } from './catalog.ts';
import { serveSetup } from './context.ts';
import { societyMcpServer } from './mcp.ts';
import type { Runner, RunnerOptions } from './runs.ts';

export interface StdioServeOptions extends RunnerOptions {
  societies: readonly ServedSociety[];
  redact: (text: string) => string;
  /** Where the protocol travels (default: the process's stdin and stdout). */
  stdin?: Readable;
  stdout?: Writable;
}

/** A running stdio server. */
export interface StdioServing {
  runner: Runner;
  /** Serves `society` from now on in place of the one of its name, and tells the client. */
  replace(society: ServedSociety): void;
  /** Resolves when the client has gone (it closed our stdin). */
  closed: Promise<void>;
  /** Cancels the runs it holds (recorded as cancelled) and ends the session. */
  close(): Promise<void>;
}

/** Serves `societies` as MCP tools over stdio. */
export async function serveStdio(options: StdioServeOptions): Promise<StdioServing> {
  const { ctx, runner, replace } = serveSetup(options);
  const server = societyMcpServer(ctx, { redact: options.redact });
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The client closing our stdin is how it says goodbye.
    stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  return {
    runner,
    replace: (society) => {
      replace(society);
      void server.sendToolListChanged().catch(() => {});
    },
    closed,
    close: async () => {
      await runner.stop();
      await server.close().catch(() => {});
    },
  };
}
