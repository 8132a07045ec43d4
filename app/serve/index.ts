/**
 * `society serve` as a library: the served societies, the runner that runs them into the run
 * store, and the HTTP server with its route table (the API, the OpenAI-compatible endpoint, the
 * MCP endpoint `/mcp` and `/openapi.json`). Tests start it in-process on port 0; the command adds
 * files and flags.
 */

import { apiRoutes, type ServeContext } from './api.ts';
import type { ServedSociety } from './catalog.ts';
import { serveSetup } from './context.ts';
import type { Route } from './http.ts';
import { startHttp } from './http.ts';
import { mcpEndpoint } from './mcp.ts';
import { openAiRoutes } from './openai.ts';
import { openApiDocument } from './openapi.ts';
import type { Runner, RunnerOptions } from './runs.ts';

export type { ServedSociety } from './catalog.ts';
export { isLoopback } from './http.ts';

/** Largest request body by default: room for a few images as base64. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface ServeOptions extends Omit<RunnerOptions, 'store'> {
  societies: readonly ServedSociety[];
  store: RunnerOptions['store'];
  host: string;
  port: number;
  token?: string | undefined;
  maxBodyBytes?: number;
  redact: (text: string) => string;
  onError?: (message: string) => void;
  /** Milliseconds between the comments an idle event stream sends (default 15 s). */
  sseKeepAliveMs?: number;
  /** More routes, mounted beside the built-in ones. */
  routes?: (ctx: ServeContext) => Route[];
}

/** A running server. */
export interface Serving {
  url: string;
  port: number;
  runner: Runner;
  /** Serves `society` from now on in place of the one of its name (runs already started keep theirs). */
  replace(society: ServedSociety): void;
  /** Cancels the runs it holds (recorded as cancelled) and stops listening. */
  close(): Promise<void>;
}

/** Starts serving `societies`. */
export async function serve(options: ServeOptions): Promise<Serving> {
  const { ctx, runner, replace } = serveSetup(options);
  const mcp = mcpEndpoint(ctx, { redact: options.redact });
  const routes: Route[] = [
    ...apiRoutes(ctx),
    ...openAiRoutes(ctx),
    ...mcp.routes,
    ...(options.routes?.(ctx) ?? []),
    {
      method: 'GET',
      path: '/openapi.json',
      handler: ({ json }) => json(200, openApiDocument(ctx.societies.values())),
    },
  ];
  const http = await startHttp({
    host: options.host,
    port: options.port,
    token: options.token,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    routes,
    redact: options.redact,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.sseKeepAliveMs ? { sseKeepAliveMs: options.sseKeepAliveMs } : {}),
  });
  return {
    url: http.url,
    port: http.port,
    runner,
    replace: (society) => {
      replace(society);
      mcp.toolsChanged();
    },
    close: async () => {
      await runner.stop();
      await mcp.close();
      await http.close();
    },
  };
}
