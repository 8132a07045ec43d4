/**
 * Parallel agents over real HTTP: one input → 50 independent agents → a vote, every call going
 * through the OpenAI-compatible provider to the local stub server (tests/support/stub-openai.ts)
 * with 100 ms of latency per request, under `settings.concurrency.default: 10`.
 *
 *   node bench/parallel-agents.ts
 *   BENCH_AGENTS=50 BENCH_LATENCY_MS=100 BENCH_CONCURRENCY=10 node bench/parallel-agents.ts
 *
 * The stub runs on a thread of its own, as a real server runs in a process of its own
 * (BENCH_STUB=inline puts it on the engine's event loop; see bench/parallel-stub.ts). Beside the
 * engine, the same requests are sent by a bare `fetch` loop at the same concurrency to the same
 * server: the floor that HTTP on this machine allows.
 *
 * Prints the wall time, the stub's peak concurrency and the ideal figures; never asserts.
 */

import { type CompiledGraph, compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry, type NodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import { epochNow, type StubPlacement, startParallelStub } from './parallel-stub.ts';
import { isMain, machineLine, median, ms } from './support.ts';

export interface ParallelAgentsOptions {
  agents?: number;
  latencyMs?: number;
  concurrency?: number;
  /** Runs in this process; the first is reported as cold, the median of the rest as warm. */
  runs?: number;
  /** Where the stub server runs (default: its own thread). */
  stub?: StubPlacement;
}

/** One run against a fresh stub. */
export interface ParallelRun {
  status: string;
  wallMs: number;
  /** startRun → first request reaching the stub. */
  firstRequestMs: number;
  /** When each wave of `concurrency` requests began reaching the stub, ms after startRun. */
  waveStartsMs: number[];
  requests: number;
  peakConcurrency: number;
  winner: unknown;
  calls: number;
}

export interface ParallelAgentsResult {
  agents: number;
  latencyMs: number;
  concurrency: number;
  idealMs: number;
  sequentialMs: number;
  /** The first run in the process (module JIT, first connections). */
  cold: ParallelRun;
  /** The run with the median wall time among the later ones (or the cold one if alone). */
  warm: ParallelRun;
  warmRuns: number;
  stub: StubPlacement;
  /** The same requests from a bare fetch loop at the same concurrency: median wall time. */
  floorMs: number;
}

/** input q → agent v0…vN-1 → vote (plurality) → output. */
export function votingDocument(agents: number, concurrency: number): Record<string, unknown> {
  const nodes: unknown[] = [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', modality: 'text' } },
    { id: 'vote', type: 'vote', position: { x: 600, y: 0 }, data: { rule: 'plurality' } },
    { id: 'winner', type: 'output', position: { x: 900, y: 0 }, data: { name: 'winner' } },
  ];
  const edges: unknown[] = [
    {
      id: 'vote-winner',
      source: 'vote',
      sourceHandle: 'winner',
      target: 'winner',
      targetHandle: 'value',
    },
  ];
  for (let i = 0; i < agents; i++) {
    nodes.push({
      id: `v${i}`,
      type: 'agent',
      position: { x: 300, y: i * 80 },
      data: {
        model: 'voter',
        role: `You are voter #${i}.`,
        prompt: `Voter #${i}: {{ q }} Answer A or B.`,
        maxTokens: 5,
      },
    });
    edges.push(
      { id: `q-v${i}`, source: 'q', sourceHandle: 'value', target: `v${i}`, targetHandle: 'q' },
      {
        id: `v${i}-vote`,
        source: `v${i}`,
        sourceHandle: 'text',
        target: 'vote',
        targetHandle: 'ballots',
      },
    );
  }
  return {
    version: 1,
    name: `${agents} parallel voters`,
    models: { voter: { provider: 'stub', model: 'stub-model', temperature: 0 } },
    settings: { concurrency: { default: concurrency }, seed: 1 },
    nodes,
    edges,
  };
}

async function runOnce(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  latencyMs: number,
  concurrency: number,
  placement: StubPlacement,
): Promise<ParallelRun> {
  const stub = await startParallelStub(latencyMs, placement);
  let report: Awaited<ReturnType<typeof stub.close>> | undefined;
  try {
    const t0 = epochNow();
    const run = startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { q: 'Should the society adopt plan A or plan B?' },
      providerOverrides: { stub: { kind: 'openai-compatible', baseUrl: stub.url } },
      env: {},
      retry: { attempts: 1 },
    });
    const result = await run.result;
    const wallMs = epochNow() - t0;
    report = await stub.close();
    const sorted = report.arrivals.map((t) => t - t0).sort((a, b) => a - b);
    return {
      status: result.error ? `${result.status}: ${result.error}` : result.status,
      wallMs,
      firstRequestMs: sorted[0] ?? Number.NaN,
      waveStartsMs: sorted.filter((_, i) => i % concurrency === 0),
      requests: report.requests,
      peakConcurrency: report.peakConcurrency,
      winner: result.outputs.winner,
      calls: result.usage.calls,
    };
  } finally {
    if (!report) await stub.close();
  }
}

/**
 * The floor: the agents' requests (the same bodies, as the engine sends them) from `concurrency`
 * bare fetch loops, each sending its next request once its last answer is read. No provider, no
 * engine: what is left is HTTP and the server.
 */
