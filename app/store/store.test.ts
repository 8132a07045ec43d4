import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VoteTally } from '../../nodes/vote/tally.ts';
import { Cassette, type NormalizedRequest, requestKey } from '../providers/cassette.ts';
import type { RunEvent, RunEventBody } from '../runtime/events.ts';
import type { GraphDocument } from '../schema/document.ts';
import { MIGRATIONS, migrate, NewerSchemaError, SCHEMA_VERSION } from './migrations.ts';
import { defaultDatabasePath } from './paths.ts';
import { SecretRefusedError } from './secrets.ts';
import { AmbiguousRunIdError, openRunStore, type RunStore } from './store.ts';
import { BufferedEventWriter } from './writer.ts';

let dir: string;
const open: RunStore[] = [];
const connections: Database.Database[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-store-test-'));
});
afterEach(async () => {
  for (const store of open.splice(0)) store.close();
  for (const db of connections.splice(0)) db.close();
  await rm(dir, { recursive: true, force: true });
});

function store(file = join(dir, 'society.db')): RunStore {
  const s = openRunStore(file);
  open.push(s);
  return s;
}

/** A second, independent connection to the same file: what another process would see. */
function peek(file = join(dir, 'society.db')): Database.Database {
  const db = new Database(file, { readonly: true });
  connections.push(db);
  return db;
}

const doc: GraphDocument = {
  version: 1,
  name: 'debate',
  nodes: [{ id: 'a', type: 'agent', position: { x: 0, y: 0 }, data: { prompt: 'Argue.' } }],
  edges: [],
};

function newRun(
  s: RunStore,
  id?: string,
  extra: { startedAt?: number; graph?: string; owner?: { pid: number; host: string } } = {},
) {
  return s.createRun({
    ...(id === undefined ? {} : { id }),
    document: extra.graph ? { ...doc, name: extra.graph } : doc,
    documentText: JSON.stringify(doc, null, 2),
    compilerVersion: 2,
    mode: 'simulated',
    inputs: { question: 'Is tea better than coffee?' },
    ...(extra.startedAt === undefined ? {} : { startedAt: extra.startedAt }),
    ...(extra.owner === undefined ? {} : { owner: extra.owner }),
  });
}

/** Numbers events from 1, one millisecond apart. */
function numbered(runId: string, bodies: RunEventBody[], firstSeq = 1): RunEvent[] {
  return bodies.map((body, i) => ({
    ...body,
    runId,
    seq: firstSeq + i,
    time: 1_700_000_000_000 + firstSeq + i,
  }));
}

function delta(runId: string, seq: number): Extract<RunEvent, { type: 'model.delta' }> {
  return { type: 'model.delta', callId: 'c1', text: `word ${seq} `, runId, seq, time: seq };
}

const everyKind: RunEventBody[] = [
  { type: 'run.started', graph: 'debate', inputs: { question: 'tea?' }, mode: 'simulated' },
  {
    type: 'node.started',
    node: 'a',
    instance: 'a#1',
    nodeType: 'agent',
    round: 1,
    stage: 'round',
    inputs: { image: { $image: 'ab'.repeat(32), mime: 'image/png' } },
  },
  {
    type: 'model.request',
    callId: 'c1',
    node: 'a',
    instance: 'a#1',
    profile: 'simulated',
    provider: 'simulated',
    model: 'sim-1',
    messages: [
      { role: 'system', content: 'Be brief. 🫖 «quotes» \u0000 nul' },
      { role: 'user', content: [{ type: 'text', text: 'Tea?' }] },
    ],
  },
  { type: 'model.delta', callId: 'c1', text: 'Tea ' },
  {
    type: 'model.retry',
    callId: 'c1',
    node: 'a',
    attempt: 1,
    delayMs: 250,
    error: 'HTTP 429',
  },
  {
    type: 'model.response',
    callId: 'c1',
    node: 'a',
    instance: 'a#1',
    text: 'Tea, obviously.',
    promptTokens: 12,
    completionTokens: 4,
    costUsd: 0.00005,
    source: 'simulated',
    simulated: true,
    durationMs: 3,
    attempts: 2,
  },
  {
    type: 'message',
    from: 'a#1',
    node: 'a',
    to: ['b'],
    text: 'Tea.',
    round: 1,
    simulated: true,
  },
  { type: 'round.started', loop: 'l', round: 1, maxRounds: 3 },
  { type: 'round.finished', loop: 'l', round: 1, stop: 'agreement' },
  {
    type: 'vote',
    node: 'v',
    instance: 'v#1',
    tally: { rule: 'plurality', winner: 'tea', counts: { tea: 2 } } as unknown as VoteTally,
  },
  { type: 'human.request', node: 'h', instance: 'h#1', name: 'ok', prompt: 'Fine?' },
  { type: 'human.response', node: 'h', instance: 'h#1', name: 'ok', answer: 'yes' },
  { type: 'paused', reason: 'breakpoint', at: { kind: 'node', node: 'a', instance: 'a#1' } },
  { type: 'resumed' },
  { type: 'node.finished', node: 'a', instance: 'a#1', outputs: { text: 'Tea.' }, durationMs: 5 },
  { type: 'node.failed', node: 'b', instance: 'b#1', error: 'boom' },
  { type: 'model.error', callId: 'c2', node: 'b', error: 'HTTP 500' },
  { type: 'error', message: 'b failed', node: 'b' },
  {
    type: 'run.finished',
    status: 'succeeded',
    outputs: { answer: 'Tea.' },
    usage: { calls: 1, promptTokens: 12, completionTokens: 4, totalTokens: 16, costUsd: 0.0001 },
  },
];

