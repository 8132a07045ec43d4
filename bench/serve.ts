/**
 * What `society serve` adds over running a society in process: a one-call society against the
 * local OpenAI-compatible stub (its own thread, 100 ms per answer), run
 *   - in process, as `society run` runs it (the engine, recording into a store): the baseline;
 *   - through `society serve` in this process (`POST /v1/chat/completions` over loopback);
 *   - through `society serve --queue` with 1, then 3 `society worker` processes (Redis at a
 *     free port; skipped with a message without Debian's redis-server).
 * All four are set up first, then asked in turn (measure), so a load from elsewhere on the
 * machine falls on each alike. Latency is taken one request at a time (p50, p95, and what the
 * server adds to the baseline's); throughput with a fixed number of requests in flight.
 *
 *   node bench/serve.ts
 *   BENCH_REQUESTS=100 BENCH_ROUNDS=3 BENCH_SEQUENTIAL=30 BENCH_IN_FLIGHT=16 BENCH_LATENCY_MS=100 node bench/serve.ts
 *
 * Prints figures; never asserts.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServeFlags, serveOptions } from '../app/cli/commands/serve/serve.ts';
import { parseProviders } from '../app/cli/provider-flags.ts';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import { callRecorder, documentTextOf, recordEvents } from '../app/runs/record.ts';
import { startRun } from '../app/runtime/engine.ts';
import { serve } from '../app/serve/index.ts';
import { newRunId, openRunStore } from '../app/store/index.ts';
import { type LocalRedis, REDIS_SERVER, startRedis } from '../tests/support/redis.ts';
import { doc } from './one-call.ts';
import { startParallelStub } from './parallel-stub.ts';
import { isMain, machineLine, ms, pad } from './support.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SECRET = 'bench-serve-queue-secret-0123456789';
const TOKEN = 'bench-serve-token-0123456789';

/** One set-up's figures. */
export interface ServeRow {
  label: string;
  requestsPerSecond?: number;
  p50?: number;
  p95?: number;
  skipped?: string;
}

export interface ServeBenchResult {
  latencyMs: number;
  requests: number;
  sequential: number;
  inFlight: number;
  rounds: number;
  rows: ServeRow[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** A way to run the society once (request `i`), and what to stop afterwards. */
interface SetUp {
  label: string;
  one: (i: number) => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Latency: `sequential` rounds, each sending one request to every set-up in turn, so a load
 * from elsewhere on the machine falls on all of them alike. Throughput: `rounds` rounds, each
 * sending `requests` requests with `inFlight` at once to every set-up in turn (the order
 * rotating); the median round counts.
 */
async function measure(
  setUps: readonly SetUp[],
  options: { sequential: number; requests: number; inFlight: number; rounds: number },
): Promise<ServeRow[]> {
  let n = 0;
  for (const setUp of setUps) for (let i = 0; i < 5; i++) await setUp.one(n++); // warm-up
  const latencies = setUps.map((): number[] => []);
  for (let round = 0; round < options.sequential; round++)
    for (const [k, setUp] of setUps.entries()) {
      const started = performance.now();
      await setUp.one(n++);
      latencies[k]!.push(performance.now() - started);
    }
  const rates = setUps.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++)
    for (let j = 0; j < setUps.length; j++) {
      const k = (j + round) % setUps.length;
      let sent = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: options.inFlight }, async () => {
          while (sent < options.requests) {
            sent++;
            await setUps[k]!.one(n++);
          }
        }),
      );
      rates[k]!.push(options.requests / ((performance.now() - started) / 1000));
    }
  return setUps.map((setUp, k) => ({
    label: setUp.label,
    requestsPerSecond: percentile(rates[k]!, 50),
    p50: percentile(latencies[k]!, 50),
    p95: percentile(latencies[k]!, 95),
  }));
}

