/**
 * Parallel agents over real HTTP: one input → 50 independent agents → a vote, every call going
 * through the OpenAI-compatible provider to the local stub server (tests/support/stub-openai.ts)
 * with 100 ms of latency per request, under `settings.concurrency.default: 10`.
 *
 *   node bench/parallel-agents.ts
 *   BENCH_AGENTS=50 BENCH_LATENCY_MS=100 BENCH_CONCURRENCY=10 node bench/parallel-agents.ts
 *
 * Prints the wall time, the stub's peak concurrency and the ideal figures; never asserts.
 */
import { type CompiledGraph, compileGraph } from '../app/compiler/index.ts';
import { loadNodeRegistry, type NodeRegistry } from '../app/nodes/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import { type StubRequestBody, startStubOpenAI } from '../tests/support/stub-openai.ts';
import { isMain, machineLine, ms } from './support.ts';

export interface ParallelAgentsOptions {
  agents?: number;
  latencyMs?: number;
  concurrency?: number;
  /** Runs in this process; the first is reported as cold, the median of the rest as warm. */
  runs?: number;
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

/** Voter #i answers A when i % 5 < 3, else B: a 60/40 plurality for A. */
function respond(body: StubRequestBody) {
  const messages: Array<{ role?: string; content?: unknown }> = body?.messages ?? [];
  const user = messages.findLast((m) => m.role === 'user');
  const match = /#(\d+)/.exec(typeof user?.content === 'string' ? user.content : '');
  const i = match ? Number(match[1]) : 0;
  return { text: i % 5 < 3 ? 'A' : 'B', usage: { prompt_tokens: 12, completion_tokens: 1 } };
}

async function runOnce(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  latencyMs: number,
  concurrency: number,
): Promise<ParallelRun> {
  // The responder runs once the latency has passed: the request arrived `latencyMs` earlier.
  const arrivals: number[] = [];
  let t0 = 0;
  const stub = await startStubOpenAI({
    latencyMs,
    respond: (body) => {
      arrivals.push(performance.now() - latencyMs - t0);
      return respond(body);
    },
  });
  try {
    t0 = performance.now();
    const run = startRun(compiled, {
      registry,
      inputs: { q: 'Should the society adopt plan A or plan B?' },
      providerOverrides: { stub: { kind: 'openai-compatible', baseUrl: stub.url } },
      env: {},
      retry: { attempts: 1 },
    });
    const result = await run.result;
    const wallMs = performance.now() - t0;
    const sorted = [...arrivals].sort((a, b) => a - b);
    return {
      status: result.error ? `${result.status}: ${result.error}` : result.status,
      wallMs,
      firstRequestMs: sorted[0] ?? Number.NaN,
      waveStartsMs: sorted.filter((_, i) => i % concurrency === 0),
      requests: stub.count(),
      peakConcurrency: stub.peakConcurrency(),
      winner: result.outputs.winner,
      calls: result.usage.calls,
    };
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
  const runs = Math.max(1, options.runs ?? Number(env.BENCH_PARALLEL_RUNS ?? 4));
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(votingDocument(agents, concurrency), registry);
  if (!compiled.ok) {
    const problems = compiled.problems.map((p) => JSON.stringify(p)).join('\n');
    throw new Error(`the benchmark graph does not compile:\n${problems}`);
  }
  const all: ParallelRun[] = [];
  for (let i = 0; i < runs; i++)
    all.push(await runOnce(compiled, registry, latencyMs, concurrency));
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
    `Parallel agents: 1 input → ${r.agents} agents → vote; OpenAI-compatible provider → HTTP stub, ${r.latencyMs} ms latency; concurrency ${r.concurrency}`,
    `  status ${w.status}; winner ${JSON.stringify(w.winner)}; ${w.calls} model calls, ${w.requests} HTTP requests`,
    `  wall time ${ms(w.wallMs)} (median of ${r.warmRuns} warm runs; the first run in the process took ${ms(r.cold.wallMs)})`,
    `  ideal ${waves} × ${r.latencyMs} ms = ${ms(r.idealMs, 0)} with concurrency ${r.concurrency}; ` +
      `sequential ${r.agents} × ${r.latencyMs} ms = ${ms(r.sequentialMs, 0)}`,
    `  over ideal ${ms(overhead)} (+${((overhead / r.idealMs) * 100).toFixed(0)}%); ` +
      `${(r.sequentialMs / w.wallMs).toFixed(1)}× faster than sequential`,
    `  stub peak concurrency ${w.peakConcurrency} (limit ${r.concurrency}; cold run ${r.cold.peakConcurrency})`,
    `  first request reached the stub ${ms(w.firstRequestMs)} after startRun; waves began at ` +
      `${w.waveStartsMs.map((t) => t.toFixed(0)).join(', ')} ms (period ${period.toFixed(0)} ms, of which ${r.latencyMs} ms latency)`,
  ];
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  for (const line of formatParallelAgents(await benchParallelAgents())) console.log(line);
}
