/**
 * What the API handlers' tests share: one `createApiHandlers` per test file over a temporary
 * store and workspace, called the way the page calls it (through `call`, so params and results
 * go through the contract's schemas), with every pushed run event kept and waited on. Optionally
 * a local OpenAI-compatible server stands in for the provider.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApiContract, ApiResult, RunEventPush } from '../../app/api/contract.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { type ChainServer, startChainServer } from '../../tests/support/chain.ts';
import { type StubOpenAI, startStubOpenAI } from '../../tests/support/stub-openai.ts';
import { ApiError } from './errors.ts';
import { type ApiHandlers, createApiHandlers } from './handlers.ts';

/** The test file's temporary folder: the database and the workspace. */
export let dir: string;
export let store: RunStore;
export let api: ApiHandlers;
/** The environment the handlers were given (keys, the stand-in server's URL). */
export let env: Record<string, string>;
/** The stand-in OpenAI server, when the file asked for one. */
export let stub: StubOpenAI;
/** With `openai: 'chain'`: the server that answers a chain of three until told to refuse. */
export let chainServer: ChainServer;
/** Every run event pushed to the page, in order. */
export const pushes: RunEventPush[] = [];
const waiters: Array<() => void> = [];

export interface ApiOptions {
  /** Names the temporary folder: `society-handlers-NAME-`. */
  name: string;
  /** OPENAI_API_KEY in the handlers' environment; none by default. */
  key?: string;
  /**
   * A local OpenAI-compatible server as OPENAI_BASE_URL: `plain` answers every call,
   * `chain` is `startChainServer` (tests/support/chain.ts). None by default.
   */
  openai?: 'plain' | 'chain';
  /** The workspace folder's name in the temporary folder; default `workspace`. */
  workspace?: string;
  /** The host's confirm dialog (the desktop app's); none by default, as in the studio. */
  confirm?: (message: string) => Promise<boolean>;
}

/** Creates the handlers for the calling test file's tests, and closes them after. */
export function withApi(options: ApiOptions): void {
  beforeAll(async () => {
    if (options.openai === 'chain') {
      chainServer = await startChainServer();
      stub = chainServer.stub;
    } else if (options.openai === 'plain') stub = await startStubOpenAI();
    dir = mkdtempSync(path.join(tmpdir(), `society-handlers-${options.name}-`));
    store = openRunStore(path.join(dir, 'society.db'));
    env = {
      ...(options.key ? { OPENAI_API_KEY: options.key } : {}),
      ...(options.openai ? { OPENAI_BASE_URL: stub.url } : {}),
    };
    api = createApiHandlers({
      store,
      workspaceDir: path.join(dir, options.workspace ?? 'workspace'),
      env,
      log: () => {},
      ...(options.confirm ? { confirm: options.confirm } : {}),
    });
    api.onRunEvent((push) => {
      pushes.push(push);
      for (const wake of waiters.splice(0)) wake();
    });
  });

  afterAll(async () => {
    await api?.close();
    store?.close();
    await stub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}

export function call<M extends keyof ApiContract>(
  method: M,
  params: unknown,
): Promise<ApiResult<M>> {
  return api.call(method, params) as Promise<ApiResult<M>>;
}

/** The first pushed event of a run that matches, past or future. */
export async function event(
  runId: string,
  match: (e: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  for (;;) {
    const found = pushes.find((p) => p.runId === runId && match(p.event));
    if (found) return found.event;
    await new Promise<void>((wake) => waiters.push(wake));
  }
}

/** A run's `run.finished` event, once it has one. */
export const finished = (runId: string) => event(runId, (e) => e.type === 'run.finished');

/** Every event pushed for a run so far. */
export const eventsOf = (runId: string) =>
  pushes.filter((p) => p.runId === runId).map((p) => p.event);

/** The refusal of `promise`: an ApiError, with its message and reason. */
export async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