/** Starts `society worker`; resolves once it takes jobs. */
function startWorker(url: string, concurrency: number, provider: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', SOCIETY_QUEUE_SECRET: SECRET };
  delete env.OPENAI_API_KEY;
  const child = spawn(
    process.execPath,
    [BIN, 'worker', '--queue', url, '--concurrency', String(concurrency), '--provider', provider],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stderr.includes('taking eval jobs')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr}`)));
  });
}

function stopWorker(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function benchServe(
  options: {
    requests?: number;
    sequential?: number;
    inFlight?: number;
    rounds?: number;
    latencyMs?: number;
  } = {},
): Promise<ServeBenchResult> {
  const requests = options.requests ?? Number(process.env.BENCH_REQUESTS ?? 100);
  const sequential = options.sequential ?? Number(process.env.BENCH_SEQUENTIAL ?? 30);
  const inFlight = options.inFlight ?? Number(process.env.BENCH_IN_FLIGHT ?? 16);
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3);
  const latencyMs = options.latencyMs ?? Number(process.env.BENCH_LATENCY_MS ?? 100);
  const shape = { sequential, requests, inFlight, rounds };
  const dir = mkdtempSync(join(tmpdir(), 'society-bench-serve-'));
  const file = join(dir, 'one.society.json');
  writeFileSync(file, JSON.stringify(doc));
  const stub = await startParallelStub(latencyMs);
  const provider = `openai=${stub.url}`;
  // This bench's server and workers share a secret and reach the stub with no key of yours.
  const saved = { key: process.env.OPENAI_API_KEY, secret: process.env.SOCIETY_QUEUE_SECRET };
  delete process.env.OPENAI_API_KEY;
  process.env.SOCIETY_QUEUE_SECRET = SECRET;
  const setUps: SetUp[] = [];
  const pool: ChildProcess[] = [];
  let redis: LocalRedis | undefined;
  try {
    setUps.push(await inProcess(dir, provider));
    const flags = (db: string, queue?: string): ServeFlags => ({
      port: '0',
      host: '127.0.0.1',
      token: TOKEN,
      auth: true,
      concurrency: String(inFlight),
      queueLimit: String(requests),
      maxBody: '65536',
      provider: [provider],
      allowHost: [],
      db: join(dir, db),
      ...(queue ? { queue } : {}),
    });
    setUps.push(await served('society serve, in process', file, flags('serve.db')));
    let skipped: string | undefined;
    if (REDIS_SERVER) {
      redis = await startRedis();
      // One Redis, a database each: the 1-worker and the 3-worker set-ups share no queue.
      const one = `${redis.url}/1`;
      const three = `${redis.url}/2`;
      pool.push(
        ...(await Promise.all(
          [one, three, three, three].map((url) => startWorker(url, inFlight, provider)),
        )),
      );
      setUps.push(await served('serve --queue, 1 worker', file, flags('queue-1.db', one)));
      setUps.push(await served('serve --queue, 3 workers', file, flags('queue-3.db', three)));
    } else skipped = 'redis-server is not installed';
    const rows = await measure(setUps, shape);
    if (skipped)
      rows.push(
        { label: 'serve --queue, 1 worker', skipped },
        { label: 'serve --queue, 3 workers', skipped },
      );
    return { latencyMs, requests, sequential, inFlight, rounds, rows };
  } finally {
    for (const setUp of setUps) await setUp.close();
    await Promise.all(pool.map(stopWorker));
    await redis?.stop();
    if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
    if (saved.secret !== undefined) process.env.SOCIETY_QUEUE_SECRET = saved.secret;
    else delete process.env.SOCIETY_QUEUE_SECRET;
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The baseline: the engine recording into a store, as `society run` does. */
async function inProcess(dir: string, provider: string): Promise<SetUp> {
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(JSON.stringify(doc), registry);
  if (!compiled.ok) throw new Error('the bench document does not compile');
  const store = openRunStore(join(dir, 'in-process.db'));
  const providerOverrides = parseProviders([provider]);
  return {
    label: 'society run, in process',
    one: async (i) => {
      const id = newRunId();
      const inputs = { question: `#${i}` };
      store.createRun({
        id,
        document: compiled.doc,
        documentText: documentTextOf(compiled),
        compilerVersion: compiled.machines.compilerVersion,
        mode: 'live',
        inputs,
      });
      const run = startRun(compiled, {
        experts: expertProviders,
        registry,
        runId: id,
        inputs,
        providerOverrides,
        redactor: store.redactor,
        onModelCall: callRecorder(store, id),
      });
      const finish = recordEvents(store, run, () => {});
      const result = await run.result;
      finish(result);
      if (result.status !== 'succeeded') throw new Error(`a run ${result.status}`);
    },
    close: async () => store.close(),
  };
}

/** `society serve` in this process, asked through its OpenAI-compatible endpoint. */
async function served(label: string, file: string, flags: ServeFlags): Promise<SetUp> {
  const { options, close } = await serveOptions([file], flags);
  const server = await serve(options);
  return {
    label,
    one: async (i) => {
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'one', messages: [{ role: 'user', content: `#${i}` }] }),
      });
      if (res.status !== 200) throw new Error(`${label}: the server answered ${res.status}`);
      await res.json();
    },
    close: async () => {
      await server.close();
      close();
    },
  };
}

export function formatServe(r: ServeBenchResult): string[] {
  const base = r.rows[0]!;
  const added = (value: number | undefined, over: number | undefined) =>
    value === undefined || over === undefined
      ? ''
      : `${value >= over ? '+' : '−'}${ms(Math.abs(value - over))}`;
  return [
    `Serving a one-call society: HTTP stub with ${r.latencyMs} ms latency; latency over ${r.sequential} requests one at a time, throughput over ${r.requests} with ${r.inFlight} in flight (median of ${r.rounds} rounds)`,
    `  ${pad('set-up', 28)}${pad('req/s', 9)}${pad('p50', 10)}${pad('p95', 10)}${pad('added p50', 12)}added p95`,
    ...r.rows.map((row) =>
      row.skipped
        ? `  ${pad(row.label, 28)}skipped (${row.skipped})`
        : `  ${pad(row.label, 28)}${pad(row.requestsPerSecond!.toFixed(1), 9)}${pad(ms(row.p50!), 10)}${pad(ms(row.p95!), 10)}${pad(row === base ? '' : added(row.p50, base.p50), 12)}${row === base ? '' : added(row.p95, base.p95)}`,
    ),
    `  (ideal req/s with ${r.inFlight} in flight: ${((r.inFlight * 1000) / r.latencyMs).toFixed(0)}; added = the set-up's percentile minus the in-process one's)`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatServe(await benchServe())) console.log(line);
}
