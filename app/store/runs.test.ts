import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Cassette, type NormalizedRequest, requestKey } from '../providers/cassette.ts';
import { doc, everyKind, newRun, numbered, store, withTempStores } from './store.test-helper.ts';
import { AmbiguousRunIdError } from './store.ts';

withTempStores();

describe('runs', () => {
  it('finish, list newest first, filter by graph', () => {
    const s = store();
    const a = newRun(s, 'aaaa', { startedAt: 1000 });
    newRun(s, 'bbbb', { startedAt: 2000, graph: 'other' });
    newRun(s, 'cccc', { startedAt: 3000 });
    s.finishRun(a.id, {
      status: 'succeeded',
      outputs: { answer: 'tea' },
      usage: { calls: 3, promptTokens: 30, completionTokens: 9, totalTokens: 39, costUsd: 0.0123 },
      finishedAt: 1500,
    });
    expect(() => s.finishRun(a.id, { status: 'failed' })).toThrow(/already finished/);
    expect(() => s.finishRun('zzzz', { status: 'failed' })).toThrow(/not in the store/);
    expect(s.listRuns().map((r) => r.id)).toEqual(['cccc', 'bbbb', 'aaaa']);
    expect(s.listRuns({ limit: 1 }).map((r) => r.id)).toEqual(['cccc']);
    expect(s.listRuns({ graph: 'debate' }).map((r) => r.id)).toEqual(['cccc', 'aaaa']);
    expect(s.listRuns({ graph: 'debate' })[1]).toEqual({
      id: 'aaaa',
      graph: 'debate',
      status: 'succeeded',
      mode: 'simulated',
      startedAt: 1000,
      finishedAt: 1500,
      costUsd: 0.0123,
      calls: 3,
      tokens: 39,
    });
    const record = s.getRun('aaaa')!;
    expect(record.outputs).toEqual({ answer: 'tea' });
    expect(record.documentText).toBe(JSON.stringify(doc, null, 2));
    expect(record.graphHash).toMatch(/^[0-9a-f]{64}$/);
    expect(record.inputs).toEqual({ question: 'Is tea better than coffee?' });
  });

  it('leaves runs of live processes and other hosts alone, and reopens interrupted ones', () => {
    const s = store();
    newRun(s, 'mine');
    newRun(s, 'elsewhere', { owner: { pid: 1, host: 'another-machine' } });
    newRun(s, 'crashed', { owner: { pid: 2 ** 22 + 7, host: hostname() } });
    expect(s.markInterrupted()).toEqual(['crashed']);
    expect(s.getRun('mine')?.status).toBe('running');
    expect(s.getRun('elsewhere')?.status).toBe('running');
    expect(s.reopenRun('crashed')).toMatchObject({ status: 'running' });
    expect(() => s.reopenRun('mine')).toThrow(/only an interrupted run can be resumed/);
  });

  it('markInterrupted turns running runs into interrupted ones, except its own', () => {
    const s = store();
    const withEvents = newRun(s, 'r-events', { startedAt: 10 });
    const bare = newRun(s, 'r-bare', { startedAt: 20 });
    const done = newRun(s, 'r-done');
    s.finishRun(done.id, { status: 'cancelled' });
    const live = newRun(s, 'r-live');
    const writer = s.eventWriter(withEvents.id);
    for (const e of numbered(withEvents.id, everyKind.slice(0, 6))) writer.push(e);
    writer.close();
    s.eventWriter(live.id); // this process is running it

    // As after a crash: the processes that owned them are gone.
    const dead = () => false;
    expect(s.markInterrupted(dead).sort()).toEqual(['r-bare', 'r-events']);
    expect(s.getRun(withEvents.id)).toMatchObject({
      status: 'interrupted',
      finishedAt: 1_700_000_000_006,
    });
    expect(s.getRun(bare.id)).toMatchObject({ status: 'interrupted', finishedAt: 20 });
    expect(s.getRun(done.id)?.status).toBe('cancelled');
    expect(s.getRun(live.id)?.status).toBe('running');
    expect(s.markInterrupted(dead)).toEqual([]);
    // Unfinished runs count their calls and tokens from the model.response events.
    const summary = s.listRuns().find((r) => r.id === withEvents.id);
    expect(summary).toMatchObject({ calls: 1, tokens: 16, costUsd: 0.00005 });
    expect(s.listRuns().find((r) => r.id === bare.id)?.costUsd).toBeUndefined();
    // An interrupted run can still be finished (e.g. after a resume).
    expect(s.finishRun(bare.id, { status: 'failed', error: 'gave up' }).status).toBe('failed');
  });

  it('finds a run by a unique prefix; an ambiguous one is an error', () => {
    const s = store();
    for (const id of ['3fa9c1d2', '3fa9e8b0', '7c01aa00', '7c01']) newRun(s, id);
    expect(s.getRun('3fa9c')?.id).toBe('3fa9c1d2');
    expect(s.getRun('7c01')?.id).toBe('7c01'); // an exact id wins over longer ids
    expect(s.getRun('7c01a')?.id).toBe('7c01aa00');
    expect(s.getRun('ffff')).toBeUndefined();
    expect(() => s.getRun('3fa9')).toThrow(AmbiguousRunIdError);
    expect(() => s.getRun('3fa9')).toThrow(
      'run id prefix "3fa9" is ambiguous: it matches 3fa9c1d2, 3fa9e8b0; type more of the id',
    );
    expect(() => s.getRun('')).toThrow(/give a run id/);
  });

  it('generated ids are distinct hex', () => {
    const s = store();
    const ids = new Set(Array.from({ length: 50 }, () => newRun(s).id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('forks keep a link to their parent until it is deleted', () => {
    const s = store();
    const parent = newRun(s, 'parent');
    const fork = s.createRun({
      document: doc,
      documentText: '{}',
      compilerVersion: 2,
      mode: 'replay-then-live',
      inputs: {},
      parentRunId: parent.id,
      forkSeq: 7,
    });
    expect(s.getRun(fork.id)).toMatchObject({ parentRunId: 'parent', forkSeq: 7 });
    expect(() => newRun(s, 'parent')).toThrow(/already exists/);
    s.deleteRun(parent.id);
    expect(s.getRun(fork.id)?.parentRunId).toBeUndefined();
  });

  it('snapshots: the latest at or before a seq', () => {
    const s = store();
    const run = newRun(s);
    s.saveSnapshot(run.id, 5, { at: 5 });
    s.saveSnapshot(run.id, 9, { at: 9 });
    expect(s.snapshot(run.id)).toEqual({ seq: 9, state: { at: 9 } });
    expect(s.snapshot(run.id, 8)).toEqual({ seq: 5, state: { at: 5 } });
    expect(s.snapshot(run.id, 4)).toBeUndefined();
    expect(() => s.saveSnapshot(run.id, 9, {})).toThrow();
  });
});

describe('model calls', () => {
  it('callRecord is a cassette that replays the run in order', () => {
    const s = store();
    const run = newRun(s);
    const png = Buffer.from('not really a png').toString('base64');
    const ask: NormalizedRequest = {
      model: 'gpt-x',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', url: `data:image/png;base64,${png}` },
          ],
        },
      ],
      temperature: 1,
    };
    const other: NormalizedRequest = {
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'Hi' }],
    };
    const answer = (text: string) => ({
      text,
      usage: { promptTokens: 5, completionTokens: 2 },
      model: 'gpt-x-2025',
      finishReason: 'stop',
      source: 'live' as const,
    });
    s.recordCall(run.id, requestKey(ask), ask, answer('A cat.'));
    s.recordCall(run.id, requestKey(other), other, answer('Hello.'));
    s.recordCall(run.id, requestKey(ask), ask, answer('Still a cat.'));

    const file = s.callRecord(run.id);
    // The same file a Cassette recording the same calls would write.
    const expected = new Cassette();
    expected.record(ask, answer('A cat.'));
    expected.record(other, answer('Hello.'));
    expected.record(ask, answer('Still a cat.'));
    expect(file).toEqual(expected.toJSON());
    expect(JSON.stringify(file)).not.toContain(png); // images are stored as hashes

    const cassette = Cassette.fromJSON(JSON.parse(JSON.stringify(file)));
    expect(cassette.lookup(ask)?.text).toBe('A cat.');
    expect(cassette.lookup(ask)?.text).toBe('Still a cat.');
    expect(cassette.lookup(other)).toEqual({
      text: 'Hello.',
      usage: { promptTokens: 5, completionTokens: 2 },
      model: 'gpt-x-2025',
      finishReason: 'stop',
    });
    expect(s.callRecord('no-such-run')).toEqual({
      format: 'society-cassette',
      version: 1,
      entries: [],
    });
    expect(() => s.recordCall(run.id, 'short', ask, answer('x'))).toThrow(/sha256 hex/);
  });
});
