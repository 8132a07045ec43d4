/**
 * The Artist–Critic society (templates/nlsom-artist-critic) at scale over real HTTP: 26 artist
 * trios talking for R rounds, 50 critics voting, a collector and a painter, every model call
 * going through the OpenAI-compatible provider and the painter through the Hugging Face one, to
 * local stub servers that answer each request after the same latency (100 ms). The document's
 * concurrency is raised to 64 for the run, above the widest wave (50 critics), so no call ever
 * waits for a slot and the wall time can approach the critical path.
 *
 *   node bench/artist-critic.ts
 *   BENCH_ROUNDS=3 BENCH_LATENCY_MS=100 BENCH_CONCURRENCY=64 BENCH_AC_RUNS=5 node bench/artist-critic.ts
 *
 * The critical path is the longest chain of calls each of which starts after the one before it
 * has been answered, read from the run's own model and expert events, never linking two copies
 * of a replicated node or group (they run side by side); with no call waiting for a slot, that is
 * the chain of dependent calls: an artist's first answer, R questions and R
 * answers, its proposal, one critic, the collector, the painter. Memory is the process's peak
 * resident set during the run (sampled every few ms, Node's own runtime included); the servers
 * run in a child process so it is the engine's alone (BENCH_STUB=thread: a worker thread).
 *
 * Prints the figures; never asserts.
 */

import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type CompiledGraph, compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import {
  describeYoungGeneration,
  semiSpaceInForce,
  YOUNG_GENERATION_FLAG,
} from '../app/memory/young-generation.ts';
import { loadNodeRegistry, type NodeRegistry } from '../app/node-sdk/registry.ts';
import { startRun } from '../app/runtime/engine.ts';
import type { RunEvent } from '../app/runtime/events.ts';
import {
  type ServerPlacement,
  type ServersReport,
  startArtistCriticServers,
} from './artist-critic-stub.ts';
import { epochNow } from './parallel-stub.ts';
import {
  describeCompileCache,
  isMain,
  machineLine,
  median,
  ms,
  productNodeEnv,
} from './support.ts';

export interface ArtistCriticOptions {
  rounds?: number;
  latencyMs?: number;
  concurrency?: number;
  /** Runs in this process; the first is reported as cold, the median of the rest as warm. */
  runs?: number;
  stub?: ServerPlacement;
}

/** One call as the run reported it, in ms after startRun. */
interface CallSpan {
  id: string;
  node: string;
  /** The node instance that made it: `artists#3/questioner@r2`, `critic#7`. */
  instance: string;
  start: number;
  end: number;
}

/** One run against fresh servers. */
export interface ArtistCriticRun {
  status: string;
  wallMs: number;
  modelCalls: number;
  expertCalls: number;
  requests: number;
  peakConcurrency: number;
  /** The longest chain of calls, each starting after the one before it was answered. */
  chain: CallSpan[];
  /** Engine time on the chain: before its first call, between its calls, after its last. */
  gapsMs: number[];
  /** How long the chain's calls took as the run saw them (latency + HTTP + client). */
  chainCallsMs: number;
  /** Peak RSS sampled during the run, and the RSS just before it, in bytes. */
  peakRss: number;
  rssBefore: number;
  /** V8's heap just before the run: what it has taken from the system, and what is in use. */
  heapTotalBefore: number;
  heapUsedBefore: number;
  peakHeapUsed: number;
  /** CPU time this process spent during the run (user + system), in ms. */
  cpuMs: number;
  events: number;
}

