import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../runtime/events.ts';
import { GroupCommit } from './group-commit.ts';
import { delta, dir, newRun, peek, store, withTempStores } from './store.test-helper.ts';
import { BufferedEventWriter, type EventRow } from './writer.ts';

withTempStores();

/** A live (paid) model answer: committed within the bounded wait, not before push returns. */
function paid(runId: string, seq: number): RunEvent {
  return {
    type: 'model.response',
    callId: `c${seq}`,
    node: 'a',
    instance: 'a#1',
    text: 'tea',
    promptTokens: 1,
    completionTokens: 1,
    source: 'live',
    simulated: false,
    durationMs: 1,
    attempts: 1,
    runId,
    seq,
    time: seq,
  };
}

describe('group commit', () => {
  it('commits the paid answers of runs appending at the same time in one transaction', async () => {
    let transactions = 0;
    const group = new GroupCommit((fn) => {
      transactions++;
      fn();
    });
    const stored: string[] = [];
    const writers = ['r1', 'r2', 'r3'].map(
      (runId) =>
        new BufferedEventWriter(
          runId,
          (rows: readonly EventRow[]) => {
            for (const row of rows) stored.push(`${runId}:${row.seq}`);
          },
          {},
          () => {},
          group,
        ),
    );
    for (const writer of writers) {
      writer.push(delta(writer.runId, 1));
      writer.push(paid(writer.runId, 2));
    }
    expect(stored).toEqual([]); // nothing waited for the disk inside push
    await Promise.all(writers.map((w) => w.durable()));
    expect(transactions).toBe(1);
    expect(stored).toEqual(['r1:1', 'r1:2', 'r2:1', 'r2:2', 'r3:1', 'r3:2']);
    expect(writers.map((w) => [w.written, w.batches, w.pending])).toEqual([
      [2, 1, 0],
      [2, 1, 0],
      [2, 1, 0],
    ]);
  });

  it('durable() waits for the fsync after a background commit, which all runs committed meanwhile share', async () => {
    const fsyncs: Array<() => void> = [];
    let relaxed = 0;
    const group = new GroupCommit((fn) => fn(), 0, {
      relaxed: (fn) => {
        relaxed++;
        fn();
      },
      fsync: () => new Promise<void>((resolve) => fsyncs.push(resolve)),
      close: () => {},
    });
    const writers = ['r1', 'r2'].map(
      (runId) =>
        new BufferedEventWriter(
          runId,
          () => {},
          {},
          () => {},
          group,
        ),
    );
    let onDisk = 0;
    for (const writer of writers) {
      writer.push(paid(writer.runId, 1));
      void writer.durable().then(() => onDisk++);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Committed together without waiting for the disk; one fsync is under way for both.
    expect(relaxed).toBe(1);
    expect(writers.map((w) => w.written)).toEqual([1, 1]);
    expect(fsyncs).toHaveLength(1);
    expect(onDisk).toBe(0);
    fsyncs[0]!();
    await new Promise(setImmediate);
    expect(onDisk).toBe(2);
  });

  it('commitSoon commits at once and resolves only after an fsync begun after it', async () => {
    const fsyncs: Array<() => void> = [];
    const written: string[] = [];
    let closed = false;
    const group = new GroupCommit((fn) => fn(), 0, {
      relaxed: (fn) => fn(),
      fsync: () => new Promise<void>((resolve) => fsyncs.push(resolve)),
      close: () => {
        closed = true;
      },
    });
    const first = group.commitSoon(() => written.push('a'));
    const onDisk: string[] = [];
    void first.then(() => onDisk.push('a'));
    // An fsync is under way for the first; the second commits meanwhile, so it needs another.
    void group.commitSoon(() => written.push('b')).then(() => onDisk.push('b'));
    expect(written).toEqual(['a', 'b']);
    expect(fsyncs).toHaveLength(1);
    fsyncs[0]!();
    await new Promise(setImmediate);
    expect(onDisk).toEqual(['a']);
    expect(fsyncs).toHaveLength(2);
    fsyncs[1]!();
    await new Promise(setImmediate);
    expect(onDisk).toEqual(['a', 'b']);
    // A store closing while a commit waits for its fsync flushes it before letting go.
    void group.commitSoon(() => written.push('c')).then(() => onDisk.push('c'));
    expect(fsyncs).toHaveLength(3);
    void group.commitSoon(() => written.push('d')).then(() => onDisk.push('d'));
    group.dispose();
    fsyncs[2]!();
    await new Promise(setImmediate);
    expect(fsyncs).toHaveLength(4);
    expect(onDisk).toEqual(['a', 'b', 'c']);
    expect(closed).toBe(false);
    fsyncs[3]!();
    await new Promise(setImmediate);
    expect(onDisk).toEqual(['a', 'b', 'c', 'd']);
    expect(closed).toBe(true);
    // A write that throws commits nothing and is told at once.
    expect(() =>
      group.commitSoon(() => {
        throw new Error('the disk is full');
      }),
    ).toThrow('the disk is full');
  });

  it('a paid answer and everything before it reach the file within the bounded wait', async () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    writer.push(delta(run.id, 1));
    writer.push(paid(run.id, 2));
    const other = peek();
    const count = () =>
      other.prepare('SELECT count(*) FROM events WHERE run_id = ?').pluck().get(run.id);
    // Waiting on a timer, not on durable(): the commit is the store's own doing.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(count()).toBe(2);
  });

  it('a run whose event is refused fails alone; the others sharing the commit are stored', async () => {
    const s = store();
    const bad = newRun(s);
    const good = newRun(s);
    const errors: Error[] = [];
    const badWriter = s.eventWriter(bad.id, { onError: (e) => errors.push(e) });
    const goodWriter = s.eventWriter(good.id);
    badWriter.push(delta(bad.id, 1));
    badWriter.push(delta(bad.id, 1));
    const refused = badWriter.durable();
    goodWriter.push(delta(good.id, 1));
    goodWriter.flush();
    expect(s.lastSeq(good.id)).toBe(1);
    expect(s.lastSeq(bad.id)).toBe(0);
    await expect(refused).rejects.toThrow(/already stored/);
    expect(errors[0]?.message).toMatch(/event 1 \(model\.delta\) of run .* is already stored/);
    expect(() => badWriter.push(delta(bad.id, 2))).toThrow(/already stored/);
    expect(() => badWriter.close()).toThrow(/already stored/);
    goodWriter.push(delta(good.id, 2));
    goodWriter.close();
    expect(s.events(good.id).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('writes long events once a mebibyte of them is buffered, however few', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    const long = (seq: number) => ({ ...delta(run.id, seq), text: 'x'.repeat(400_000) });
    writer.push(long(1));
    writer.push(long(2));
    expect(s.lastSeq(run.id)).toBe(0);
    writer.push(long(3));
    expect(s.lastSeq(run.id)).toBe(3);
    expect(writer.pending).toBe(0);
  });

  it('writes what is buffered when the process exits (a second Ctrl-C exits at once)', () => {
    const file = join(dir, 'society.db');
    const s = store(file);
    const run = newRun(s);
    s.close();
    const storeModule = fileURLToPath(new URL('./store.ts', import.meta.url));
    // Pushes a batch and a paid answer, then exits before any timer could commit them.
    const script = `
      const { openRunStore } = await import(${JSON.stringify(storeModule)});
      const s = openRunStore(${JSON.stringify(file)}, { groupCommitMs: 60000 });
      const w = s.eventWriter(${JSON.stringify(run.id)}, { minIntervalMs: 60000 });
      const e = ${JSON.stringify([delta(run.id, 1), paid(run.id, 2)])};
      for (const event of e) w.push(event);
      if (w.pending !== 2) throw new Error('written too early');
      process.exit(130);
    `;
    let code = 0;
    try {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' });
    } catch (error) {
      code = (error as { status: number }).status;
    }
    expect(code).toBe(130);
    expect(
      store(file)
        .events(run.id)
        .map((e) => e.seq),
    ).toEqual([1, 2]);
  });
});
