/**
 * An in-process source of tools for tests, standing where an MCP server would: an `add` tool
 * (and whatever a test adds), with counters that let a test see what reached it (sources
 * opened, calls made, calls in flight at once) and a switch to make it unreachable.
 */
import type {
  ToolCallOptions,
  ToolDefinition,
  ToolResult,
  ToolSource,
  ToolSourceRef,
  ToolSources,
} from '../../app/providers/tools.ts';
import { agent, edge, graph, input, output } from './graphs.ts';
import { type StubOpenAI, type StubRequestBody, startStubOpenAI } from './stub-openai.ts';

/** A tool of the fake: its definition and what it does with checked arguments. */
export interface FakeTool {
  definition: ToolDefinition;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string> | string;
}

/** `add(a, b)`: the sum, as text. */
export const ADD: FakeTool = {
  definition: {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
  },
  run: (args) => String((args.a as number) + (args.b as number)),
};

export interface FakeToolSources extends ToolSources {
  /** Sources opened so far (each profile once per run). */
  opened: string[];
  /** Every call that reached a tool: its name and arguments. */
  calls: Array<{ tool: string; args: Record<string, unknown> }>;
  /** Most calls in flight at once. */
  peak(): number;
  /** Sources closed so far. */
  closed: number;
}

/**
 * Sources for the profiles named in `tools` (every profile gets the same tools unless
 * `profiles` is given): opening any other profile fails as a server that is not there would.
 * `delayMs` holds each call, so concurrency shows.
 */
export function fakeToolSources(
  options: {
    tools?: FakeTool[];
    profiles?: string[];
    delayMs?: number;
    unreachable?: boolean;
  } = {},
): FakeToolSources {
  const tools = options.tools ?? [ADD];
  let inFlight = 0;
  let peak = 0;
  const sources: FakeToolSources = {
    opened: [],
    calls: [],
    closed: 0,
    peak: () => peak,
    async open(ref: Extract<ToolSourceRef, { kind: 'mcp' }>): Promise<ToolSource> {
      if (options.unreachable || (options.profiles && !options.profiles.includes(ref.profile)))
        throw new Error(`connection refused (no server for "${ref.profile}")`);
      sources.opened.push(ref.profile);
      return {
        id: `mcp:${ref.profile}`,
        list: async () => tools.map((t) => t.definition),
        call: async (
          name: string,
          args: Record<string, unknown>,
          call: ToolCallOptions,
        ): Promise<ToolResult> => {
          const tool = tools.find((t) => t.definition.name === name);
          if (!tool) throw new Error(`no tool ${name}`);
          sources.calls.push({ tool: name, args });
          inFlight++;
          peak = Math.max(peak, inFlight);
          try {
            if (options.delayMs) await wait(options.delayMs, call.signal);
            return { content: await tool.run(args, call.signal), source: 'live' };
          } finally {
            inFlight--;
          }
        },
        close: async () => {
          sources.closed++;
        },
      };
    },
  };
  return sources;
}

/** Waits `ms`, or rejects when `signal` aborts first (as a server's client gives up a call). */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('the call was given up'));
      },
      { once: true },
    );
  });
}

/** The text of the last tool message a model request carries ('' when none). */
export const lastToolResult = (body: StubRequestBody): string =>
  body.messages.filter((m: { role: string }) => m.role === 'tool').at(-1)?.content ?? '';

/** A local OpenAI-compatible model that calls add(2, 3), then answers with what it read back. */
export function startAdderModel(): Promise<StubOpenAI> {
  return startStubOpenAI({
    respond: (body, { index }) =>
      index === 0
        ? { text: '', toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }
        : { text: `The sum is ${lastToolResult(body)}` },
  });
}

/** q → agent `a` offered every tool of the MCP profile `calc` → answer. */
export const calculatorSociety = () =>
  graph(
    [input('q'), agent('a', 'Use add: {{ q }}', { tools: [{ mcp: 'calc' }] }), output('answer')],
    [edge('q.value', 'a.q'), edge('a.text', 'answer.value')],
  );

/**
 * A local OpenAI-compatible model that asks the MCP reference server's `echo` to say `message`
 * whenever the conversation holds no tool result yet, and otherwise answers with the last one.
 */
export function startEchoModel(message: string): Promise<StubOpenAI> {
  return startStubOpenAI({
    respond: (body) =>
      lastToolResult(body)
        ? { text: `The server said: ${lastToolResult(body)}` }
        : { text: '', toolCalls: [{ name: 'echo', arguments: { message } }] },
  });
}