export interface ArtistCriticResult {
  rounds: number;
  latencyMs: number;
  concurrency: number;
  artists: number;
  critics: number;
  /** Calls the protocol makes: 26 × (2R + 2) + 50 + 1, and the painter. */
  expectedCalls: number;
  /** Calls in series the protocol implies: (1 + 2R + 1) + 1 + 1 + 1. */
  structuralDepth: number;
  cold: ArtistCriticRun;
  warm: ArtistCriticRun;
  warmRuns: number;
  stub: ServerPlacement;
  /** The process's lifetime peak RSS (`process.resourceUsage().maxRSS`), in bytes. */
  maxRss: number;
  /** The same requests in the same order of dependence from bare fetch: median wall time. */
  floorMs: number;
  /** The same requests through the OpenAI SDK's client, the one the provider calls with. */
  sdkFloorMs: number;
  sdkFloorCpuMs: number;
  /** The CPU time this process spent on those requests: median. */
  floorCpuMs: number;
  /** The machine's load average over the last minute when the bench ended, and its cores. */
  load: number;
  cpus: number;
  /** How V8's young generation was capped (app/memory/young-generation.ts). */
  youngGeneration: string;
  /** Whether the modules came from Node's compile cache, as in the product. */
  compileCache: string;
}

type Doc = {
  nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>;
  settings?: Record<string, unknown>;
} & Record<string, unknown>;

/** The template at `rounds` rounds with every provider allowed `concurrency` calls at once. */
export function artistCriticDocument(rounds: number, concurrency: number): Doc {
  const doc = JSON.parse(
    readFileSync(new URL('../templates/nlsom-artist-critic.society.json', import.meta.url), 'utf8'),
  ) as Doc;
  for (const node of doc.nodes) if (node.type === 'mindstorm') node.data.maxRounds = rounds;
  // The built-in profiles bring their own limits (openai 8, hf-inference 4), which win over a
  // document's default: name the providers too.
  doc.settings = {
    ...doc.settings,
    concurrency: {
      default: concurrency,
      providers: { openai: concurrency, 'hf-inference': concurrency },
    },
  };
  return doc;
}

function replicas(doc: Doc, id: string): number {
  const node = doc.nodes.find((n) => n.id === id);
  return ((node?.data.replicate as { items?: unknown[] } | undefined)?.items ?? []).length;
}

/** The spans of every answered model and expert call, from the run's events. */
function callSpans(timed: Array<{ event: RunEvent; at: number }>): CallSpan[] {
  const open = new Map<string, { node: string; start: number }>();
  const spans: CallSpan[] = [];
  for (const { event, at } of timed) {
    if (event.type === 'model.request' || event.type === 'expert.request') {
      open.set(event.callId, { node: event.node, start: at });
    } else if (event.type === 'model.response' || event.type === 'expert.response') {
      const begun = open.get(event.callId);
      if (begun) spans.push({ id: event.callId, instance: event.instance, ...begun, end: at });
    }
  }
  return spans;
}

/**
 * True when two calls come from different copies of one replicated node or group (`critic#3` and
 * `critic#7`, `artists#2/leader` and `artists#5/questioner@r1`): such copies run side by side and
 * never wait for each other, however their calls happen to fall in time.
 */
export function separateCopies(a: string, b: string): boolean {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [nodeA, copyA] = left[i]!.replace(/@.*$/, '').split('#');
    const [nodeB, copyB] = right[i]!.replace(/@.*$/, '').split('#');
    if (nodeA !== nodeB) return false;
    if (copyA !== copyB) return copyA !== undefined && copyB !== undefined;
  }
  return false;
}

/**
 * The longest chain of calls in which each starts once the one before it has been answered,
 * leaving out links between copies that run side by side (see `separateCopies`). With no call
 * waiting for a slot, such a chain is a chain of calls that depend on each other.
 */
export function longestChain(spans: CallSpan[]): CallSpan[] {
  const sorted = [...spans].sort((a, b) => a.end - b.end);
  const length: number[] = [];
  const previous: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    length[i] = 1;
    previous[i] = -1;
    for (let j = 0; j < i; j++) {
      const follows =
        sorted[j]!.end <= sorted[i]!.start &&
        !separateCopies(sorted[j]!.instance, sorted[i]!.instance);
      if (follows && length[j]! + 1 > length[i]!) {
        length[i] = length[j]! + 1;
        previous[i] = j;
      }
    }
  }
  let last = -1;
  for (let i = 0; i < sorted.length; i++) {
    if (last < 0 || length[i]! > length[last]!) last = i;
  }
  const chain: CallSpan[] = [];
  for (let i = last; i >= 0; i = previous[i]!) chain.unshift(sorted[i]!);
  return chain;
}

