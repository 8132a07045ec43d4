/**
 * Template parameters through the editor's API: `run.start` takes values by name (typed, or
 * text as a form gives them), the run honours them and records them, a fork keeps them, and a
 * bad value is refused with a problem naming the parameter. Simulated: no key, no network.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, event as eventWhere, store, withApi } from './handlers.test-helper.ts';

const DOC = JSON.parse(
  readFileSync(new URL('../../docs/examples/parameters.society.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const INPUTS = { question: 'Why do bridges have expansion joints?' };
/** Monarchy: the organizer and every member each round, then the summary and the leader. */
const calls = (rounds: number, members: number) => rounds * (1 + members) + 2;

withApi({ name: 'params' });

/** A run's first pushed event of this type, past or future. */
const event = (runId: string, type: string) => eventWhere(runId, (e) => e.type === type);

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
