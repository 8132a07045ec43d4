/**
 * Run store throughput: events appended per second through `eventWriter` into a file database
 * (WAL, synchronous=FULL), with a realistic mix of event types, and the time to load a
 * 10,000-event run. Figures only; nothing is asserted. Runs alone: `node bench/store.ts`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, RunEventBody } from '../app/runtime/events.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { openRunStore, type RunStore } from '../app/store/store.ts';
import { isDurableByDefault } from '../app/store/writer.ts';
import { isMain, machineLine, median, ms } from './support.ts';

export interface StoreAppendFigures {
  label: string;
  events: number;
  /** Events written before push returned (and so fsynced one transaction each). */
  durableEvents: number;
  wallMs: number;
  eventsPerSecond: number;
  transactions: number;
  /** Time spent inside `push`, which is what the engine waits for. */
  pushMs: { total: number; p99: number; max: number };
}

export interface StoreBenchResult {
  file: string;
  append: StoreAppendFigures[];
  load: { events: number; medianMs: number; eventsPerSecond: number };
  fileBytes: number;
  elapsedMs: number;
}

export interface StoreBenchOptions {
  /** Events per append run. Default 100,000. */
  events?: number;
  /** Events in the run that is loaded. Default 10,000. */
  loadEvents?: number;
  log?: (line: string) => void;
}

const document: GraphDocument = {
  version: 1,
  name: 'bench-society',
  nodes: [],
  edges: [],
};

const SYSTEM = 'You are one mind in a society of minds. Argue briefly, then listen. '.repeat(4);
const QUESTION = 'Should the committee fund the lighthouse restoration or the new library wing?';
const WORDS = 'the committee should weigh what the town will still need in fifty years'.split(' ');

/**
 * One agent turn as the engine logs it: node.started, model.request, a stream of deltas,
 * model.response, message, node.finished: 24 events, one of them a paid answer.
 */
function turn(agent: number, round: number): RunEventBody[] {
  const node = `agent_${agent}`;
  const instance = `${node}#${round}`;
  const callId = `call-${agent}-${round}`;
  const text = WORDS.join(' ');
  const bodies: RunEventBody[] = [
    { type: 'node.started', node, instance, nodeType: 'agent', round, inputs: { QUESTION } },
    {
      type: 'model.request',
      callId,
      node,
      instance,
      profile: 'openai',
      provider: 'openai',
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: `${QUESTION}\n\nRound ${round}: the others said ${text}.` },
      ],
    },
  ];
  for (let i = 0; i < 18; i++) {
    bodies.push({ type: 'model.delta', callId, text: `${WORDS[i % WORDS.length]} ` });
  }
  bodies.push(
    {
      type: 'model.response',
      callId,
      node,
      instance,
      text,
      promptTokens: 180,
      completionTokens: 40,
      source: 'live',
      simulated: false,
      durationMs: 850,
      attempts: 1,
    },
    { type: 'message', from: instance, node, to: ['moderator'], text, round, simulated: false },
    { type: 'node.finished', node, instance, outputs: { text }, durationMs: 851 },
  );
  return bodies;
}

function newRun(store: RunStore): string {
  return store.createRun({
    document,
    documentText: JSON.stringify(document),
    compilerVersion: 2,
    mode: 'live',
    inputs: { question: QUESTION },
  }).id;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * Appends `count` events the way the engine does: a turn's events pushed back to back, then
 * the event loop turns (the engine awaits the next model answer) so background flushes run.
 */
async function append(
  store: RunStore,
  label: string,
  count: number,
  durable: ((e: RunEvent) => boolean) | undefined,
): Promise<StoreAppendFigures> {
  const runId = newRun(store);
  const writer = store.eventWriter(runId, durable ? { durable } : {});
  const pushTimes: number[] = [];
  let seq = 0;
  let durableEvents = 0;
  const isDurable = durable ?? isDurableByDefault;
  const started = performance.now();
  for (let call = 0; seq < count; call++) {
    for (const body of turn(call % 12, Math.floor(call / 12) + 1)) {
      if (seq >= count) break;
      const event = { ...body, runId, seq: ++seq, time: Date.now() } as RunEvent;
      if (isDurable(event)) durableEvents++;
      const before = performance.now();
      writer.push(event);
      pushTimes.push(performance.now() - before);
    }
    await new Promise(setImmediate);
  }
  writer.close();
  const wallMs = performance.now() - started;
  return {
    label,
    events: count,
    durableEvents,
    wallMs,
    eventsPerSecond: count / (wallMs / 1000),
    transactions: writer.batches,
    pushMs: {
      total: pushTimes.reduce((a, b) => a + b, 0),
      p99: percentile(pushTimes, 99),
      max: Math.max(...pushTimes),
    },
  };
}

export async function benchStore(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const events = options.events ?? 100_000;
  const loadEvents = options.loadEvents ?? 10_000;
  const log = options.log ?? (() => {});
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'society-store-bench-'));
  const file = join(dir, 'society.db');
  try {
    let store = openRunStore(file);
    const results: StoreAppendFigures[] = [];
    log(`appending ${events} events (model.response, human.response durable)…`);
    results.push(await append(store, 'default durability', events, undefined));
    log(`appending ${events} events (nothing durable: batches only)…`);
    results.push(await append(store, 'batches only', events, () => false));

    log(`loading a ${loadEvents}-event run…`);
    const loadRun = newRun(store);
    const writer = store.eventWriter(loadRun, { durable: () => false });
    let seq = 0;
    for (let call = 0; seq < loadEvents; call++) {
      for (const body of turn(call % 12, Math.floor(call / 12) + 1)) {
        if (seq < loadEvents)
          writer.push({ ...body, runId: loadRun, seq: ++seq, time: Date.now() } as RunEvent);
      }
    }
    writer.close();
    store.close();
    // Reopened, as `society runs show` would; the OS page cache is still warm.
    store = openRunStore(file);
    const loadTimes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = performance.now();
      const loaded = store.events(loadRun);
      loadTimes.push(performance.now() - before);
      if (loaded.length !== loadEvents) throw new Error(`loaded ${loaded.length} events`);
    }
    store.checkpoint();
    store.close();
    const loadMs = median(loadTimes);
    return {
      file,
      append: results,
      load: { events: loadEvents, medianMs: loadMs, eventsPerSecond: loadEvents / (loadMs / 1000) },
      fileBytes: statSync(file).size,
      elapsedMs: performance.now() - started,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

export function formatStore(r: StoreBenchResult): string[] {
  const lines = ['Run store (SQLite file, WAL, synchronous=FULL; eventWriter → events(runId))'];
  for (const a of r.append) {
    lines.push(
      `  append ${thousands(a.events)} events, ${a.label}: ${thousands(a.eventsPerSecond)} events/s ` +
        `(${ms(a.wallMs, 0)}; ${thousands(a.transactions)} transactions, ${thousands(a.durableEvents)} durable)`,
    );
    lines.push(
      `    time inside push: total ${ms(a.pushMs.total, 0)}, p99 ${ms(a.pushMs.p99, 3)}, max ${ms(a.pushMs.max, 2)}`,
    );
  }
  lines.push(
    `  load a ${thousands(r.load.events)}-event run: ${ms(r.load.medianMs)} median of 7 ` +
      `(${thousands(r.load.eventsPerSecond)} events/s)`,
  );
  lines.push(`  database file after both: ${(r.fileBytes / 1024 / 1024).toFixed(1)} MiB`);
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchStore({ log: console.log });
  for (const line of formatStore(result)) console.log(line);
  console.log(`(store took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