async function runOnce(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  latencyMs: number,
  placement: ServerPlacement,
): Promise<ArtistCriticRun> {
  const servers = await startArtistCriticServers(latencyMs, placement);
  let report: ServersReport | undefined;
  const before = process.memoryUsage();
  const rssBefore = before.rss;
  let peakRss = rssBefore;
  let peakHeapUsed = 0;
  // The resident set is cheap to read; the heap's figures cost a walk of its spaces, so they are
  // read ten times less often (a sampler must not be what the run spends its time on).
  let ticks = 0;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    if (ticks++ % 10 === 0) peakHeapUsed = Math.max(peakHeapUsed, process.memoryUsage().heapUsed);
  };
  const sampler = setInterval(sample, 5);
  try {
    const cpu0 = process.cpuUsage();
    const t0 = epochNow();
    const run = startRun(compiled, {
      experts: expertProviders,
      registry,
      inputs: { object: 'a lighthouse on a rocky coast at dawn' },
      providerOverrides: {
        openai: { baseUrl: servers.openaiUrl, apiKeyEnv: '' },
        'hf-inference': { kind: 'huggingface', baseUrl: servers.hfUrl, apiKeyEnv: '' },
      },
      env: {},
      retry: { attempts: 1 },
    });
    const timed: Array<{ event: RunEvent; at: number }> = [];
    run.subscribe((event) => {
      if (event.type.endsWith('.request') || event.type.endsWith('.response')) {
        timed.push({ event, at: epochNow() - t0 });
      }
    });
    const result = await run.result;
    const wallMs = epochNow() - t0;
    const cpu = process.cpuUsage(cpu0);
    sample();
    clearInterval(sampler);
    report = await servers.close();
    const chain = longestChain(callSpans(timed));
    const gapsMs: number[] = [];
    let at = 0;
    for (const span of chain) {
      gapsMs.push(span.start - at);
      at = span.end;
    }
    gapsMs.push(wallMs - at);
    return {
      status: result.error ? `${result.status}: ${result.error}` : result.status,
      wallMs,
      modelCalls: result.usage.calls,
      expertCalls: result.usage.expertCalls ?? 0,
      requests: report.served.length,
      peakConcurrency: report.peakConcurrency,
      chain,
      gapsMs,
      chainCallsMs: chain.reduce((sum, span) => sum + span.end - span.start, 0),
      peakRss,
      rssBefore,
      heapTotalBefore: before.heapTotal,
      heapUsedBefore: before.heapUsed,
      peakHeapUsed,
      cpuMs: (cpu.user + cpu.system) / 1000,
      events: run.events.length,
    };
  } finally {
    clearInterval(sampler);
    if (!report) await servers.close();
  }
}

/**
 * The floor: the run's requests in the run's order of dependence from bare fetch, with no
 * provider and no engine: 26 chains of 2R + 2 requests one after another, then 50 at once, then
 * one, then the painter's. What is left above the critical path is HTTP and the servers. With
 * `client` 'sdk' the chat requests go through the official OpenAI SDK's client instead (one
 * client, no retries, as the provider makes them): what the SDK adds, with no engine.
 */
