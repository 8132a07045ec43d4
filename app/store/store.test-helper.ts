/**
 * What the run store's tests share: a temporary directory per test, stores and read-only
 * connections that are closed after it, a document to run and events of every kind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import type { RunEvent, RunEventBody } from '../runtime/events.ts';
import type { GraphDocument } from '../schema/document.ts';
import { openRunStore, type RunStore } from './store.ts';

/** This test's temporary directory (a new one for each test; see `withTempStores`). */
export let dir: string;
/** Stores opened by `store`, closed after each test. */
export const open: RunStore[] = [];
/** Connections opened by `peek` (or pushed by a test), closed after each test. */
export const connections: Database.Database[] = [];

/** Gives each test of the calling file a fresh `dir`, and closes what it opened afterwards. */
export function withTempStores(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-store-test-'));
  });
  afterEach(async () => {
    for (const store of open.splice(0)) store.close();
    for (const db of connections.splice(0)) db.close();
    await rm(dir, { recursive: true, force: true });
  });
}

/** Opens a store (by default `dir`/society.db) that is closed after the test. */
export function store(file = join(dir, 'society.db')): RunStore {
  const s = openRunStore(file);
  open.push(s);
  return s;
}

/** A second, independent connection to the same file: what another process would see. */
export function peek(file = join(dir, 'society.db')): Database.Database {
  const db = new Database(file, { readonly: true });
  connections.push(db);
  return db;
}

/** A one-agent document the runs of these tests run. */
export const doc: GraphDocument = {
  version: 1,
  name: 'debate',
  nodes: [{ id: 'a', type: 'agent', position: { x: 0, y: 0 }, data: { prompt: 'Argue.' } }],
  edges: [],
};

/** Records a run of `doc` (or of a graph named `extra.graph`) in `s`. */
export function newRun(
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
export function numbered(runId: string, bodies: RunEventBody[], firstSeq = 1): RunEvent[] {
  return bodies.map((body, i) => ({
    ...body,
    runId,
    seq: firstSeq + i,
    time: 1_700_000_000_000 + firstSeq + i,
  }));
}

/** A model.delta event with the given seq. */
export function delta(runId: string, seq: number): Extract<RunEvent, { type: 'model.delta' }> {
  return { type: 'model.delta', callId: 'c1', text: `word ${seq} `, runId, seq, time: seq };
}

/** One event of every kind, with awkward text (emoji, quotes, a NUL), in run order. */
export const everyKind: RunEventBody[] = [
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
    type: 'report',
    node: 'v',
    instance: 'v#1',
    kind: 'tally',
    data: { rule: 'plurality', winner: 'tea', counts: { tea: 2 } },
  },
  {
    type: 'report',
    node: 'w',
    instance: 'w@r1',
    kind: 'series',
    data: {
      name: 'resources',
      x: 1,
      values: { 'ann 🫖': 2.5, bob: null, yard: 'tea «talk»' },
      unit: 'coins',
    },
  },
  {
    type: 'report',
    node: 'w',
    instance: 'w@r1',
    kind: 'interaction',
    data: { from: 'ann 🫖', to: 'bob', kind: 'chat', x: 1 },
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