async function fetchFloor(
  agents: number,
  latencyMs: number,
  concurrency: number,
  placement: StubPlacement,
): Promise<number> {
  const stub = await startParallelStub(latencyMs, placement);
  try {
    let next = 0;
    const t0 = performance.now();
    const loop = async () => {
      while (next < agents) {
        const i = next++;
        const response = await fetch(`${stub.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer no-key-needed' },
          body: JSON.stringify({
            model: 'stub-model',
            messages: [
              { role: 'system', content: `You are voter #${i}.` },
              {
                role: 'user',
                content: `Voter #${i}: Should the society adopt plan A or plan B? Answer A or B.`,
              },
            ],
            temperature: 0,
            max_tokens: 5,
          }),
        });
        await response.json();
        // As the provider does: fetch frees the connection a turn later, and a request sent
        // sooner would open a new one (app/providers/openai.ts, connectionReleased).
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    return performance.now() - t0;
  } finally {
    await stub.close();
  }
}

export async function benchParallelAgents(
  options: ParallelAgentsOptions = {},
): Promise<ParallelAgentsResult> {
  const env = process.env;
  const agents = options.agents ?? Number(env.BENCH_AGENTS ?? 50);
  const latencyMs = options.latencyMs ?? Number(env.BENCH_LATENCY_MS ?? 100);
  const concurrency = options.concurrency ?? Number(env.BENCH_CONCURRENCY ?? 10);
  const runs = Math.max(1, options.runs ?? Number(env.BENCH_PARALLEL_RUNS ?? 8));
  const placement = options.stub ?? (env.BENCH_STUB === 'inline' ? 'inline' : 'thread');
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(votingDocument(agents, concurrency), registry);
  if (!compiled.ok) {
    const problems = compiled.problems.map((p) => JSON.stringify(p)).join('\n');
    throw new Error(`the benchmark graph does not compile:\n${problems}`);
  }
  const all: ParallelRun[] = [];
  const floors: number[] = [];
  // Engine and floor alternate, so both see the same machine; the first floor run warms fetch
  // up like the engine's cold run and is left out too.
  for (let i = 0; i < runs; i++) {
    all.push(await runOnce(compiled, registry, latencyMs, concurrency, placement));
    floors.push(await fetchFloor(agents, latencyMs, concurrency, placement));
  }
  const cold = all[0]!;
  const later = all.slice(1).sort((a, b) => a.wallMs - b.wallMs);
  const warm = later[Math.floor((later.length - 1) / 2)] ?? cold;
  return {
    agents,
    latencyMs,
    concurrency,
    idealMs: Math.ceil(agents / concurrency) * latencyMs,
    sequentialMs: agents * latencyMs,
    cold,
    warm,
    warmRuns: later.length,
    stub: placement,
    floorMs: median(floors.length > 1 ? floors.slice(1) : floors),
  };
}

export function formatParallelAgents(r: ParallelAgentsResult): string[] {
  const w = r.warm;
  const overhead = w.wallMs - r.idealMs;
  const period =
    w.waveStartsMs.length > 1
      ? (w.waveStartsMs.at(-1)! - w.waveStartsMs[0]!) / (w.waveStartsMs.length - 1)
      : Number.NaN;
  const waves = Math.ceil(r.agents / r.concurrency);
  return [
    `Parallel agents: 1 input → ${r.agents} agents → vote; OpenAI-compatible provider → HTTP stub ` +
      `(${r.stub === 'thread' ? 'on its own thread' : "on the engine's event loop"}), ${r.latencyMs} ms latency; concurrency ${r.concurrency}`,
    `  status ${w.status}; winner ${JSON.stringify(w.winner)}; ${w.calls} model calls, ${w.requests} HTTP requests`,
    `  wall time ${ms(w.wallMs)} (median of ${r.warmRuns} warm runs; the first run in the process took ${ms(r.cold.wallMs)})`,
    `  ideal ${waves} × ${r.latencyMs} ms = ${ms(r.idealMs, 0)} with concurrency ${r.concurrency}; ` +
      `sequential ${r.agents} × ${r.latencyMs} ms = ${ms(r.sequentialMs, 0)}`,
    `  over ideal ${ms(overhead)} (+${((overhead / r.idealMs) * 100).toFixed(0)}%); ` +
      `${(r.sequentialMs / w.wallMs).toFixed(1)}× faster than sequential`,
    `  floor: the same requests from bare fetch loops at the same concurrency ${ms(r.floorMs)} ` +
      `(+${(((r.floorMs - r.idealMs) / r.idealMs) * 100).toFixed(0)}%); the engine ${ms(w.wallMs - r.floorMs)} above it`,
    `  stub peak concurrency ${w.peakConcurrency} (limit ${r.concurrency}; cold run ${r.cold.peakConcurrency})`,
    `  first request reached the stub ${ms(w.firstRequestMs)} after startRun; waves began at ` +
      `${w.waveStartsMs.map((t) => t.toFixed(0)).join(', ')} ms (period ${period.toFixed(0)} ms, of which ${r.latencyMs} ms latency)`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatParallelAgents(await benchParallelAgents())) console.log(line);
}