async function fetchFloor(
  rounds: number,
  artists: number,
  critics: number,
  latencyMs: number,
  placement: ServerPlacement,
  client: 'fetch' | 'sdk' = 'fetch',
): Promise<{ ms: number; cpuMs: number }> {
  const servers = await startArtistCriticServers(latencyMs, placement);
  const sdk =
    client === 'sdk'
      ? new (await import('openai')).default({
          baseURL: servers.openaiUrl,
          apiKey: 'no-key-needed',
          maxRetries: 0,
          logLevel: 'off',
        })
      : undefined;
  try {
    const proposal = 'A tall white tower on dark rocks at dawn, seen in broken planes. '.repeat(6);
    const ask = async (system: string, user: string, maxTokens: number) => {
      const body = {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system' as const, content: system },
          { role: 'user' as const, content: user },
        ],
        temperature: 0.7,
        max_tokens: maxTokens,
      };
      let text: string;
      if (sdk) {
        text = (await sdk.chat.completions.create(body)).choices[0]!.message.content ?? '';
      } else {
        const response = await fetch(`${servers.openaiUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer no-key-needed' },
          body: JSON.stringify(body),
        });
        const answer = (await response.json()) as {
          choices: Array<{ message: { content: string } }>;
        };
        text = answer.choices[0]!.message.content;
      }
      // As the provider does (app/providers/openai.ts, connectionReleased).
      await new Promise((resolve) => setImmediate(resolve));
      return text;
    };
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const proposals = await Promise.all(
      Array.from({ length: artists }, async (_, i) => {
        const system = `You are artist #${i}.`;
        let talk = await ask(system, 'We are planning a picture of a lighthouse.', 120);
        for (let r = 0; r < rounds; r++) {
          const question = await ask(system, `Ask one more question.\n${talk}`, 60);
          talk += `\n${question}\n${await ask(system, question, 120)}`;
        }
        return `Artist ${i}: ${await ask(system, `Sum it up.\n${talk}`, 100)}`;
      }),
    );
    const ballot = `Which proposal is the most striking?\n${proposals.join('\n')}`;
    await Promise.all(
      Array.from({ length: critics }, (_, i) => ask(`You are critic #${i}.`, ballot, 12)),
    );
    const prompt = await ask('You are an assistant.', `${proposal}\n${ballot}`, 150);
    const picture = await fetch(`${servers.hfUrl}/models/painter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: prompt }),
    });
    await picture.arrayBuffer();
    const cpu = process.cpuUsage(cpu0);
    return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
  } finally {
    await servers.close();
  }
}

export async function benchArtistCritic(
  options: ArtistCriticOptions = {},
): Promise<ArtistCriticResult> {
  const youngGeneration = describeYoungGeneration();
  const env = process.env;
  const rounds = options.rounds ?? Number(env.BENCH_ROUNDS ?? 3);
  const latencyMs = options.latencyMs ?? Number(env.BENCH_LATENCY_MS ?? 100);
  const concurrency = options.concurrency ?? Number(env.BENCH_CONCURRENCY ?? 64);
  const runs = Math.max(1, options.runs ?? Number(env.BENCH_AC_RUNS ?? 5));
  const placement = options.stub ?? (env.BENCH_STUB === 'thread' ? 'thread' : 'process');
  const registry = await loadNodeRegistry();
  const doc = artistCriticDocument(rounds, concurrency);
  const compiled = await compileGraph(doc, registry);
  if (!compiled.ok) {
    const problems = compiled.problems.map((p) => JSON.stringify(p)).join('\n');
    throw new Error(`the Artist–Critic template does not compile:\n${problems}`);
  }
  // Counted on the bound document: the template takes its styles and professions from its
  // parameters.
  const bound = compiled.doc as unknown as Doc;
  const artists = replicas(bound, 'artists');
  const critics = replicas(bound, 'critic');
  const all: ArtistCriticRun[] = [];
  const floors: Array<{ ms: number; cpuMs: number }> = [];
  const sdkFloors: Array<{ ms: number; cpuMs: number }> = [];
  // Engine and floors alternate, so all see the same machine; the first of each warms its
  // client up like the engine's cold run and is left out too.
  for (let i = 0; i < runs; i++) {
    all.push(await runOnce(compiled, registry, latencyMs, placement));
    floors.push(await fetchFloor(rounds, artists, critics, latencyMs, placement));
    sdkFloors.push(await fetchFloor(rounds, artists, critics, latencyMs, placement, 'sdk'));
  }
  const warmOf = (list: Array<{ ms: number; cpuMs: number }>) =>
    list.length > 1 ? list.slice(1) : list;
  const cold = all[0]!;
  const later = all.slice(1).sort((a, b) => a.wallMs - b.wallMs);
  const warm = later[Math.floor((later.length - 1) / 2)] ?? cold;
  return {
    rounds,
    latencyMs,
    concurrency,
    artists,
    critics,
    expectedCalls: artists * (2 * rounds + 2) + critics + 1,
    structuralDepth: 1 + 2 * rounds + 1 + 1 + 1 + 1,
    cold,
    warm,
    warmRuns: later.length,
    stub: placement,
    maxRss: process.resourceUsage().maxRSS * 1024,
    floorMs: median(warmOf(floors).map((f) => f.ms)),
    floorCpuMs: median(warmOf(floors).map((f) => f.cpuMs)),
    sdkFloorMs: median(warmOf(sdkFloors).map((f) => f.ms)),
    sdkFloorCpuMs: median(warmOf(sdkFloors).map((f) => f.cpuMs)),
    load: loadavg()[0]!,
    cpus: availableParallelism(),
    youngGeneration,
    compileCache: describeCompileCache(),
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** "artists#3@r2" → "artists"; the chain is shown by node. */
function chainLine(chain: CallSpan[]): string {
  const parts: string[] = [];
  for (const span of chain) {
    const last = parts.at(-1);
    const match = last && /^(.*?)(?: ×(\d+))?$/.exec(last);
    if (match && match[1] === span.node)
      parts[parts.length - 1] = `${span.node} ×${Number(match[2] ?? 1) + 1}`;
    else parts.push(span.node);
  }
  return parts.join(' → ');
}

export function formatArtistCritic(r: ArtistCriticResult): string[] {
  const w = r.warm;
  const depth = w.chain.length;
  const criticalMs = depth * r.latencyMs;
  const ratio = w.wallMs / criticalMs;
  const coldRatio = r.cold.wallMs / (r.cold.chain.length * r.latencyMs);
  const between = w.gapsMs.slice(1, -1);
  const sumGaps = w.gapsMs.reduce((a, b) => a + b, 0);
  return [
    `Artist–Critic (templates/nlsom-artist-critic) at R = ${r.rounds}: ${r.artists} artist trios, ${r.critics} critics, a collector, a painter; ` +
      `OpenAI-compatible and Hugging Face providers → HTTP stubs (${r.stub === 'process' ? 'in a child process' : 'on a worker thread'}), ` +
      `${r.latencyMs} ms latency each; concurrency ${r.concurrency}`,
    `  status ${w.status}; ${w.modelCalls} model calls + ${w.expertCalls} painter call (protocol: ${r.expectedCalls} + 1); ` +
      `${w.requests} HTTP requests; ${w.events} events`,
    `  wall time ${ms(w.wallMs)} (median of ${r.warmRuns} warm runs; the first run in the process took ${ms(r.cold.wallMs)})`,
    `  critical path ${depth} calls × ${r.latencyMs} ms = ${ms(criticalMs, 0)}: the longest chain of calls each starting after the one ` +
      `before it was answered (copies of a replicated node never linked), from the run's events (the protocol's (1 + 2R + 1) + 1 + 1 + 1 = ${r.structuralDepth}): ${chainLine(w.chain)}`,
    `  wall / critical path ${ratio.toFixed(3)} (aim ≤ 1.10; cold run ${coldRatio.toFixed(3)})`,
    `  floor: the same requests in the same order of dependence from bare fetch ${ms(r.floorMs)} ` +
      `(${(r.floorMs / criticalMs).toFixed(3)} of the critical path); the engine ${ms(w.wallMs - r.floorMs)} above it (aim ≤ 50 ms)`,
    `  the same through the OpenAI SDK's client (what the provider calls with), no engine: ${ms(r.sdkFloorMs)} ` +
      `(${(r.sdkFloorMs / criticalMs).toFixed(3)} of the critical path, CPU ${ms(r.sdkFloorCpuMs, 0)}); the engine ${ms(w.wallMs - r.sdkFloorMs)} above it`,
    `  on the chain: its calls took ${ms(w.chainCallsMs)} (${ms(w.chainCallsMs / Math.max(1, depth))} each, ${r.latencyMs} ms of it latency); ` +
      `the engine ${ms(sumGaps)}: ${ms(w.gapsMs[0] ?? 0)} before the first call, ` +
      `${ms(between.reduce((a, b) => a + b, 0))} between calls (largest ${ms(Math.max(0, ...between))}${largestLink(w, between)}), ${ms(w.gapsMs.at(-1) ?? 0)} after the last`,
    `  peak RSS during the run ${mb(w.peakRss)} (aim < 220 MB warm; ${mb(w.rssBefore)} just before it, of which V8's heap had taken ` +
      `${mb(w.heapTotalBefore)} and used ${mb(w.heapUsedBefore)}); cold run ${mb(r.cold.peakRss)} (aim < 160 MB; ${mb(r.cold.rssBefore)} before it); ` +
      `Node's runtime and the loaded modules included; peak heap used ${mb(w.peakHeapUsed)}; process lifetime peak ${mb(r.maxRss)}; ${r.youngGeneration}; ${r.compileCache}`,
    `  CPU time of the bench's process during the run ${ms(w.cpuMs, 0)} (cold run ${ms(r.cold.cpuMs, 0)}; the floor's requests ${ms(r.floorCpuMs, 0)}); ` +
      `the machine's load average ${r.load.toFixed(1)} on ${r.cpus} cpus`,
    `  stub peak concurrency ${w.peakConcurrency} (limit ${r.concurrency}; cold run ${r.cold.peakConcurrency})`,
  ];
}