describe('opening and migrations', () => {
  it('migrates an empty file to the current schema, in WAL mode', async () => {
    const file = join(dir, 'empty.db');
    await writeFile(file, '');
    store(file);
    const db = peek(file);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(open[0]!.diagnostics()).toEqual({
      journalMode: 'wal',
      synchronous: 'full',
      foreignKeys: true,
      busyTimeoutMs: 5000,
      schemaVersion: SCHEMA_VERSION,
    });
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      'blobs',
      'calls',
      'events',
      'graph_versions',
      'graphs',
      'prices',
      'provider_profiles',
      'runs',
      'settings',
      'snapshots',
    ]);
  });

  it('creates the directory and reopens without migrating again', () => {
    const file = join(dir, 'a', 'b', 'society.db');
    const first = openRunStore(file);
    newRun(first, 'r1');
    first.close();
    const second = store(file);
    expect(second.getRun('r1')?.status).toBe('running');
  });

  it('refuses a database from a newer build', () => {
    const file = join(dir, 'newer.db');
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openRunStore(file)).toThrow(NewerSchemaError);
    expect(() => openRunStore(file)).toThrow(
      /newer Society Studio \(schema version \d+; this build understands up to \d+\)/,
    );
  });

  it('applies only pending steps, and a failing step changes nothing', () => {
    const db = new Database(':memory:');
    connections.push(db);
    const extra = [...MIGRATIONS, { name: 'add notes', sql: 'CREATE TABLE notes (x TEXT);' }];
    expect(migrate(db, 'test', MIGRATIONS)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(migrate(db, 'test', extra)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION + 1 });
    const broken = [
      ...extra,
      { name: 'good', sql: 'CREATE TABLE more (x TEXT);' },
      { name: 'bad', sql: 'CREATE TABLE notes (x TEXT);' },
    ];
    expect(() => migrate(db, 'test', broken)).toThrow(/migration 4 \(bad\) failed/);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'more'").pluck().get()).toBe(
      0,
    );
  });

  it('works in memory', () => {
    const s = store(':memory:');
    const run = newRun(s);
    expect(s.getRun(run.id)?.graphName).toBe('debate');
  });
});

