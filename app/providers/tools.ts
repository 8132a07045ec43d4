/**
 * Tools a model may call (function calling), in words every part shares: the providers that
 * offer them to a model and read its calls, the engine that runs a call (events, budget, limits,
 * records, approval), and the sources tools come from (an MCP server, the graph itself). Like
 * chat providers, a tool source is a dumb transport: it makes exactly one attempt; the engine
 * owns everything around the call.
 */

/** A tool as a model is offered it: its name, what it does, the JSON Schema of its arguments. */
export interface ToolDefinition {
  /** Unique among the tools one node is offered (`[A-Za-z0-9_-]{1,64}`, the OpenAI API's rule). */
  name: string;
  description?: string;
  /** A JSON Schema object for the arguments (`{ "type": "object", … }`). */
  parameters: Record<string, unknown>;
  /**
   * A JSON Schema of the structured result, when the tool declares one (MCP's `outputSchema`):
   * a simulated result takes its shape. Never sent to a model.
   */
  outputSchema?: Record<string, unknown>;
  /**
   * What the tool says of itself (MCP's annotations): a destructive tool is asked about before
   * it runs unless a policy says otherwise; a read-only one has no side effect to repeat.
   */
  hints?: { destructive?: boolean; readOnly?: boolean; idempotent?: boolean; openWorld?: boolean };
}

/** A call a model asked for. `arguments` is the JSON text it wrote, which may not parse. */
export interface ToolCall {
  /** The model's id for the call, echoed in the tool message that answers it. */
  id: string;
  name: string;
  arguments: string;
}

/** What a tool gave back. */
export interface ToolResult {
  /** The result as the model reads it: text (structured content as JSON text). */
  content: string;
  /** Structured content, when the tool gives some (MCP's `structuredContent`). */
  structured?: unknown;
  /** The tool itself reported a failure (MCP's `isError`): the model reads it and may try again. */
  isError?: boolean;
  /** Where the result came from: the tool, a record, or made up under `--simulate`. */
  source: 'live' | 'cassette' | 'simulated';
}

export interface ToolCallOptions {
  signal: AbortSignal;
  /** Largest result accepted, in bytes (the run's answer limit); past it the call fails. */
  maxResultBytes?: number;
}

/**
 * Where a node's tools come from, one per source and run: an MCP server profile (`mcp:NAME`),
 * the graph's own nodes offered as tools. Opened by the run, listed once, closed with the run.
 */
export interface ToolSource {
  /** How events and records name the source: `mcp:tools`. */
  readonly id: string;
  /** The tools it offers. */
  list(signal: AbortSignal): Promise<ToolDefinition[]>;
  /** Runs one call with arguments already checked against the tool's schema. */
  call(tool: string, args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolResult>;
  /** Ends the session (stops a stdio server's process); called once, when the run ends. */
  close(): Promise<void>;
}

/**
 * A source of tools as a node's data names it: an MCP server profile of the user's settings
 * (`{ "mcp": "NAME" }` in an agent's `tools`; a document names profiles only, never a command
 * line or a URL), or a graph of the document's library offered as one tool (`{ "graph": "NAME" }`),
 * which the engine runs itself as a child graph of the calling instance.
 */
export type ToolSourceRef = { kind: 'mcp'; profile: string } | { kind: 'graph'; graph: string };

/**
 * What opens a run's tool sources, handed to the engine by whoever starts the run (the CLI, the
 * API, an eval worker), as it is handed its expert providers: the core reaches no tool code of
 * its own. One source per reference and run, closed when the run ends.
 */
export interface ToolSources {
  open(
    ref: Extract<ToolSourceRef, { kind: 'mcp' }>,
    options: { signal: AbortSignal },
  ): Promise<ToolSource>;
  /**
   * The user's policy for one of a source's tools (an MCP profile's `tools` entry, else its
   * `policy`), read from settings without opening anything; undefined when they set none.
   */
  policy?(ref: ToolSourceRef, tool: string): ToolPolicy | undefined;
}

/**
 * Whether a tool runs when a model calls it: `allow` runs it, `ask` holds the run before the
 * call until a person continues (perhaps with edited arguments) or denies it, `deny` never
 * offers it. Without a setting a tool is allowed, or asked about when it says it is destructive.
 */
export type ToolPolicy = 'allow' | 'ask' | 'deny';

/** The policies, in the order a setting lists them. */
export const TOOL_POLICIES: readonly ToolPolicy[] = ['allow', 'ask', 'deny'];
