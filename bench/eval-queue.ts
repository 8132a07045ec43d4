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
 * Prints items per second for both and their ratio beside its aim, and what each process used
 * while the eval ran: CPU (user + system, and as a share of the wall time), the longest
 * event-loop stall, and Redis's commands and bytes per job. On a machine with few cores the
 * ratio is bounded by CPU: the queued eval's processes together cannot finish before their CPU
 * time divided by the cores, which the last line turns into the ratio the CPU allows.
 * Never asserts.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRunStore } from '../app/store/index.ts';
import { REDIS_SERVER, startRedis } from '../tests/support/redis.ts';
import { doc } from './one-call.ts';
import { startParallelStub } from './parallel-stub.ts';
import { type ProbeReport, readProbe } from './process-probe.ts';
import { isMain, machineLine, productNodeEnv } from './support.ts';

const BIN = fileURLToPath(new URL('../bin/society.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROBE = fileURLToPath(new URL('./process-probe.ts', import.meta.url));

/** The ratio `npm run bench` aims for (issue 31); 3× is the ideal with 3 workers. */
export const EVAL_QUEUE_AIM = 2.6;

/** What one process used while the eval ran. */
export interface ProcessUse {
  name: string;
  cpuMs: number;
  wallMs: number;
  /** The longest event-loop stall, and the share of the time the loop was busy; not for Redis. */
  loopMaxMs?: number;
  loopBusy?: number;
}

export interface EvalQueueResult {
  items: number;
  latencyMs: number;
  concurrency: number;
  workers: number;
  /** Why the queued half did not run, when it did not. */
  skipped?: string;
  cores: number;
  local: { wallMs: number; evalMs: number; itemsPerSecond: number; use: ProcessUse[] };
  queued?: {
    wallMs: number;
    /** From the eval's record opening to its end: the command's start-up and exit left out. */
    evalMs: number;
    itemsPerSecond: number;
    byWorker: string;
    /** The coordinator, each worker, Redis, and this process (the stub's thread). */
    use: ProcessUse[];
    /** Redis commands per job, by command (most first), and bytes in and out per job. */
    redisCommandsPerJob: number;
    redisTopCommands: string;
    redisBytesPerJob: number;
  };
}

function env(): NodeJS.ProcessEnv {
  // The coordinator and the workers share a queue secret (docs/workers.md).
  const vars: NodeJS.ProcessEnv = {
    // Node's compile cache on, as the command turns it on for itself: the probe, loaded before
    // the command, comes from it too, instead of having its types stripped at every start.
    ...productNodeEnv(),
    NO_COLOR: '1',
    SOCIETY_QUEUE_SECRET: 'bench-eval-queue-secret-0123456789',
  };
  delete vars.OPENAI_API_KEY;
  return vars;
}

/** `society args…` with the probe loaded, reporting to `probe`. */
function society(args: string[], probe: string, stdio?: ('ignore' | 'pipe')[]): ChildProcess {
  return spawn(process.execPath, ['--import', PROBE, BIN, ...args], {
    cwd: ROOT,
    env: { ...env(), SOCIETY_BENCH_PROBE: probe },
    ...(stdio ? { stdio } : {}),
  });
}

/** Runs `society args…` to its end; resolves to its wall time and output. */
function timed(
  args: string[],
  probe: string,
): Promise<{ wallMs: number; stdout: string; stderr: string }> {
  const started = performance.now();
  const child = society(args, probe);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
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
function worker(
  url: string,
  concurrency: number,
  provider: string,
  probe: string,
): Promise<ChildProcess> {
  const child = society(
    // The eval's --provider reaches a worker as a name: the worker has the profile itself.
    ['worker', '--queue', url, '--concurrency', String(concurrency), '--provider', provider],
    probe,
    ['ignore', 'ignore', 'pipe'],
  );
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (d) => {
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
  const probe = (name: string) => join(dir, `${name}.probe`);
  /** This process's CPU (the stub's thread included) over `wallMs`, since `from`. */
  const own = (from: NodeJS.CpuUsage, wallMs: number): ProcessUse => {
    const used = process.cpuUsage(from);
    return { name: 'bench + stub', cpuMs: (used.user + used.system) / 1000, wallMs };
  };
  try {
    let cpu = process.cpuUsage();
    const local = await timed(args('local.db'), probe('local'));
    const result: EvalQueueResult = {
      items,
      latencyMs,
      concurrency,
      workers,
      cores: availableParallelism(),
      local: {
        wallMs: local.wallMs,
        evalMs: evalMs(join(dir, 'local.db')),
        itemsPerSecond: perSecond(local.wallMs),
        use: [used('one process', probe('local'), 0), own(cpu, local.wallMs)],
      },
    };
    if (!REDIS_SERVER) return { ...result, skipped: 'redis-server is not installed' };
    const redis = await startRedis();
    const { Redis } = await import('ioredis');
    const stats = new Redis(redis.url);
    try {
      pool.push(
        ...(await Promise.all(
          Array.from({ length: workers }, (_, i) =>
            worker(redis.url, concurrency, `openai=${stub.url}`, probe(`worker-${i}`)),
          ),
        )),
      );
      // Counted from here: the workers' start-up is not the eval's.
      await Promise.all(pool.map((child, i) => snapshot(child, probe(`worker-${i}`), 1)));
      const redisCpuBefore = redisCpuMs(await stats.info('cpu'));
      await stats.config('RESETSTAT');
      cpu = process.cpuUsage();
      const queued = await timed([...args('queued.db'), '--queue', redis.url], probe('queued'));
      const ownUse = own(cpu, queued.wallMs);
      await Promise.all(pool.map((child, i) => snapshot(child, probe(`worker-${i}`), 2)));
      const commands = commandStats(await stats.info('commandstats'));
      const net = await stats.info('stats');
      const bytes = ['total_net_input_bytes', 'total_net_output_bytes']
        .map((field) => Number(new RegExp(`${field}:(\\d+)`).exec(net)?.[1] ?? 0))
        .reduce((a, b) => a + b, 0);
      const total = Object.values(commands).reduce((a, b) => a + b, 0);
      const byWorker = /came back from (.*)/.exec(queued.stderr)?.[1] ?? '';
      result.queued = {
        wallMs: queued.wallMs,
        evalMs: evalMs(join(dir, 'queued.db')),
        itemsPerSecond: perSecond(queued.wallMs),
        byWorker,
        use: [
          used('coordinator', probe('queued'), 0),
          ...pool.map((_, i) => used(`worker ${i + 1}`, probe(`worker-${i}`), 1)),
          {
            name: 'redis-server',
            cpuMs: redisCpuMs(await stats.info('cpu')) - redisCpuBefore,
            wallMs: queued.wallMs,
          },
          ownUse,
        ],
        redisCommandsPerJob: total / items,
        redisTopCommands: Object.entries(commands)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6)
          .map(([name, calls]) => `${name} ${(calls / items).toFixed(1)}`)
          .join(', '),
        redisBytesPerJob: bytes / items,
      };
    } finally {
      stats.disconnect();
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

/** How long the eval in the store `file` took, from its record's opening to its end. */
function evalMs(file: string): number {
  const store = openRunStore(file);
  try {
    const record = store.listEvals(1)[0];
    return record?.finishedAt ? record.finishedAt - record.createdAt : Number.NaN;
  } finally {
    store.close();
  }
}

/** Asks a worker for its probe report and waits until the file holds `lines` of them. */
async function snapshot(child: ChildProcess, file: string, lines: number): Promise<void> {
  child.kill('SIGUSR2');
  for (let i = 0; i < 200 && readProbe(file).length < lines; i++)
    await new Promise((r) => setTimeout(r, 25));
}

/** Report `index` of a probe file as one process's use. */
function used(name: string, file: string, index: number): ProcessUse {
  const report: ProbeReport | undefined = readProbe(file)[index];
  if (!report) return { name, cpuMs: Number.NaN, wallMs: Number.NaN };
  return {
    name,
    cpuMs: report.userMs + report.systemMs,
    wallMs: report.wallMs,
    loopMaxMs: report.loopMaxMs,
    loopBusy: report.loopBusy,
  };
}

/** Redis's own CPU (user + system, its threads together) from `INFO cpu`, in ms. */
function redisCpuMs(info: string): number {
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

/** Calls by command from `INFO commandstats`. */
function commandStats(info: string): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
    calls[match[1]!] = Number(match[2]);
  return calls;
}

/** One process's CPU as a line: ms used and the share of the wall time it is. */
function useLine(use: ProcessUse): string {
  const share = (use.cpuMs / use.wallMs) * 100;
  const loop =
    use.loopMaxMs !== undefined
      ? ` · event loop busy ${((use.loopBusy ?? 0) * 100).toFixed(0)} %, longest stall ${use.loopMaxMs.toFixed(0)} ms`
      : '';
  return `    ${use.name.padEnd(14)} CPU ${use.cpuMs.toFixed(0).padStart(6)} ms · ${share.toFixed(0).padStart(3)} % of ${(use.wallMs / 1000).toFixed(1)} s${loop}`;
}

export function formatEvalQueue(r: EvalQueueResult): string[] {
  const lines = [
    `Eval over a queue: ${r.items} one-call items, HTTP stub with ${r.latencyMs} ms latency, ${r.concurrency} runs at once per process, ${r.cores} cores`,
    `  one process        ${(r.local.wallMs / 1000).toFixed(1)} s · ${r.local.itemsPerSecond.toFixed(1)} items/s (ideal ${((r.concurrency * 1000) / r.latencyMs).toFixed(0)})`,
    ...r.local.use.map(useLine),
  ];
  if (!r.queued) return [...lines, `  queued: skipped (${r.skipped})`];
  const q = r.queued;
  const ratio = q.itemsPerSecond / r.local.itemsPerSecond;
  // The queued eval's processes share the cores: it cannot end before their CPU time is spent.
  const cpuMs = q.use.reduce((sum, use) => sum + (Number.isFinite(use.cpuMs) ? use.cpuMs : 0), 0);
  const floorMs = cpuMs / r.cores;
  // What the commands spend outside the eval itself (start-up, connecting, exit) is paid once
  // by each; with it, even runs that cost nothing but the stub's latency give this ratio.
  const fixedLocal = r.local.wallMs - r.local.evalMs;
  const fixedQueued = q.wallMs - q.evalMs;
  const idealMs = (r.items * r.latencyMs) / r.concurrency;
  const withFixed = (fixedLocal + idealMs) / (fixedQueued + idealMs / r.workers);
  const s = (value: number) => `${(value / 1000).toFixed(1)} s`;
  const perJob = (uses: ProcessUse[]) =>
    `${(uses.reduce((sum, use) => sum + use.cpuMs, 0) / r.items).toFixed(1)} ms`;
  return [
    ...lines,
    `  coordinator + ${r.workers} workers  ${s(q.wallMs)} · ${q.itemsPerSecond.toFixed(1)} items/s (ideal ${((r.workers * r.concurrency * 1000) / r.latencyMs).toFixed(0)}) · ${ratio.toFixed(2)}× one process (aim ≥ ${EVAL_QUEUE_AIM}×, ideal ${r.workers}×)`,
    ...q.use.map(useLine),
    `    CPU per job: workers ${perJob(q.use.filter((u) => u.name.startsWith('worker')))} (their runs included), coordinator ${perJob(q.use.filter((u) => u.name === 'coordinator'))} (its start-up included); one process ${perJob(r.local.use.filter((u) => u.name === 'one process'))} (start-up included)`,
    `    per job: ${q.redisCommandsPerJob.toFixed(1)} Redis commands, those BullMQ's scripts run inside Redis included (${q.redisTopCommands}) · ${(q.redisBytesPerJob / 1024).toFixed(1)} KiB in and out of Redis`,
    `  the eval alone (start-up and exit left out): one process ${s(r.local.evalMs)}, queued ${s(q.evalMs)} · ${(r.local.evalMs / q.evalMs).toFixed(2)}× (ideal ${r.workers}×)`,
    `  start-up and exit: one process ${s(fixedLocal)}, queued ${s(fixedQueued)}; with them, runs costing only the stub's latency would give ${withFixed.toFixed(2)}×`,
    `  on ${r.cores} cores the queued processes' CPU (${s(cpuMs)}) takes ≥ ${s(floorMs)}: the CPU allows ≤ ${(r.local.wallMs / floorMs).toFixed(2)}× against this one-process run`,
    `  runs per worker: ${q.byWorker}`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatEvalQueue(await benchEvalQueue())) console.log(line);
}
