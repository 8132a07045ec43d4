/**
 * Tool overhead: what our engine adds to one tool round trip against an in-process MCP server
 * (the official SDK's server, offering `add`), beside the same call made with the SDK's client
 * directly. Over two transports: the SDK's in-memory pair (nothing but the protocol, so the
 * engine's share is as visible as it gets) and Streamable HTTP on 127.0.0.1.
 *
 *   node bench/tool-overhead.ts
 *   BENCH_TOOL_CALLS=2000 BENCH_TOOL_RUNS=8 node bench/tool-overhead.ts
 *
 * Three measures per transport, each after a warm-up:
 * - direct: `client.callTool`, one call at a time, each timed (the median call);
 * - gateway: the run's tool gateway (app/runtime/tools.ts) calling through our MCP source, one
 *   call at a time, alternating with the direct ones: argument parsing and the JSON
 *   Schema check, budgets, the per-source queue, the time-out, the record hook and the events
 *   (collected in an array: a run's event log and subscribers are not in this figure).
 *   Overhead = gateway − direct.
 * - in a run: an agent whose in-process model (no HTTP, answering at once) asks for one call a
 *   round for 64 rounds; a round is timed from one `tool.call` event to the next (the median
 *   round of a run, the median of the runs). A round is a model turn and a tool call: round −
 *   direct is the engine's whole share of it, model turn included. The same runs are made with
 *   an instant tool source in place of the server (no MCP at all), alternating with them.
 * Prints figures only; never asserts on times.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { type CompiledGraph, compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { loadNodeRegistry, type NodeRegistry } from '../app/node-sdk/registry.ts';
import type { ToolDefinition, ToolSource } from '../app/providers/tools.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../app/providers/types.ts';
import { startRun } from '../app/runtime/engine.ts';
import type { RunOptions } from '../app/runtime/run-options.ts';
import { ToolGateway } from '../app/runtime/tools.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import { connectMcp, McpToolSource } from '../app/tools/mcp-source.ts';
import type { McpProfile } from '../app/tools/profiles.ts';
import {
  type CountedTool,
  countingMcp,
  type ReceivedCall,
  startCountingMcp,
} from '../tests/support/mcp-counting.ts';
import { isMain, machineLine, median, pad } from './support.ts';

/** Rounds of the agent in one run (the agent's maximum). */
const ROUNDS = 64;
const CLIENT = { name: 'society-bench', version: '1.0.0' };
const TOOLS: CountedTool[] = [
  {
    name: 'add',
    description: 'adds two numbers',
    input: { a: z.number(), b: z.number() },
    answer: ({ a, b }) => String(Number(a) + Number(b)),
  },
];

export interface ToolOverheadOptions {
  /** Calls timed directly and through the gateway, per transport. */
  calls?: number;
  /** Timed runs of each length, per transport. */
  runs?: number;
  log?: (line: string) => void;
}

/** Microseconds per call (or per round), medians. */
export interface TransportResult {
  transport: string;
  direct: number;
  gateway: number;
  /** A round of a run against the server (a model turn and a call). */
  round: number;
  /** A round of the same run with an instant tool source (no MCP). */
  instantRound: number;
}

export interface ToolOverheadResult {
  calls: number;
  runs: number;
  transports: TransportResult[];
  elapsedMs: number;
}

/** One way to reach the server: a client for direct calls, and our tool source. */
interface Connection {
  transport: string;
  client: Client;
  source: () => Promise<ToolSource>;
  close: () => Promise<void>;
}

async function inMemory(): Promise<Connection> {
  const calls: ReceivedCall[] = [];
  const pair = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await countingMcp(TOOLS, calls).connect(serverSide);
    const client = new Client(CLIENT);
    await client.connect(clientSide);
    return client;
  };
  const client = await pair();
  const profile: McpProfile = {
    name: 'bench',
    transport: 'http',
    url: 'http://in-memory/',
    headers: [],
  };
  const opened: ToolSource[] = [];
  return {
    transport: 'in-memory',
    client,
    source: async () => {
      const source = new McpToolSource(profile, await pair());
      opened.push(source);
      return source;
    },
    close: async () => {
      await client.close();
      await Promise.all(opened.map((s) => s.close()));
    },
  };
}

