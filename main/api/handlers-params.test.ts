/**
 * Template parameters through the editor's API: `run.start` takes values by name (typed, or
 * text as a form gives them), the run honours them and records them, a fork keeps them, and a
 * bad value is refused with a problem naming the parameter. Simulated: no key, no network.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiContract, ApiResult, RunEventPush } from '../../app/api/contract.ts';
import { openRunStore, type RunStore } from '../../app/store/index.ts';
import { type ApiHandlers, createApiHandlers } from './handlers.ts';

const DOC = JSON.parse(
  readFileSync(new URL('../../docs/examples/parameters.society.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const INPUTS = { question: 'Why do bridges have expansion joints?' };
/** Monarchy: the organizer and every member each round, then the summary and the leader. */
const calls = (rounds: number, members: number) => rounds * (1 + members) + 2;

let dir: string;
let store: RunStore;
let api: ApiHandlers;
const pushes: RunEventPush[] = [];
const waiters: Array<() => void> = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'society-handlers-params-'));
  store = openRunStore(path.join(dir, 'society.db'));
  api = createApiHandlers({
    store,
    workspaceDir: path.join(dir, 'workspace'),
    env: {},
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
  rmSync(dir, { recursive: true, force: true });
});

function call<M extends keyof ApiContract>(method: M, params: unknown): Promise<ApiResult<M>> {
  return api.call(method, params) as Promise<ApiResult<M>>;
}

async function event(runId: string, type: string): Promise<Record<string, unknown>> {
  for (;;) {
    const found = pushes.find((p) => p.runId === runId && p.event.type === type);
    if (found) return found.event;
    await new Promise<void>((wake) => waiters.push(wake));
  }
}

describe('run.start with params', () => {
  it('runs with the values given, records them, and a fork keeps them', async () => {
    const { runId } = await call('run.start', {
      document: DOC,
      mode: 'simulated',
      inputs: INPUTS,
      // A form sends text; a typed value is taken as it is.
      params: { rounds: '3', members: ['a judge', 'a nurse'] },
    });
    const finished = await event(runId, 'run.finished');
    expect(finished.status).toBe('succeeded');
    expect((finished.usage as { calls: number }).calls).toBe(calls(3, 2));
    expect((await event(runId, 'run.started')).params).toMatchObject({
      rounds: 3,
      members: ['a judge', 'a nurse'],
      structure: 'monarchy',
    });
    // The stored document carries the values as its defaults; the saved graph keeps its own.
    const stored = JSON.parse(store.getRun(runId)!.documentText);
    expect(stored.params.rounds.default).toBe(3);
    expect(stored.nodes.find((n: { id: string }) => n.id === 'storm').data.maxRounds).toEqual({
      $param: 'rounds',
    });

    const fork = await call('runs.fork', { runId, at: 5 });
    const forked = await event(fork.runId, 'run.finished');
    expect((forked.usage as { calls: number }).calls).toBe(calls(3, 2));
  });

  it('runs the defaults when given none', async () => {
    const { runId } = await call('run.start', { document: DOC, mode: 'simulated', inputs: INPUTS });
    const finished = await event(runId, 'run.finished');
    expect((finished.usage as { calls: number }).calls).toBe(calls(2, 3));
  });

  it('refuses an unknown parameter or a value it does not take, naming it', async () => {
    await expect(
      call('run.start', {
        document: DOC,
        mode: 'simulated',
        params: { rounds: 0, roundz: 2 },
      }),
    ).rejects.toMatchObject({
      problems: [
        { path: 'params.rounds', message: 'rounds is a whole number from 1 to 5' },
        {
          path: 'params.roundz',
          message: 'no parameter "roundz" (parameters: rounds, structure, members, tone)',
        },
      ],
    });
  });
});