/**
 * The bench in a process of its own, as `npm run bench` runs it: its memory figures are then this
 * society's, not those of the benchmarks that ran before it in the same process.
 */
export async function benchArtistCriticAlone(): Promise<ArtistCriticResult> {
  const script = fileURLToPath(import.meta.url);
  // Started as the product starts node (app/memory/young-generation.ts): the memory measured is
  // the product's.
  const env = productNodeEnv();
  // Once to fill the compile cache, should the sources have changed since it was last filled:
  // the product's commands after their first start load their modules from it.
  await promisify(execFile)(process.execPath, [script, '--load-only'], { env });
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [YOUNG_GENERATION_FLAG, script, '--json'],
    { maxBuffer: 16 * 1024 * 1024, env },
  );
  return JSON.parse(stdout) as ArtistCriticResult;
}

if (isMain(import.meta.url) && process.argv.includes('--load-only')) {
  // Loaded, nothing run (benchArtistCriticAlone: fills the compile cache).
} else if (isMain(import.meta.url) && semiSpaceInForce() === undefined) {
  // Started without the product's option (`node bench/artist-critic.ts`): run again with it.
  // `node --max-semi-space-size=N bench/artist-critic.ts` measures another size (0: V8's default).
  const child = spawnSync(
    process.execPath,
    [YOUNG_GENERATION_FLAG, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit', env: productNodeEnv() },
  );
  process.exitCode = child.status ?? 1;
} else if (isMain(import.meta.url)) {
  const result = await benchArtistCritic();
  if (process.argv.includes('--json')) console.log(JSON.stringify(result));
  else {
    console.log(machineLine());
    for (const line of formatArtistCritic(result)) console.log(line);
  }
}

/** Where on the chain the largest gap between two calls is: " before critic". */
function largestLink(run: { chain: Array<{ node: string }> }, between: number[]): string {
  if (between.length === 0) return '';
  const at = between.indexOf(Math.max(...between));
  const next = run.chain[at + 1];
  return next ? `, before ${next.node}` : '';
}
