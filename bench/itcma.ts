/**
 * The ITCMA-S sandbox at full length: templates/itcma-irollan-valley (6 agents, 75 steps, 975
 * model calls) run in this process with the simulated provider, which answers at once, so what
 * is measured is the engine and the sandbox's own nodes: the text world, the filter, the gate,
 * the matrix and the PAD state, their events and templates. Also timed: compiling the document
 * and estimating it (`society run --estimate`).
 *
 *   node bench/itcma.ts
 *   BENCH_ITCMA_STEPS=75 BENCH_ITCMA_RUNS=3 node bench/itcma.ts
 *
 * One cold run, then BENCH_ITCMA_RUNS (default 3) warm ones, reported as their median; then the
 * same run as a user starts it, `society run … --simulate` in a child process writing its run
 * store to a temporary directory (start-up, the store and printing included). Prints the
 * figures; never asserts.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileGraph } from '../app/compiler/index.ts';
import { estimateRun } from '../app/costs/estimate.ts';
import { DEFAULT_PRICES } from '../app/costs/prices.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import { isMain, machineLine, median, ms } from './support.ts';

export interface ItcmaOptions {
  steps?: number;
  runs?: number;
}

interface ItcmaRun {
  status: string;
  wallMs: number;
  calls: number;
  events: number;
  chats: number;
}

export interface ItcmaResult {
  steps: number;
  compileMs: number;
  estimateMs: number;
  estimatedCalls: number;
  cold: ItcmaRun;
  warm: ItcmaRun;
  warmRuns: number;
  peakHeapUsed: number;
  /** `society run --simulate` in a child process, store included. */
  cliMs: number;
}

const TEMPLATE = new URL('../templates/itcma-irollan-valley.society.json', import.meta.url);

export async function benchItcma(options: ItcmaOptions = {}): Promise<ItcmaResult> {
  const steps = options.steps ?? Number(process.env.BENCH_ITCMA_STEPS ?? 75);
  const runs = options.runs ?? Number(process.env.BENCH_ITCMA_RUNS ?? 3);
  const doc = JSON.parse(readFileSync(TEMPLATE, 'utf8')) as {
    params?: Record<string, { default?: unknown }>;
  };
  if (doc.params?.steps) doc.params.steps.default = steps;
  const registry = await loadNodeRegistry();

  let started = performance.now();
  const compiled = await compileGraph(doc, registry);
  const compileMs = performance.now() - started;
  if (!compiled.ok)
    throw new Error(`the template does not compile: ${compiled.problems[0]?.message}`);
  started = performance.now();
  const estimate = estimateRun(compiled.plan, DEFAULT_PRICES, { inputs: {} });
  const estimateMs = performance.now() - started;

  let peakHeapUsed = 0;
  const once = async (): Promise<ItcmaRun> => {
    const begin = performance.now();
    const run = await startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: {},
      simulate: true,
    });
    const result = await run.result;
    const wallMs = performance.now() - begin;
    peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed);
    return {
      status: result.status,
      wallMs,
      calls: result.usage.calls,
      events: run.events.length,
      chats: run.events.filter((e) => e.type === 'report' && e.kind === 'interaction').length,
    };
  };
  const cold = await once();
  const warmRuns: ItcmaRun[] = [];
  for (let i = 0; i < runs; i++) warmRuns.push(await once());
  const wall = median(warmRuns.map((r) => r.wallMs));
  const warm = warmRuns.find((r) => r.wallMs === wall) ?? warmRuns[0]!;
  const cliMs = await cliRun(steps);
  return {
    steps,
    compileMs,
    estimateMs,
    estimatedCalls: estimate.calls,
    cold,
    warm,
    warmRuns: runs,
    peakHeapUsed,
    cliMs,
  };
}

/** Wall time of `society run TEMPLATE --simulate --set steps=N` with a store of its own. */
async function cliRun(steps: number): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'society-bench-itcma-'));
  const bin = fileURLToPath(new URL('../bin/society.js', import.meta.url));
  const started = performance.now();
  try {
    await promisify(execFile)(
      process.execPath,
      // As a user starts it: the command starts node again with the young generation capped.
      [bin, 'run', fileURLToPath(TEMPLATE), '--simulate', '--set', `steps=${steps}`, '--json'],
      { env: { ...process.env, SOCIETY_DB: join(home, 'runs.db') }, maxBuffer: 64 * 2 ** 20 },
    );
    return performance.now() - started;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export function formatItcma(r: ItcmaResult): string[] {
  return [
    `ITCMA-S Irollan Valley, ${r.steps} steps, simulated answers in process (${r.warmRuns} warm runs, median)`,
    `  compile ${ms(r.compileMs)} · estimate ${ms(r.estimateMs)} (${r.estimatedCalls} calls)`,
    `  cold run ${ms(r.cold.wallMs, 0)} · warm run ${ms(r.warm.wallMs, 0)}: ${r.warm.calls} calls, ${ms(r.warm.wallMs / r.warm.calls, 2)} a call, ${r.warm.events} events, ${r.warm.chats} chats (${r.warm.status})`,
    `  peak heap ${(r.peakHeapUsed / 2 ** 20).toFixed(0)} MiB`,
    `  society run --simulate (child process, run store written): ${ms(r.cliMs, 0)}`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatItcma(await benchItcma())) console.log(line);
}
