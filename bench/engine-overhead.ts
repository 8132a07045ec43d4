/**
 * Engine overhead: one input → N agents → one gathering node, every model call answered
 * in-process with zero latency (a ChatProvider passed through `providerFor`; not the simulated
 * provider, not HTTP), so what is measured is the engine itself: compile, machine, scheduling,
 * events, templating. The same shape is built with @langchain/langgraph and run side by side.
 *
 *   node bench/engine-overhead.ts
 *   BENCH_PROBES=100,200 BENCH_NODES=1000 BENCH_REPS=5 node bench/engine-overhead.ts
 *
 * Every size — the probe sizes (BENCH_PROBES, default 100,200), then the full size (BENCH_NODES,
 * default 1000) — gets one warm-up and BENCH_REPS (default 5) timed runs of both engines,
 * alternating; the probes show how run time grows with N. Prints figures only; never asserts on
 * times.
 */

import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { type CompiledGraph, compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry, type NodeRegistry } from '../app/node-sdk/registry.ts';
import type { ChatRequest } from '../app/providers/types.ts';
import { startRun } from '../app/runtime/engine.ts';
import {
  isMain,
  machineLine,
  median,
  ms,
  pad,
  ZeroLatencyProvider,
  zeroLatencyChat,
} from './support.ts';

export interface EngineOverheadOptions {
  /** Agents between the input and the gathering node at the full size. */
  agents?: number;
  /** Timed repetitions after one warm-up, at every size. */
  reps?: number;
  /** Smaller sizes, run first. */
  probes?: number[];
  log?: (line: string) => void;
}

/**
 * Where one of our runs spends its wall time, read from its own events (timestamps taken by a
 * subscriber when the engine emits each event). Milliseconds.
 */
export interface RunPhases {
  /** run.started → input node started: building the XState machine and its initial state. */
  machineStart: number;
  /** input finished → first agent started: the step that moves N regions to `running`. */
  fanOut: number;
  /** first agent started → last agent finished: the agents themselves (events, templates…). */
  agents: number;
  /** last agent finished → gather started: the N done events reaching the machine. */
  fanIn: number;
  /** gather started → run.finished. */
  finish: number;
}

export interface Timings {
  compileMs: number[];
  runMs: number[];
}

export interface OursTimings extends Timings {
  /** Median phases over the timed runs. */
  phases: RunPhases;
}

export interface SizeResult {
  agents: number;
  /** Ours: input + agents + gather + output. LangGraph: start + agents + join. */
  nodes: { ours: number; langgraph: number };
  ours: OursTimings;
  langgraph: Timings;
}

export interface EngineOverheadResult {
  reps: number;
  sizes: SizeResult[];
  /** The full-size result (the last of `sizes`). */
  main: SizeResult;
  /** Growth of the run time from the smallest size to the full one: time ∝ N^k. */
  oursExponent: number | undefined;
  langgraphExponent: number | undefined;
  elapsedMs: number;
}

const PROVIDER = 'bench';
const QUESTION = 'q-value';

/** input q → agent a0…aN-1 (`Item {{ q }} #i`) → summarize (concatenate) → output. */
export function fanOutDocument(agents: number): Record<string, unknown> {
  const nodes: unknown[] = [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', modality: 'text' } },
    {
      id: 'gather',
      type: 'summarize',
      position: { x: 600, y: 0 },
      data: { mode: 'concatenate', separator: '\n' },
    },
    { id: 'out', type: 'output', position: { x: 900, y: 0 }, data: { name: 'result' } },
  ];
  const edges: unknown[] = [
    {
      id: 'gather-out',
      source: 'gather',
      sourceHandle: 'summary',
      target: 'out',
      targetHandle: 'value',
    },
  ];
  for (let i = 0; i < agents; i++) {
    nodes.push({
      id: `a${i}`,
      type: 'agent',
      position: { x: 300, y: i * 80 },
      data: { model: 'fast', prompt: `Item {{ q }} #${i}` },
    });
    edges.push(
      { id: `q-a${i}`, source: 'q', sourceHandle: 'value', target: `a${i}`, targetHandle: 'q' },
      {
        id: `a${i}-gather`,
        source: `a${i}`,
        sourceHandle: 'text',
        target: 'gather',
        targetHandle: 'text',
      },
    );
  }
  return {
    version: 1,
    name: `fan-out ${agents}`,
    models: { fast: { provider: PROVIDER, model: 'zero' } },
    // Concurrency as high as the fan-out, so the provider queue never holds anything back.
    settings: { concurrency: { default: Math.max(agents, 1) }, seed: 1 },
    nodes,
    edges,
  };
}

