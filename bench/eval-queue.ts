/**
 * An eval in one process against the same eval on a queue: 200 one-call items against the local
 * OpenAI-compatible stub (its own thread, 100 ms per answer), run by `society eval --concurrency
 * 4` alone, then by `society eval --queue` with 3 `society worker --concurrency 4` processes on
 * this machine (started beforehand, as workers are). Both are timed from the command's start to
 * its exit, start-up included. Needs Debian's redis-server (skipped with a message otherwise).
 *
 *   node bench/eval-queue.ts
 *   BENCH_ITEMS=200 BENCH_LATENCY_MS=100 BENCH_CONCURRENCY=4 BENCH_WORKERS=3 node bench/eval-queue.ts
 *
 * Prints items per second for both and their ratio; never asserts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REDIS_SERVER, startRedis } from '../tests/support/redis.ts';
import { startParallelStub } from './parallel-stub.ts';
import { isMain, machineLine } from './support.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface EvalQueueResult {
  items: number;
  latencyMs: number;
  concurrency: number;
  workers: number;
  /** Why the queued half did not run, when it did not. */
  skipped?: string;
  local: { wallMs: number; itemsPerSecond: number };
  queued?: { wallMs: number; itemsPerSecond: number; byWorker: string };
}

const doc = {
  version: 1,
  name: 'one call',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini', maxTokens: 5 } },
  nodes: [
    { id: 'question', type: 'input', position: { x: 0, y: 0 }, data: { name: 'question' } },
    {
      id: 'a',
      type: 'agent',
      position: { x: 200, y: 0 },
      data: { model: 'm', prompt: 'Q {{ question }}' },
    },
    { id: 'answer', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'question', sourceHandle: 'value', target: 'a', targetHandle: 'question' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'answer', targetHandle: 'value' },
  ],
};

function env(): NodeJS.ProcessEnv {
  // The coordinator and the workers share a queue secret (docs/workers.md).
  const vars: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    SOCIETY_QUEUE_SECRET: 'bench-eval-queue-secret-0123456789',
  };
  delete vars.OPENAI_API_KEY;
  return vars;
}

/** Runs `society args…` to its end; resolves to its wall time and output. */
function timed(args: string[]): Promise<{ wallMs: number; stdout: string; stderr: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve({ wallMs: performance.now() - started, stdout, stderr })
        : reject(
            new Error(`society ${args[0]} exited ${code}: ${stderr.trim().split('\n').at(-1)}`),
          ),
    ),
  );
}

/** Starts a worker; resolves once it takes jobs. */
function worker(url: string, concurrency: number, provider: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    // The eval's --provider reaches a worker as a name: the worker has the profile itself.
    [BIN, 'worker', '--queue', url, '--concurrency', String(concurrency), '--provider', provider],
    { cwd: ROOT, env: env(), stdio: ['ignore', 'ignore', 'pipe'] },
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

export async function benchEvalQueue(
  options: { items?: number; latencyMs?: number; concurrency?: number; workers?: number } = {},
): Promise<EvalQueueResult> {
  const items = options.items ?? Number(process.env.BENCH_ITEMS ?? 200);
  const latencyMs = options.latencyMs ?? Number(process.env.BENCH_LATENCY_MS ?? 100);
  const concurrency = options.concurrency ?? Number(process.env.BENCH_CONCURRENCY ?? 4);
  const workers = options.workers ?? Number(process.env.BENCH_WORKERS ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'society-bench-queue-'));
  const stub = await startParallelStub(latencyMs);
  const file = join(dir, 'one-call.society.json');
  const data = join(dir, 'items.jsonl');
  writeFileSync(file, JSON.stringify(doc));
  writeFileSync(
    data,
    `${Array.from({ length: items }, (_, i) => JSON.stringify({ question: `#${i}`, answer: 'A' })).join('\n')}\n`,
  );
  const args = (db: string) => [
    'eval',
    file,
    '--data',
    data,
    '--map',
    'question=question',
    '--expect',
    'answer',
    '--variant',
    `default=--provider openai=${stub.url}`,
    '--concurrency',
    String(concurrency),
    '--db',
    join(dir, db),
    '--json',
    '--quiet',
  ];
  const perSecond = (wallMs: number) => items / (wallMs / 1000);
  const pool: ChildProcess[] = [];
  try {
    const local = await timed(args('local.db'));
    const result: EvalQueueResult = {
      items,
      latencyMs,
      concurrency,
      workers,
      local: { wallMs: local.wallMs, itemsPerSecond: perSecond(local.wallMs) },
    };
    if (!REDIS_SERVER) return { ...result, skipped: 'redis-server is not installed' };
    const redis = await startRedis();
    try {
      pool.push(
        ...(await Promise.all(
          Array.from({ length: workers }, () =>
            worker(redis.url, concurrency, `openai=${stub.url}`),
          ),
        )),
      );
      const queued = await timed([...args('queued.db'), '--queue', redis.url]);
      const byWorker = /came back from (.*)/.exec(queued.stderr)?.[1] ?? '';
      result.queued = { wallMs: queued.wallMs, itemsPerSecond: perSecond(queued.wallMs), byWorker };
    } finally {
      await Promise.all(
        pool.map(
          (child) =>
            new Promise<void>((resolve) => {
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      await redis.stop();
    }
    return result;
  } finally {
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatEvalQueue(r: EvalQueueResult): string[] {
  const lines = [
    `Eval over a queue: ${r.items} one-call items, HTTP stub with ${r.latencyMs} ms latency, ${r.concurrency} runs at once per process`,
    `  one process        ${(r.local.wallMs / 1000).toFixed(1)} s · ${r.local.itemsPerSecond.toFixed(1)} items/s (ideal ${((r.concurrency * 1000) / r.latencyMs).toFixed(0)})`,
  ];
  if (!r.queued) return [...lines, `  queued: skipped (${r.skipped})`];
  return [
    ...lines,
    `  coordinator + ${r.workers} workers  ${(r.queued.wallMs / 1000).toFixed(1)} s · ${r.queued.itemsPerSecond.toFixed(1)} items/s (ideal ${((r.workers * r.concurrency * 1000) / r.latencyMs).toFixed(0)}) · ${(r.queued.itemsPerSecond / r.local.itemsPerSecond).toFixed(2)}× one process`,
    `  runs per worker: ${r.queued.byWorker}`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatEvalQueue(await benchEvalQueue())) console.log(line);
}
