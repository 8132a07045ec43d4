/**
 * The engine's CPU for one Artist–Critic run (templates/nlsom-artist-critic at R rounds), with
 * no network: the run with simulated answers in this process (the engine, its nodes and the
 * simulated provider), and the run's scheduling alone (its compiled machines — the graph, the 26
 * artist copies, each mindstorm and each stage of every round — with every task answered at
 * once). On one thread, CPU per answer is what holds a looped society's later turns back when
 * many copies talk at once (bench/artist-critic.ts measures that over HTTP); CPU time is read
 * with process.cpuUsage, steadier than wall time on a loaded machine.
 *
 *   node bench/artist-critic-cpu.ts
 *   BENCH_ROUNDS=3 BENCH_CPU_RUNS=20 node bench/artist-critic-cpu.ts
 *
 * Prints medians over warm runs; never asserts.
 */

import { loadavg } from 'node:os';
import { createActor } from 'xstate';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import { buildRunMachine, type EngineHooks } from '../app/runtime/machine-runtime.ts';
import { artistCriticDocument } from './artist-critic.ts';
import { isMain, machineLine, median, ms } from './support.ts';

export interface ArtistCriticCpu {
  rounds: number;
  runs: number;
  events: number;
  /** CPU of one run with simulated answers, median and lowest. */
  runMs: number;
  runMinMs: number;
  tasks: number;
  /** CPU of the run's scheduling alone, median. */
  scheduleMs: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export async function benchArtistCriticCpu(
  options: { rounds?: number; runs?: number } = {},
): Promise<ArtistCriticCpu> {
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 3);
  const runs = options.runs ?? Number(process.env.BENCH_CPU_RUNS ?? 20);
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(artistCriticDocument(rounds, 64), registry);
  if (!compiled.ok)
    throw new Error(`the template does not compile: ${compiled.problems[0]?.message}`);

  // Warm runs only: the first few compile the code paths.
  const warmup = 3;
  const runCpu: number[] = [];
  let events = 0;
  for (let i = 0; i < warmup + runs; i++) {
    const since = process.cpuUsage();
    const run = await startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { object: 'a lighthouse' },
      simulate: true,
    });
    const result = await run.result;
    const used = cpuMs(since);
    if (result.status !== 'succeeded') throw new Error(`the run ${result.status}: ${result.error}`);
    events = run.events.length;
    if (i >= warmup) runCpu.push(used);
  }

  let tasks = 0;
  const hooks: EngineHooks = {
    startTask(node, _context, replica, report) {
      tasks++;
      const output = { outputs: { text: 'answer' }, instance: node };
      void Promise.resolve().then(() =>
        report({ type: 'task.done', node, output, ...(replica === undefined ? {} : { replica }) }),
      );
    },
    loopBegin() {},
    loopEnd: () => undefined,
    step: async () => ({ values: {} }),
    loopOutputs: () => ({ text: 'outcome' }),
    fail(_node, error) {
      throw error;
    },
  };
  const schedule = () =>
    new Promise<void>((resolve, reject) => {
      const actor = createActor(buildRunMachine(compiled, hooks), {
        input: { path: '', bindings: {}, values: {}, replicas: {}, started: {}, loops: {} },
      });
      actor.subscribe({ complete: () => resolve(), error: reject });
      actor.start();
    });
  const scheduleCpu: number[] = [];
  const scheduleRuns = runs * 10;
  for (let i = 0; i < warmup * 10 + scheduleRuns; i++) {
    tasks = 0;
    const since = process.cpuUsage();
    await schedule();
    if (i >= warmup * 10) scheduleCpu.push(cpuMs(since));
  }
  return {
    rounds,
    runs,
    events,
    runMs: median(runCpu),
    runMinMs: Math.min(...runCpu),
    tasks,
    scheduleMs: median(scheduleCpu),
  };
}

export function formatArtistCriticCpu(r: ArtistCriticCpu): string[] {
  return [
    `Artist–Critic R=${r.rounds}, the engine's CPU per run in process, no network (median of ${r.runs} warm runs; load average ${loadavg()[0]!.toFixed(1)})`,
    `  with simulated answers: ${ms(r.runMs)} a run (lowest ${ms(r.runMinMs)}), ${r.events} events`,
    `  its scheduling alone (${r.tasks} tasks answered at once): ${ms(r.scheduleMs, 2)} a run`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatArtistCriticCpu(await benchArtistCriticCpu())) console.log(line);
}