// ---- ours --------------------------------------------------------------------------------

async function timeOursCompile(
  agents: number,
  registry: NodeRegistry,
): Promise<{ ms: number; compiled: CompiledGraph }> {
  // A fresh document each time, as a run from a file would have.
  const doc = fanOutDocument(agents);
  const t = performance.now();
  const result = await compileGraph(doc, registry);
  const elapsed = performance.now() - t;
  if (!result.ok) {
    const problems = result.problems.map((p) => JSON.stringify(p)).join('\n');
    throw new Error(`the benchmark graph does not compile:\n${problems}`);
  }
  return { ms: elapsed, compiled: result };
}

interface OursRun {
  ms: number;
  phases: RunPhases;
}

async function timeOursRun(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  agents: number,
): Promise<OursRun> {
  const provider = new ZeroLatencyProvider(PROVIDER);
  const marks: Record<string, number> = {};
  let firstAgentStart = Number.NaN;
  let lastAgentFinish = Number.NaN;
  const t0 = performance.now();
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    inputs: { q: QUESTION },
    providerFor: () => provider,
    env: {},
  });
  run.subscribe((event) => {
    const now = performance.now() - t0;
    if (event.type === 'run.started' || event.type === 'run.finished') marks[event.type] = now;
    else if (event.type === 'node.started' || event.type === 'node.finished') {
      if (/^a\d+$/.test(event.node)) {
        if (event.type === 'node.started' && Number.isNaN(firstAgentStart)) firstAgentStart = now;
        if (event.type === 'node.finished') lastAgentFinish = now;
      } else marks[`${event.type}:${event.node}`] = now;
    }
  });
  const result = await run.result;
  const elapsed = performance.now() - t0;
  const m = (key: string) => marks[key] ?? Number.NaN;
  const phases: RunPhases = {
    machineStart: m('node.started:q') - m('run.started'),
    fanOut: firstAgentStart - m('node.finished:q'),
    agents: lastAgentFinish - firstAgentStart,
    fanIn: m('node.started:gather') - lastAgentFinish,
    finish: m('run.finished') - m('node.started:gather'),
  };
  if (result.status !== 'succeeded') throw new Error(`our run ${result.status}: ${result.error}`);
  const lines = String(result.outputs.result ?? '').split('\n').length;
  if (lines !== agents) throw new Error(`our run gathered ${lines} answers, expected ${agents}`);
  return { ms: elapsed, phases };
}

function medianPhases(runs: RunPhases[]): RunPhases {
  const keys = Object.keys(runs[0]!) as Array<keyof RunPhases>;
  return Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])) as never;
}

// ---- LangGraph ---------------------------------------------------------------------------

interface LangGraphApp {
  invoke(
    input: { q: string },
    config?: Record<string, unknown>,
  ): Promise<{ answers: string[]; summary: string }>;
}

