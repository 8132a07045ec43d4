/**
 * "Retry from the failure" in the studio (`runs.continue`), called the way the page calls it: a
 * live run against a local OpenAI-compatible server fails when the server starts refusing; once
 * it answers again, the continuation sends only the calls the failed run had not had answered,
 * streams its events as a fork of the failed run, and ends with an unbroken run's outputs. A
 * succeeded run is refused.
 */
import { describe, expect, it } from 'vitest';
import { chainOfThree } from '../../tests/support/chain.ts';
import {
  call,
  chainServer,
  finished,
  pushes,
  store,
  stub,
  withApi,
} from './handlers.test-helper.ts';

const CHAIN = chainOfThree();

withApi({ name: 'continue', key: 'sk-handlers-continue-0123456789', openai: 'chain' });

describe('runs.continue: Retry from the failure', () => {
  it('sends only what the failed run lacks and ends as an unbroken run', async () => {
    const start = () =>
      call('run.start', { document: CHAIN, inputs: { q: 'tides' }, mode: 'live' });
    const unbroken = await start();
    expect((await finished(unbroken.runId)).status).toBe('succeeded');
    const reference = store.getRun(unbroken.runId)!.outputs;
    expect(reference).toEqual({ answer: '<C: <B: <A: tides>>>' });

    // The server answers a and b, then refuses c.
    chainServer.refuseAfter(2);
    const failed = await start();
    const end = await finished(failed.runId);
    expect(end.status).toBe('failed');
    expect(String(end.error)).toMatch(/node "c".*overloaded/);

    chainServer.answerAll();
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

    // The studio's refusal names no terminal command.
    await expect(call('runs.continue', { runId: retry.runId })).rejects.toThrow(
      new RegExp(`^run ${retry.runId} succeeded; there is nothing to continue$`),
    );
  });
});
