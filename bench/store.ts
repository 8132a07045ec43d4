/**
 * Run store throughput: events appended per second through `eventWriter` into a file database
 * (WAL, synchronous=FULL), with a realistic mix of event types: one run, several runs at once
 * sharing commits (group commit), the same runs each waiting for its paid answers to be on
 * disk, and batches alone; and the time to load a 10,000-event run. Figures only; nothing is
 * asserted. Runs alone: `node bench/store.ts` (`--events N` for fewer or more events).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, RunEventBody } from '../app/runtime/events.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { openRunStore, type RunStore } from '../app/store/store.ts';
import { isDurableByDefault, isSoonByDefault } from '../app/store/writer.ts';
import { isMain, machineLine, median, ms } from './support.ts';

export interface StoreAppendFigures {
  label: string;
  events: number;
  /** Events that had to reach the disk at once or within the bounded wait (paid, human). */
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

/** Runs appending at the same time in the group-commit figures (an eval, a served society). */
const CONCURRENT = 8;
/** The durable figure the store aims at (issue: durable appends ≥ 150,000 events/s). */
const AIM_EVENTS_PER_SECOND = 150_000;

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

interface AppendOptions {
  /** Runs appending at the same time, `count` events between them. */
  runs: number;
  durable?: (e: RunEvent) => boolean;
  soon?: (e: RunEvent) => boolean;
  /** Each run waits until its paid answer is on disk (`writer.durable()`) before going on. */
  awaitDurable?: boolean;
}

/**
 * Appends `count` events the way the engine does: a turn's events pushed back to back, then
 * the event loop turns (the engine awaits the next model answer) so background commits run.
 * With several runs they take turns on the event loop, as concurrent runs of one process do.
 */
async function append(
  store: RunStore,
  label: string,
  count: number,
  options: AppendOptions,
): Promise<StoreAppendFigures> {
  const isDurable = options.durable ?? isDurableByDefault;
  const isSoon = options.soon ?? isSoonByDefault;
  const pushTimes: number[] = [];
  let durableEvents = 0;
  const commitsBefore = store.eventCommits;
  const perRun = Math.ceil(count / options.runs);
  const writers = Array.from({ length: options.runs }, () => {
    const runId = newRun(store);
    return store.eventWriter(runId, {
      ...(options.durable ? { durable: options.durable } : {}),
      ...(options.soon ? { soon: options.soon } : {}),
    });
  });
  const started = performance.now();
  await Promise.all(
    writers.map(async (writer) => {
      const runId = writer.runId;
      let seq = 0;
      for (let call = 0; seq < perRun; call++) {
        let paid = false;
        for (const body of turn(call % 12, Math.floor(call / 12) + 1)) {
          if (seq >= perRun) break;
          const event = { ...body, runId, seq: ++seq, time: Date.now() } as RunEvent;
          if (isDurable(event) || isSoon(event)) {
            durableEvents++;
            paid = true;
          }
          const before = performance.now();
          writer.push(event);
          pushTimes.push(performance.now() - before);
        }
        if (paid && options.awaitDurable) await writer.durable();
        else await new Promise(setImmediate);
      }
    }),
  );
  for (const writer of writers) writer.close();
  const wallMs = performance.now() - started;
  const events = perRun * options.runs;
  return {
    label,
    events,
    durableEvents,
    wallMs,
    eventsPerSecond: events / (wallMs / 1000),
    transactions: store.eventCommits - commitsBefore,
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
    log(`appending ${events} events, one run (paid answers soon, human answers at once)…`);
    results.push(await append(store, 'durable, one run', events, { runs: 1 }));
    log(`appending ${events} events, ${CONCURRENT} runs at once…`);
    results.push(
      await append(store, `durable, ${CONCURRENT} runs at once (group commit)`, events, {
        runs: CONCURRENT,
      }),
    );
    log(`appending ${events} events, ${CONCURRENT} runs each awaiting its paid answers on disk…`);
    results.push(
      await append(store, `durable, ${CONCURRENT} runs each awaiting durable()`, events, {
        runs: CONCURRENT,
        awaitDurable: true,
      }),
    );
    log(`appending ${events} events (nothing durable: batches only)…`);
    results.push(
      await append(store, 'batches only', events, {
        runs: 1,
        durable: () => false,
        soon: () => false,
      }),
    );

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
  const lines = [
    'Run store (SQLite file, WAL, synchronous=FULL, group commit; eventWriter → events(runId))',
  ];
  for (const a of r.append) {
    // Every durable figure is read against the aim; "batches only" is the ceiling without it.
    const aim = a.label.startsWith('durable')
      ? `; aim ≥ ${thousands(AIM_EVENTS_PER_SECOND)}: ${a.eventsPerSecond >= AIM_EVENTS_PER_SECOND ? 'met' : 'NOT met'}`
      : '';
    lines.push(
      `  append ${thousands(a.events)} events, ${a.label}: ${thousands(a.eventsPerSecond)} events/s${aim}`,
    );
    lines.push(
      `    ${ms(a.wallMs, 0)}; ${thousands(a.transactions)} transactions for ${thousands(a.durableEvents)} durable events; ` +
        `time inside push: total ${ms(a.pushMs.total, 0)}, p99 ${ms(a.pushMs.p99, 3)}, max ${ms(a.pushMs.max, 2)}`,
    );
  }
  lines.push(
    `  load a ${thousands(r.load.events)}-event run: ${ms(r.load.medianMs)} median of 7 ` +
      `(${thousands(r.load.eventsPerSecond)} events/s)`,
  );
  lines.push(`  database file after all: ${(r.fileBytes / 1024 / 1024).toFixed(1)} MiB`);
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const at = process.argv.indexOf('--events');
  const events = at > 0 ? Number(process.argv[at + 1]) : undefined;
  const result = await benchStore({ log: console.log, ...(events ? { events } : {}) });
  for (const line of formatStore(result)) console.log(line);
  console.log(`(store took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