/** The same shape in LangGraph: START → start → n0…nN-1 (one provider call each) → join → END. */
function buildLangGraph(agents: number, chat: (request: ChatRequest) => Promise<unknown>) {
  const State = Annotation.Root({
    q: Annotation<string>(),
    // The fan-in: every parallel node appends its answer through this reducer.
    answers: Annotation<string[]>({
      reducer: (left, right) => left.concat(right),
      default: () => [],
    }),
    summary: Annotation<string>(),
  });
  type S = typeof State.State;
  // biome-ignore lint/suspicious/noExplicitAny: the builder's node-name type grows with each addNode; a loop cannot express it.
  const builder: any = new StateGraph(State);
  builder.addNode('start', () => ({}));
  builder.addNode('join', (state: S) => ({ summary: state.answers.join('\n') }));
  builder.addEdge(START, 'start');
  builder.addEdge('join', END);
  for (let i = 0; i < agents; i++) {
    const name = `n${i}`;
    builder.addNode(name, async (state: S) => {
      const result = (await chat({
        model: 'zero',
        messages: [{ role: 'user', content: `Item ${state.q} #${i}` }],
      })) as { text: string };
      return { answers: [result.text] };
    });
    builder.addEdge('start', name);
    builder.addEdge(name, 'join');
  }
  return builder.compile() as LangGraphApp;
}

async function timeLangGraph(agents: number): Promise<{ compileMs: number; runMs: number }> {
  let calls = 0;
  const chat = (request: ChatRequest) => {
    calls++;
    return zeroLatencyChat(request);
  };
  let t = performance.now();
  const app = buildLangGraph(agents, chat);
  const compileMs = performance.now() - t;
  t = performance.now();
  const final = await app.invoke({ q: QUESTION }, { recursionLimit: 100 });
  const runMs = performance.now() - t;
  const lines = final.summary.split('\n').length;
  if (calls !== agents || final.answers.length !== agents || lines !== agents) {
    throw new Error(`LangGraph made ${calls} calls and gathered ${lines}, expected ${agents}`);
  }
  return { compileMs, runMs };
}

// ---- the benchmark -----------------------------------------------------------------------

/** Both engines, alternating, warm-up + reps, at one size. */
async function measureBoth(
  agents: number,
  reps: number,
  registry: NodeRegistry,
  log: (line: string) => void,
): Promise<SizeResult> {
  const ours: Timings = { compileMs: [], runMs: [] };
  const langgraph: Timings = { compileMs: [], runMs: [] };
  const phaseRuns: RunPhases[] = [];
  for (let rep = -1; rep < reps; rep++) {
    const compiled = await timeOursCompile(agents, registry);
    const run = await timeOursRun(compiled.compiled, registry, agents);
    const lang = await timeLangGraph(agents);
    if (rep < 0) continue;
    ours.compileMs.push(compiled.ms);
    ours.runMs.push(run.ms);
    phaseRuns.push(run.phases);
    langgraph.compileMs.push(lang.compileMs);
    langgraph.runMs.push(lang.runMs);
  }
  log(
    `  ${pad(`N=${agents}`, 7)} ours run ${ms(median(ours.runMs))}, LangGraph run ${ms(median(langgraph.runMs))}`,
  );
  return {
    agents,
    nodes: { ours: agents + 3, langgraph: agents + 2 },
    ours: { ...ours, phases: medianPhases(phaseRuns) },
    langgraph,
  };
}

function exponent(a: SizeResult | undefined, b: SizeResult | undefined, pick: 'ours' | 'lg') {
  if (!a || !b || a.agents === b.agents) return undefined;
  const ta = median(pick === 'ours' ? a.ours.runMs : a.langgraph.runMs);
  const tb = median(pick === 'ours' ? b.ours.runMs : b.langgraph.runMs);
  return Math.log(tb / ta) / Math.log(b.agents / a.agents);
}

export async function benchEngineOverhead(
  options: EngineOverheadOptions = {},
): Promise<EngineOverheadResult> {
  const started = performance.now();
  const env = process.env;
  const agents = options.agents ?? Number(env.BENCH_NODES ?? 1000);
  const reps = Math.max(1, options.reps ?? Number(env.BENCH_REPS ?? 5));
  const probes = (
    options.probes ?? (env.BENCH_PROBES ?? '100,200').split(',').filter(Boolean).map(Number)
  ).filter((n) => n < agents);
  const log = options.log ?? (() => {});
  const registry = await loadNodeRegistry();

  log(`engine overhead: probe sizes ${probes.join(', ') || 'none'}, then N=${agents}`);
  const sizes: SizeResult[] = [];
  for (const n of probes) sizes.push(await measureBoth(n, reps, registry, log));
  const main = await measureBoth(agents, reps, registry, log);
  sizes.push(main);
  // From the smallest size to the full one: the widest span gives the steadiest exponent.
  const oursExponent = exponent(sizes[0], main, 'ours');
  const langgraphExponent = exponent(sizes[0], main, 'lg');
  return {
    reps,
    sizes,
    main,
    oursExponent,
    langgraphExponent,
    elapsedMs: performance.now() - started,
  };
}