describe('defaultDatabasePath', () => {
  it('prefers SOCIETY_DB', () => {
    expect(defaultDatabasePath({ SOCIETY_DB: '/x/y.db', HOME: '/h' }, 'linux')).toBe('/x/y.db');
  });
  it('follows XDG on Linux', () => {
    expect(defaultDatabasePath({ HOME: '/home/u' }, 'linux')).toBe(
      '/home/u/.local/share/society-studio/society.db',
    );
    expect(defaultDatabasePath({ HOME: '/home/u', XDG_DATA_HOME: '/data' }, 'linux')).toBe(
      '/data/society-studio/society.db',
    );
    expect(defaultDatabasePath({ HOME: '/home/u', XDG_DATA_HOME: 'rel' }, 'linux')).toBe(
      '/home/u/.local/share/society-studio/society.db',
    );
  });
  it('uses Application Support on macOS and APPDATA on Windows', () => {
    expect(defaultDatabasePath({ HOME: '/Users/u' }, 'darwin')).toBe(
      '/Users/u/Library/Application Support/Society Studio/society.db',
    );
    expect(defaultDatabasePath({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\Society Studio\\society.db',
    );
  });
});

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
    expect(s.events(run.id, { types: ['model.response', 'vote'] }).map((e) => e.type)).toEqual([
      'model.response',
      'vote',
    ]);
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

  it('batches: 10,000 pushes make 20 transactions, then flush stores the rest', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id);
    let slowest = 0;
    for (let seq = 1; seq <= 10_000; seq++) {
      const started = performance.now();
      writer.push(delta(run.id, seq));
      slowest = Math.max(slowest, performance.now() - started);
    }
    // One transaction per 500 buffered events; pushes in between only buffer.
    expect(writer.batches).toBe(20);
    expect(writer.pending).toBe(0);
    writer.push(delta(run.id, 10_001));
    expect(writer.pending).toBe(1);
    writer.flush();
    expect(writer.batches).toBe(21);
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
      {},
      () => {},
    );
    for (let seq = 1; seq <= 10_000; seq++) writer.push(delta('r', seq));
    writer.push({ ...delta('r', 10_001), type: 'run.finished' } as unknown as RunEvent);
    writer.close();
    expect(batches).toEqual([...Array.from({ length: 20 }, () => 500), 1]);
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

  it('durable events are on disk, with everything before them, when push returns', () => {
    const s = store();
    const run = newRun(s);
    const writer = s.eventWriter(run.id); // default: model.response, human.response
    const [started, request, response] = numbered(run.id, everyKind).filter((e) =>
      ['run.started', 'model.request', 'model.response'].includes(e.type),
    );
    writer.push(started!);
    writer.push(request!);
    const other = peek();
    const count = () =>
      other.prepare('SELECT count(*) FROM events WHERE run_id = ?').pluck().get(run.id);
    expect(count()).toBe(0);
    writer.push(response!);
    expect(count()).toBe(3);
    expect(
      JSON.parse(
        other.prepare('SELECT body FROM events WHERE seq = ?').pluck().get(response!.seq) as string,
      ),
    ).toEqual(response);
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

describe('graph library', () => {
  it('adds a version only when the content changes', () => {
    const s = store();
    const first = s.saveGraph(doc, JSON.stringify(doc));
    expect(first).toMatchObject({ name: 'debate', version: 1, changed: true });
    // Same content, other formatting and key order: no new version.
    const reordered = { edges: [], nodes: doc.nodes, name: 'debate', version: 1 } as GraphDocument;
    expect(s.saveGraph(reordered, JSON.stringify(reordered, null, 4))).toMatchObject({
      version: 1,
      changed: false,
    });
    const changed = { ...doc, description: 'now with a description' };
    expect(s.saveGraph(changed, JSON.stringify(changed))).toMatchObject({
      version: 2,
      changed: true,
    });
    expect(s.saveGraph(doc, JSON.stringify(doc))).toMatchObject({ version: 3, changed: true });
    s.saveGraph({ ...doc, name: 'another' }, '{}');

    expect(s.listGraphs().map((g) => [g.name, g.version])).toEqual([
      ['another', 1],
      ['debate', 3],
    ]);
    expect(s.getGraph('debate')?.version).toBe(3);
    expect(s.getGraph('debate', 2)?.documentText).toBe(JSON.stringify(changed));
    expect(s.getGraph(first.id, 1)?.documentText).toBe(JSON.stringify(doc));
    expect(s.getGraph('debate', 9)).toBeUndefined();
    expect(s.getGraph('missing')).toBeUndefined();
    expect(s.graphVersions('debate').map((v) => v.version)).toEqual([1, 2, 3]);
    expect(s.deleteGraph('debate')).toBe(true);
    expect(s.getGraph(first.id)).toBeUndefined();
  });
});

describe('keys never reach the database', () => {
  it('refuses provider profiles with a field that could hold a secret', () => {
    const s = store();
    const base = { name: 'mine', kind: 'openai-compatible', baseUrl: 'https://api.example/v1' };
    for (const field of ['apiKey', 'api_key', 'key', 'token', 'secret', 'password', 'hfToken']) {
      expect(() => s.saveProviderProfile({ ...base, [field]: 'x' })).toThrow(SecretRefusedError);
    }
    expect(() => s.saveProviderProfile({ ...base, apiKey: 'sk-abc' })).toThrow(
      /refusing to store "apiKey".*names the environment variable/,
    );
    // Key-shaped test values, put together here so no key-like literal sits in the source.
    const openaiShaped = ['sk', 'proj', 'FAKEtestVALUE'].join('-');
    const hfShaped = ['hf', 'FAKEtestVALUEnotAtoken'].join('_');
    expect(() => s.saveProviderProfile({ ...base, apiKeyEnv: openaiShaped })).toThrow(
      SecretRefusedError,
    );
    expect(() => s.saveProviderProfile({ ...base, apiKeyEnv: hfShaped })).toThrow();
    expect(() =>
      s.saveProviderProfile({ ...base, baseUrl: 'https://u:pw@api.example/v1' }),
    ).toThrow(/user name or password/);
    expect(() =>
      s.saveProviderProfile({ ...base, baseUrl: 'https://api.example/v1?api_key=1' }),
    ).toThrow(/query string/);
    expect(() => s.saveProviderProfile({ ...base, extra: 1 })).toThrow(/not valid/);
    expect(s.listProviderProfiles()).toEqual([]);

    const saved = s.saveProviderProfile({ ...base, apiKeyEnv: 'MY_API_KEY', concurrency: 3 });
    expect(s.getProviderProfile('mine')).toEqual(saved);
    expect(s.saveProviderProfile({ name: 'mine', kind: 'simulated' })).toEqual({
      name: 'mine',
      kind: 'simulated',
    });
    expect(s.getProviderProfile('mine')).toEqual({ name: 'mine', kind: 'simulated' });
    expect(s.deleteProviderProfile('mine')).toBe(true);
  });

  it('refuses settings that look like keys', () => {
    const s = store();
    s.setSetting('theme', { dark: true, keyboard: 'vim' });
    expect(s.getSetting('theme')).toEqual({ dark: true, keyboard: 'vim' });
    expect(() => s.setSetting('openaiApiKey', 'x')).toThrow(SecretRefusedError);
    expect(() => s.setSetting('providers', { openai: { apiKey: 'x' } })).toThrow(
      /refusing to store "openai.apiKey"/,
    );
    expect(() => s.setSetting('note', 'my key is sk-proj-1234567890abcdef')).toThrow(
      SecretRefusedError,
    );
    expect(s.listSettings()).toEqual({ theme: { dark: true, keyboard: 'vim' } });
  });

  it('a byte search of the database finds no key after a run that names only its variable', async () => {
    const file = join(dir, 'society.db');
    const KEY = 'sk-test-DO-NOT-STORE-7f3a9c0e51b2';
    const variable = 'SOCIETY_TEST_OPENAI_KEY';
    process.env[variable] = KEY;
    try {
      const s = openRunStore(file);
      s.saveProviderProfile({
        name: 'openai',
        kind: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        apiKeyEnv: variable,
      });
      s.setSetting('defaultProvider', 'openai');
      s.setPrice('gpt-x', { inputPerMillion: 1.25, outputPerMillion: 10 });
      const run = newRun(s);
      const writer = s.eventWriter(run.id);
      const events = numbered(run.id, [
        ...everyKind.slice(0, 3),
        { type: 'model.error', callId: 'c1', node: 'a', error: `401: check ${variable}` },
        ...everyKind.slice(5),
      ]);
      for (const event of events) writer.push(event);
      writer.close();
      const request: NormalizedRequest = {
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'Tea?' }],
      };
      s.recordCall(run.id, requestKey(request), request, {
        text: 'Tea.',
        usage: { promptTokens: 1, completionTokens: 1 },
        model: 'gpt-x',
      });
      s.finishRun(run.id, { status: 'succeeded', error: `used ${variable}` });
      s.close();
    } finally {
      delete process.env[variable];
    }
    let found = 0;
    for (const name of await readdir(dir)) {
      const bytes = await readFile(join(dir, name));
      expect(bytes.indexOf(KEY), name).toBe(-1);
      if (bytes.indexOf(variable) >= 0) found++;
    }
    expect(found).toBeGreaterThan(0); // the search itself works: the variable's name is there
  });
});

describe('blobs and prices', () => {
  it('stores bytes once by hash', () => {
    const s = store();
    const bytes = new Uint8Array([137, 80, 78, 71, 0, 255]);
    const sha = s.putBlob(bytes, 'image/png');
    expect(s.putBlob(bytes, 'image/png')).toBe(sha);
    expect(s.getBlob(sha)).toEqual({ bytes, mime: 'image/png' });
    expect(s.getBlob('0'.repeat(64))).toBeUndefined();
  });

  it('keeps one price per model', () => {
    const s = store();
    s.setPrice('gpt-x', { inputPerMillion: 1, outputPerMillion: 2 });
    s.setPrice('gpt-x', { inputPerMillion: 1.5, outputPerMillion: 6 });
    expect(s.getPrice('gpt-x')).toMatchObject({ inputPerMillion: 1.5, outputPerMillion: 6 });
    s.setPrice('gpt-y', { inputPerMillion: 0.1, outputPerMillion: 0.4 });
    expect(s.priceTable()).toEqual({
      'gpt-x': { inputPerMillion: 1.5, outputPerMillion: 6 },
      'gpt-y': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
    });
    expect(() => s.setPrice('bad', { inputPerMillion: -1, outputPerMillion: 0 })).toThrow();
    expect(s.deletePrice('gpt-x')).toBe(true);
    expect(s.getPrice('gpt-x')).toBeUndefined();
  });
});
