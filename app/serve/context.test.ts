import { describe, expect, it } from 'vitest';
import { startedOrEnded } from './context.ts';
import { emptyResult, type RunHandle, type ServedRun } from './runs.ts';

/** A served run whose start and end the test decides. */
function servedRun() {
  let start!: (run: RunHandle) => void;
  let end!: () => void;
  const served = {
    id: 'r1',
    started: new Promise<RunHandle>((resolve) => {
      start = resolve;
    }),
    done: new Promise((resolve) => {
      end = () => resolve(emptyResult('r1', 'cancelled'));
    }),
  } as ServedRun;
  return { served, start, end };
}

describe('waiting for a served run to start', () => {
  it('gives the run once it starts', async () => {
    const { served, start } = servedRun();
    const handle = { cancel: () => {} } as unknown as RunHandle;
    const waited = startedOrEnded(served);
    start(handle);
    expect(await waited).toBe(handle);
  });

  it('gives nothing for a run that ended without starting, or a client that left', async () => {
    // Cancelled while it waited for its slot: `started` never resolves, the wait still ends.
    const queued = servedRun();
    const waited = startedOrEnded(queued.served);
    queued.end();
    expect(await waited).toBeUndefined();
    const left = new AbortController();
    const waiting = startedOrEnded(servedRun().served, left.signal);
    left.abort();
    expect(await waiting).toBeUndefined();
  });
});
