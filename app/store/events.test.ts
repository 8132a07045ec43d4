import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../runtime/events.ts';
import {
  connections,
  delta,
  dir,
  everyKind,
  newRun,
  numbered,
  peek,
  store,
  withTempStores,
} from './store.test-helper.ts';
import { openRunStore } from './store.ts';
import { BufferedEventWriter } from './writer.ts';

withTempStores();

describe('events', () => {
  it('round-trip exactly and in order, with seq and type filters', () => {
    const s = store();
    const run = newRun(s);
    const events = numbered(run.id, everyKind);
    const writer = s.eventWriter(run.id, { durable: () => false });
    for (const event of [...events].reverse()) writer.push(event); // stored order is seq order
    writer.close();
    const read = s.events(run.id);
    expect(read).toEqual(events);
    expect(read.map((e) => Object.keys(e))).toEqual(events.map((e) => Object.keys(e)));
    expect(s.lastSeq(run.id)).toBe(events.length);
    expect(s.events(run.id, { fromSeq: 3, toSeq: 5 }).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(
      s.events(run.id, { types: ['model.response', 'human.request'] }).map((e) => e.type),
    ).toEqual(['model.response', 'human.request']);
    expect(s.lastSeq('nope')).toBe(0);
  });

  it('stores the event as it was when pushed', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    const event = { ...delta(run.id, 1), text: 'before' };
    writer.push(event);
    event.text = 'after';
    writer.close();
    expect(s.events(run.id)[0]).toMatchObject({ text: 'before' });
  });

  it('reads a vote and a series point older builds stored as events of their own as reports', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    const tally = { rule: 'plurality', winner: 'tea', counts: { tea: 2 } };
    const old = [
      { type: 'vote', runId: run.id, seq: 1, time: 1, node: 'v', instance: 'v#1', tally },
      {
        ...{ type: 'series', runId: run.id, seq: 2, time: 2, node: 'w', instance: 'w@r1' },
        ...{ name: 'mood', x: 1, values: { ann: 0.5 }, unit: 'pad' },
      },
      delta(run.id, 3),
    ] as unknown as RunEvent[];
    for (const event of old) writer.push(event);
    writer.close();
    const expected = [
      { type: 'report', seq: 1, node: 'v', instance: 'v#1', kind: 'tally', data: tally },
      {
        ...{ type: 'report', seq: 2, node: 'w', instance: 'w@r1', kind: 'series' },
        data: { name: 'mood', x: 1, values: { ann: 0.5 }, unit: 'pad' },
      },
    ];
    expect(s.events(run.id).slice(0, 2)).toEqual(
      expected.map((e) => expect.objectContaining({ ...e, runId: run.id })),
    );
    // Asking for reports finds them under their old types too.
    expect(s.events(run.id, { types: ['report'] }).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('refuses a duplicate seq, loudly, and never overwrites', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id, { durable: () => true });
    writer.push(delta(run.id, 1));
    expect(() => writer.push({ ...delta(run.id, 1), text: 'other' })).toThrow(
      /event 1 \(model\.delta\) of run .* is already stored; the event log is append-only/,
    );
    // The failed event stays buffered and the writer refuses more until a flush succeeds.
    expect(writer.pending).toBe(1);
    expect(() => writer.push(delta(run.id, 2))).toThrow(/already stored/);
    expect(() => writer.close()).toThrow(/already stored/);
    expect(s.events(run.id)).toEqual([delta(run.id, 1)]);
  });

  it('names the duplicate among a batch of many, and keeps none of the batch', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id, { durable: () => false });
    // The duplicate sits inside the second of the rows' multi-row inserts.
    for (let seq = 1; seq <= 30; seq++) writer.push(delta(run.id, seq));
    writer.push({ ...delta(run.id, 7), text: 'again' });
    for (let seq = 31; seq <= 55; seq++) writer.push(delta(run.id, seq));
    expect(() => writer.flush()).toThrow(/event 7 \(model\.delta\) of run .* is already stored/);
    expect(s.lastSeq(run.id)).toBe(0);
    expect(() => writer.close()).toThrow(/already stored/);
  });

  it('reports a duplicate found by a background flush', async () => {
    const s = store();
    const run = newRun(s);
    const errors: Error[] = [];
    const writer = s.eventWriter(run.id, { durable: () => false, onError: (e) => errors.push(e) });
    writer.push(delta(run.id, 1));
    writer.push(delta(run.id, 1));
    await new Promise(setImmediate);
    expect(errors[0]?.message).toMatch(/already stored/);
    expect(() => writer.push(delta(run.id, 2))).toThrow(/already stored/);
    expect(s.lastSeq(run.id)).toBe(0); // the batch was one transaction: none of it was kept
    expect(() => writer.close()).toThrow(/already stored/);
  });

  it('cannot be rewritten or deleted except with their run', () => {
    const file = join(dir, 'society.db');
    const s = store(file);
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    writer.push(delta(run.id, 1));
    writer.close();
    const db = new Database(file);
    connections.push(db);
    expect(() => db.prepare("UPDATE events SET body = '{}'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    expect(s.deleteRun(run.id)).toBe(true);
    expect(s.events(run.id)).toEqual([]);
    expect(s.getRun(run.id)).toBeUndefined();
  });

  it('batches: 10,000 pushes make 100 transactions, then flush stores the rest', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id, { maxBuffered: 100 });
    let slowest = 0;
    for (let seq = 1; seq <= 10_000; seq++) {
      const started = performance.now();
      writer.push(delta(run.id, seq));
      slowest = Math.max(slowest, performance.now() - started);
    }
    // One transaction per 100 buffered events; pushes in between only buffer.
    expect(writer.batches).toBe(100);
    expect(writer.pending).toBe(0);
    writer.push(delta(run.id, 10_001));
    expect(writer.pending).toBe(1);
    writer.flush();
    expect(writer.batches).toBe(101);
    expect(writer.written).toBe(10_001);
    expect(s.lastSeq(run.id)).toBe(10_001);
    const read = s.events(run.id);
    expect(read).toHaveLength(10_001);
    expect(read.every((e, i) => e.seq === i + 1)).toBe(true);
    expect(slowest).toBeLessThan(1000); // a sanity bound only; bench/store.ts measures
  });

  it('makes one write per batch (counted by wrapping the batch write)', () => {
    const batches: number[] = [];
    const writer = new BufferedEventWriter(
      'r',
      (rows) => batches.push(rows.length),
      { maxBuffered: 100 },
      () => {},
    );
    for (let seq = 1; seq <= 10_000; seq++) writer.push(delta('r', seq));
    writer.push({ ...delta('r', 10_001), type: 'run.finished' } as unknown as RunEvent);
    writer.close();
    expect(batches).toEqual([...Array.from({ length: 100 }, () => 100), 1]);
  });

  it('writes buffered events together once the engine yields', async () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    for (let seq = 1; seq <= 3; seq++) writer.push(delta(run.id, seq));
    expect(s.lastSeq(run.id)).toBe(0);
    await new Promise(setImmediate);
    expect(s.lastSeq(run.id)).toBe(3);
    expect(writer.batches).toBe(1);
  });

  it('after a background write, waits out its interval before the next, however often the engine yields', async () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id, { minIntervalMs: 60_000 });
    writer.push(delta(run.id, 1));
    await new Promise(setImmediate);
    expect(writer.batches).toBe(1);
    for (let seq = 2; seq <= 50; seq++) {
      writer.push(delta(run.id, seq));
      await new Promise(setImmediate);
    }
    expect(writer.batches).toBe(1);
    expect(writer.pending).toBe(49);
    writer.close();
    expect(writer.batches).toBe(2);
    expect(s.lastSeq(run.id)).toBe(50);
  });

  it("a person's answer is on disk, with everything before it, when push returns; a paid one once durable() resolves", async () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id); // default: human.response now, a live model.response soon
    const [started, request, response, , answer] = numbered(run.id, everyKind).filter((e) =>
      [
        'run.started',
        'model.request',
        'model.response',
        'human.request',
        'human.response',
      ].includes(e.type),
    );
    // A simulated answer costs nothing to give again: it waits for the next batch.
    const simulated = response as Extract<RunEvent, { type: 'model.response' }>;
    const live = { ...simulated, seq: simulated.seq + 1, source: 'live' as const };
    writer.push(started!);
    writer.push(request!);
    const other = peek();
    const count = () =>
      other.prepare('SELECT count(*) FROM events WHERE run_id = ?').pluck().get(run.id);
    expect(count()).toBe(0);
    writer.push(simulated);
    expect(count()).toBe(0);
    writer.push(live);
    await writer.durable();
    expect(count()).toBe(4);
    expect(
      JSON.parse(
        other.prepare('SELECT body FROM events WHERE seq = ?').pluck().get(live.seq) as string,
      ),
    ).toEqual(live);
    writer.push({ ...answer!, seq: live.seq + 1 });
    expect(count()).toBe(5);
  });

  it("holds the run's end until close, then stores it with the run's record in one transaction", async () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    const finished = {
      type: 'run.finished',
      status: 'succeeded',
      outputs: { answer: 'tea' },
      usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
      runId: run.id,
      seq: 3,
      time: 3,
    } as RunEvent;
    writer.push(delta(run.id, 1));
    writer.push(delta(run.id, 2));
    writer.push(finished);
    await new Promise(setImmediate);
    writer.flush();
    // A crash now leaves a log without its end, and the run is resumable from it.
    expect(s.lastSeq(run.id)).toBe(2);
    expect(writer.pending).toBe(1);
    expect(s.getRun(run.id)?.status).toBe('running');
    writer.close({ status: 'succeeded', outputs: { answer: 'tea' }, finishedAt: 9 });
    expect(s.lastSeq(run.id)).toBe(3);
    expect(s.events(run.id).at(-1)).toEqual(finished);
    expect(s.getRun(run.id)).toMatchObject({ status: 'succeeded', finishedAt: 9 });
  });

  it('writes neither the last events nor the finish when the finish is refused', () => {
    const s = store();
    const run = newRun(s);
    s.finishRun(run.id, { status: 'cancelled' });
    const writer = s.eventWriter(run.id);
    writer.push(delta(run.id, 1));
    expect(() => writer.close({ status: 'succeeded' })).toThrow(/already finished/);
    expect(s.lastSeq(run.id)).toBe(0);
    expect(s.getRun(run.id)?.status).toBe('cancelled');
  });

  it('close() of the store flushes open writers', () => {
    const file = join(dir, 'society.db');
    const s = openRunStore(file);
    const run = newRun(s);
    s.eventWriter(run.id).push(delta(run.id, 1));
    s.close();
    expect(store(file).lastSeq(run.id)).toBe(1);
  });

  it('refuses events of another run and a second writer for a run', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    expect(() => writer.push(delta('other', 1))).toThrow(/belongs to run other/);
    expect(() => s.eventWriter(run.id)).toThrow(/already has an open event writer/);
    expect(() => s.eventWriter('missing')).toThrow(/not in the store/);
  });
});