async function overHttp(): Promise<Connection> {
  const server = await startCountingMcp(TOOLS);
  const client = new Client(CLIENT);
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const profile: McpProfile = { name: 'bench', transport: 'http', url: server.url, headers: [] };
  const opened: ToolSource[] = [];
  return {
    transport: 'Streamable HTTP',
    client,
    source: async () => {
      const source = await connectMcp(profile, { signal: new AbortController().signal, env: {} });
      opened.push(source);
      return source;
    },
    close: async () => {
      await client.close();
      await Promise.all(opened.map((s) => s.close()));
      await server.close();
    },
  };
}

/** The SDK client's call and the gateway's, alternating (load drifts hit both alike). */
async function timeCalls(
  connection: Connection,
  calls: number,
): Promise<{ direct: number; gateway: number }> {
  const source = await connection.source();
  const events: unknown[] = [];
  const gateway = new ToolGateway({
    // A run's options as far as the gateway reads them: the source, and a record hook.
    options: { tools: { open: async () => source }, onToolCall: () => {} } as unknown as RunOptions,
    doc: { version: 1, name: 'bench', nodes: [], edges: [] } as unknown as GraphDocument,
    answerBytes: 1_000_000,
    timeoutMs: 60_000,
    emit: (event) => events.push(event),
    // The bench offers an MCP tool only: no graph tool runs.
    runGraph: async () => {
      throw new Error('the bench offers no graph tool');
    },
  });
  const signal = new AbortController().signal;
  await gateway.offer('agent', 'agent', [{ source: { kind: 'mcp', profile: 'bench' } }], signal);
  const direct = (i: number) =>
    connection.client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
  const viaGateway = async (i: number) => {
    const result = await gateway.call(
      'agent',
      'agent',
      { id: `c${i}`, name: 'add', arguments: JSON.stringify({ a: i, b: 1 }) },
      {},
      signal,
    );
    if (result.content !== String(i + 1)) throw new Error(`add(${i}, 1) gave ${result.content}`);
    events.length = 0;
  };
  // Call by call, alternating, each timed alone: a spike of other work on the machine moves one
  // call, not the median.
  const times = { direct: [] as number[], gateway: [] as number[] };
  for (let i = -100; i < calls; i++) {
    for (const [name, one] of [
      ['direct', direct],
      ['gateway', viaGateway],
    ] as const) {
      const t = performance.now();
      await one(i + 100);
      if (i >= 0) times[name].push((performance.now() - t) * 1000);
    }
  }
  await gateway.close();
  return { direct: median(times.direct), gateway: median(times.gateway) };
}

