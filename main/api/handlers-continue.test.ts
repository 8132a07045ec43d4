/**
 * "Retry from the failure" in the studio (`runs.continue`), called the way the page calls it: a
 * live run against a local OpenAI-compatible server fails when the server starts refusing; once
 * it answers again, the continuation sends only the calls the failed run had not had answered,
 * streams its events as a fork of the failed run, and ends with an unbroken run's outputs. A
 * succeeded run is refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContract, ApiResult, RunEventPush } from '../../app/api/contract.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { type StubOpenAI, startStubOpenAI, stubError } from '../../tests/support/stub-openai.ts';
import { type ApiHandlers, createApiHandlers } from './handlers.ts';

/** Three agents in a chain: each call's prompt holds the answer before it. */
const CHAIN = {
  version: 1,
  name: 'chain of three',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 20 } },
  settings: { retry: { attempts: 1 } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
    ...['a', 'b', 'c'].map((id) => ({
      id,
      type: 'agent',
      position: { x: 0, y: 0 },
      data: { model: 'm', prompt: `${id.toUpperCase()}: {{ in }}` },
    })),
    { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'in' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'b', targetHandle: 'in' },
    { id: 'e3', source: 'b', sourceHandle: 'text', target: 'c', targetHandle: 'in' },
    { id: 'e4', source: 'c', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

let dir: string;
let store: RunStore;
let api: ApiHandlers;
let stub: StubOpenAI;
/** The server refuses once it has answered this many requests. */
let answerLimit = Number.POSITIVE_INFINITY;
let answered = 0;
const pushes: RunEventPush[] = [];
const waiters: Array<() => void> = [];

beforeAll(async () => {
  stub = await startStubOpenAI({
    respond: (body) => {
      if (answered >= answerLimit) return stubError(503, 'The server is overloaded');
      answered++;
      return {
        text: `<${body.messages.at(-1).content}>`,
        usage: { prompt_tokens: 5, completion_tokens: 2 },
      };
    },
  });
  dir = mkdtempSync(path.join(tmpdir(), 'society-handlers-continue-'));
  store = openRunStore(path.join(dir, 'society.db'));
  api = createApiHandlers({
    store,
    workspaceDir: path.join(dir, 'workspace'),
    env: { OPENAI_API_KEY: 'sk-handlers-continue-0123456789', OPENAI_BASE_URL: stub.url },
    log: () => {},
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
  rmSync(dir, { recursive: true, force: true });
});

function call<M extends keyof ApiContract>(method: M, params: unknown): Promise<ApiResult<M>> {
  return api.call(method, params) as Promise<ApiResult<M>>;
}

async function finished(runId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const found = pushes.find((p) => p.runId === runId && p.event.type === 'run.finished');
    if (found) return found.event;
    await new Promise<void>((wake) => waiters.push(wake));
  }
}

describe('runs.continue: Retry from the failure', () => {
  it('sends only what the failed run lacks and ends as an unbroken run', async () => {
    const start = () =>
      call('run.start', { document: CHAIN, inputs: { q: 'tides' }, mode: 'live' });
    const unbroken = await start();
    expect((await finished(unbroken.runId)).status).toBe('succeeded');
    const reference = store.getRun(unbroken.runId)!.outputs;
    expect(reference).toEqual({ answer: '<C: <B: <A: tides>>>' });

    // The server answers a and b, then refuses c.
    answered = 0;
    answerLimit = 2;
    const failed = await start();
    const end = await finished(failed.runId);
    expect(end.status).toBe('failed');
    expect(String(end.error)).toMatch(/node "c".*overloaded/);

    answerLimit = Number.POSITIVE_INFINITY;
    const before = stub.count();
    const retry = await call('runs.continue', { runId: failed.runId });
    expect(retry).toMatchObject({ parentRunId: failed.runId, answered: 2 });
    expect((await finished(retry.runId)).status).toBe('succeeded');
    expect(stub.count() - before).toBe(1);
    const continued = store.getRun(retry.runId)!;
    expect(continued.outputs).toEqual(reference);
    expect(continued).toMatchObject({ parentRunId: failed.runId, forkSeq: retry.forkSeq });
    expect(store.getRun(failed.runId)!.status).toBe('failed');
    // The page is told the kept log first, without the failure, then what the retry adds.
    const told = pushes.filter((p) => p.runId === retry.runId).map((p) => p.event);
    expect(told.filter((e) => e.type === 'node.failed' || e.type === 'model.error')).toEqual([]);
    expect(told.filter((e) => e.type === 'run.finished')).toHaveLength(1);

    await expect(call('runs.continue', { runId: retry.runId })).rejects.toThrow(
      /succeeded; there is nothing to continue/,
    );
  });
});