// ---- the report --------------------------------------------------------------------------

function perNode(values: number[], nodes: number): string {
  return `${(median(values) / nodes).toFixed(3)} ms/node`;
}

export function formatPhases(p: RunPhases): string {
  const f = (v: number) => (Number.isNaN(v) ? 'not reached' : v.toFixed(v < 10 ? 1 : 0));
  return [
    `machine+initial state ${f(p.machineStart)}`,
    `fan-out step ${f(p.fanOut)}`,
    `agents ${f(p.agents)}`,
    `fan-in ${f(p.fanIn)}`,
    `gather→end ${f(p.finish)}`,
  ].join(', ');
}

/** The report lines for a result. */
export function formatEngineOverhead(r: EngineOverheadResult): string[] {
  const { main } = r;
  const lines = [
    `Engine overhead: 1 input → ${main.agents} agents → 1 gather; zero-latency in-process provider; concurrency ${main.agents}`,
    `  medians of ${r.reps} timed runs after a warm-up; ours has ${main.nodes.ours} nodes (incl. output), LangGraph ${main.nodes.langgraph}`,
  ];
  const row = (name: string, t: Timings, nodes: number) =>
    `  ${pad(name, 10)} compile ${pad(ms(median(t.compileMs)), 10)} ${pad(`(${perNode(t.compileMs, nodes)})`, 17)} ` +
    `run ${pad(ms(median(t.runMs)), 11)} (${perNode(t.runMs, nodes)})` +
    `  total ${ms(median(t.compileMs) + median(t.runMs))}`;
  lines.push(row('ours', main.ours, main.nodes.ours));
  lines.push(row('LangGraph', main.langgraph, main.nodes.langgraph));
  const ratio = (a: number[], b: number[]) => `${(median(a) / median(b)).toFixed(2)}×`;
  lines.push(
    `  ours / LangGraph: compile ${ratio(main.ours.compileMs, main.langgraph.compileMs)}, ` +
      `run ${ratio(main.ours.runMs, main.langgraph.runMs)}`,
  );
  lines.push(`  our run by phase (ms, from the run's events): ${formatPhases(main.ours.phases)}`);
  const oursPerNode = median(main.ours.runMs) / main.nodes.ours;
  lines.push(
    `  aim: well under 0.5 ms/node → ours ${oursPerNode.toFixed(3)} ms/node: ${oursPerNode < 0.5 ? 'met' : 'NOT met'}`,
  );
  lines.push('  scaling (run medians):');
  for (const s of r.sizes) {
    const o = s.ours.runMs;
    const l = s.langgraph.runMs;
    lines.push(
      `    N=${pad(String(s.agents), 5)} ours ${pad(ms(median(o)), 11)} ${pad(perNode(o, s.nodes.ours), 16)}` +
        ` LangGraph ${pad(ms(median(l)), 10)} ${pad(perNode(l, s.nodes.langgraph), 16)} ratio ${ratio(o, l)}`,
    );
    if (s !== main) lines.push(`      ours by phase: ${formatPhases(s.ours.phases)}`);
  }
  if (r.oursExponent !== undefined && r.langgraphExponent !== undefined) {
    lines.push(
      `    growth from N=${r.sizes[0]?.agents} to N=${r.main.agents}: ours ∝ N^${r.oursExponent.toFixed(2)}, LangGraph ∝ N^${r.langgraphExponent.toFixed(2)}`,
    );
  }
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchEngineOverhead({ log: console.log });
  for (const line of formatEngineOverhead(result)) console.log(line);
  console.log(`(engine-overhead took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