/** q → an agent offered the server's tools (up to 64 rounds) → answer */
function agentDocument(): Record<string, unknown> {
  return {
    version: 1,
    name: 'tool rounds',
    models: { m: { provider: 'bench', model: 'zero' } },
    nodes: [
      { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q' } },
      {
        id: 'agent',
        type: 'agent',
        position: { x: 0, y: 0 },
        data: {
          model: 'm',
          prompt: 'Add up to {{ q }}',
          tools: [{ mcp: 'bench' }],
          maxToolRounds: ROUNDS,
          maxToolCalls: 10_000,
        },
      },
      { id: 'out', type: 'output', position: { x: 0, y: 0 }, data: { name: 'answer' } },
    ],
    edges: [
      { id: 'e1', source: 'q', sourceHandle: 'value', target: 'agent', targetHandle: 'q' },
      { id: 'e2', source: 'agent', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
    ],
  };
}

/** A model in the process that asks for `add` once a round, `rounds` times, then answers. */
function roundsModel(rounds: number): ChatProvider {
  return {
    id: 'bench',
    chat(request: ChatRequest): Promise<ChatResult> {
      const done = request.messages.filter((m) => m.role === 'tool').length;
      const base = { usage: { promptTokens: 1, completionTokens: 1 }, model: request.model };
      return Promise.resolve(
        done < rounds
          ? {
              ...base,
              text: '',
              finishReason: 'tool_calls',
              source: 'live',
              toolCalls: [
                { id: `c${done}`, name: 'add', arguments: JSON.stringify({ a: done, b: 1 }) },
              ],
            }
          : { ...base, text: `added ${done} times`, finishReason: 'stop', source: 'live' },
      );
    },
  };
}

/** A tool source answering at once, in the process: the engine's share with no server at all. */
function instantSource(): ToolSource {
  const add: ToolDefinition = {
    name: 'add',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  };
  return {
    id: 'mcp:bench',
    list: async () => [add],
    call: async (_tool, args) => ({
      content: String(Number(args.a) + Number(args.b)),
      source: 'live',
    }),
    close: async () => {},
  };
}

/**
 * One run of ROUNDS rounds; resolves to its median round in µs: the time from one `tool.call`
 * event to the next, as a subscriber sees them (so the run's start and end are not in it, and a
 * round disturbed by other work on the machine does not move the median).
 */
async function timeRun(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  source: () => Promise<ToolSource>,
): Promise<number> {
  const run = startRun(compiled, {
    experts: expertProviders,
    registry,
    inputs: { q: 'ten' },
    providerFor: () => roundsModel(ROUNDS),
    tools: { open: () => source() },
    env: {},
  });
  const calls: number[] = [];
  run.subscribe((event) => {
    if (event.type === 'tool.call') calls.push(performance.now());
  });
  const result = await run.result;
  if (result.status !== 'succeeded' || result.outputs.answer !== `added ${ROUNDS} times`) {
    throw new Error(`the benchmark run ended ${result.status}: ${JSON.stringify(result.outputs)}`);
  }
  return median(calls.slice(1).map((at, i) => (at - calls[i]!) * 1000));
}

/** µs per round against the server and against an instant source (runs alternate; medians). */
async function timeRounds(
  compiled: CompiledGraph,
  registry: NodeRegistry,
  runs: number,
  server: () => Promise<ToolSource>,
): Promise<{ round: number; instantRound: number }> {
  const instant = async () => instantSource();
  const round: number[] = [];
  const instantRound: number[] = [];
  for (let r = -1; r < runs; r++) {
    const a = await timeRun(compiled, registry, server);
    const b = await timeRun(compiled, registry, instant);
    if (r < 0) continue;
    round.push(a);
    instantRound.push(b);
  }
  return { round: median(round), instantRound: median(instantRound) };
}

export async function benchToolOverhead(
  options: ToolOverheadOptions = {},
): Promise<ToolOverheadResult> {
  const started = performance.now();
  const calls = options.calls ?? Number(process.env.BENCH_TOOL_CALLS ?? 2000);
  const runs = Math.max(1, options.runs ?? Number(process.env.BENCH_TOOL_RUNS ?? 8));
  const log = options.log ?? (() => {});
  const registry = await loadNodeRegistry();
  const compiled = await compileGraph(agentDocument(), registry);
  if (!compiled.ok)
    throw new Error(`the benchmark graph does not compile: ${JSON.stringify(compiled.problems)}`);
  const transports: TransportResult[] = [];
  for (const connect of [inMemory, overHttp]) {
    const connection = await connect();
    try {
      log(`tool overhead over ${connection.transport}: ${calls} calls each way, ${runs} runs…`);
      const { direct, gateway } = await timeCalls(connection, calls);
      const rounds = await timeRounds(compiled, registry, runs, connection.source);
      transports.push({ transport: connection.transport, direct, gateway, ...rounds });
    } finally {
      await connection.close();
    }
  }
  return { calls, runs, transports, elapsedMs: performance.now() - started };
}

const us = (value: number) => `${value.toFixed(0)} µs`;

/** The report lines for a result. */
export function formatToolOverhead(r: ToolOverheadResult): string[] {
  const lines = [
    `Tool overhead: one MCP call (add) to an in-process SDK server, ${r.calls} calls per measure, ${ROUNDS}-round agent runs ×${r.runs}`,
    '  medians; direct = the SDK client alone; gateway = through our tool gateway and MCP source; round = one model turn + one call in a run',
  ];
  for (const t of r.transports) {
    const overhead = t.gateway - t.direct;
    lines.push(
      `  ${pad(t.transport, 16)} direct ${pad(us(t.direct), 8)} gateway ${pad(us(t.gateway), 8)} ` +
        `overhead ${pad(us(overhead), 8)} ratio ${(t.gateway / t.direct).toFixed(2)}×`,
    );
    lines.push(
      `  ${pad('', 16)} in a run: a round ${us(t.round)} = the call (${us(t.direct)}) + ${us(t.round - t.direct)} ` +
        `of engine, model turn included; with an instant tool in place of the server ${us(t.instantRound)}`,
    );
  }
  return lines;
}

if (isMain(import.meta.url)) {
  console.log(machineLine());
  const result = await benchToolOverhead({ log: console.log });
  for (const line of formatToolOverhead(result)) console.log(line);
  console.log(`(tool-overhead took ${(result.elapsedMs / 1000).toFixed(1)} s)`);
}
