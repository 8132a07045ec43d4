/**
 * A tool source over an MCP server, through the official SDK's client: a stdio server (a program
 * started for the run, ended when it closes) or a Streamable HTTP one. Like a chat provider it
 * is a dumb transport: one attempt per call; the engine owns retries, limits, events and records.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ToolCallOptions,
  ToolDefinition,
  ToolResult,
  ToolSource,
} from '../providers/tools.ts';
import type { McpProfile } from './profiles.ts';

/** Learns key values so no path out of the process carries them (the run's redactor). */
export interface LearnsSecrets {
  add(secrets: Iterable<string>): void;
}

export interface McpConnectOptions {
  signal: AbortSignal;
  /** Where the variables a profile names are read from (default: the process's). */
  env?: NodeJS.ProcessEnv;
  /** Told every value read for the server's environment or headers, before it is sent. */
  redactor?: LearnsSecrets;
}

/** The client's name and version as a server sees them. */
const CLIENT_INFO = { name: 'society-studio', version: '1' };
/** How much of a stdio server's own error output a failed start quotes. */
const STDERR_TAIL = 600;

/**
 * The values a profile's variables hold, read now: never stored, learned by the redactor
 * before anything is sent (a header's `Bearer …` value is learned whole and without its scheme).
 */
export function readVariables(
  profile: McpProfile,
  env: NodeJS.ProcessEnv,
  redactor?: LearnsSecrets,
): Record<string, string> {
  const pairs = profile.transport === 'stdio' ? profile.env : profile.headers;
  const values: Record<string, string> = {};
  for (const { name, env: variable } of pairs) {
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new Error(`MCP server "${profile.name}": ${variable} is not set (it gives ${name})`);
    }
    redactor?.add([value, ...value.split(/\s+/).filter((part) => part !== value)]);
    values[name] = value;
  }
  return values;
}

/** Connects to the server a profile names and returns it as a tool source (`mcp:NAME`). */
export async function connectMcp(
  profile: McpProfile,
  options: McpConnectOptions,
): Promise<ToolSource> {
  const values = readVariables(profile, options.env ?? process.env, options.redactor);
  // The SDK's client loads with the first server a run opens, not with every command that
  // could open one (a queue's coordinator, whose runs happen on workers, never does).
  const [
    { Client },
    { getDefaultEnvironment, StdioClientTransport },
    { StreamableHTTPClientTransport },
  ] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  let stderr = '';
  let transport: Transport;
  if (profile.transport === 'stdio') {
    // The server gets a minimal environment (PATH, HOME, …) and the values its profile names,
    // never the rest of ours: other keys stay with us.
    const stdio = new StdioClientTransport({
      command: profile.command,
      args: profile.args,
      env: { ...getDefaultEnvironment(), ...values },
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(profile.url), {
      requestInit: { headers: values },
    });
  }
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, { signal: options.signal });
  } catch (error) {
    await client.close().catch(() => {});
    const said = stderr.trim().split('\n').at(-1);
    throw new Error(
      `MCP server "${profile.name}" (${whereOf(profile)}): ${oneLine(error)}${said ? ` (it said: ${said})` : ''}`,
    );
  }
  return new McpToolSource(profile, client);
}

/**
 * A connected server as a run's tool source. Exported for a client connected some other way
 * (the tool benchmark's in-memory server); a run's sources come from `connectMcp`.
 */
export class McpToolSource implements ToolSource {
  readonly id: string;
  readonly #profile: McpProfile;
  readonly #client: Client;
  #closed = false;

  constructor(profile: McpProfile, client: Client) {
    this.id = `mcp:${profile.name}`;
    this.#profile = profile;
    this.#client = client;
  }

  async list(signal: AbortSignal): Promise<ToolDefinition[]> {
    const tools: ToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client
        .listTools(cursor ? { cursor } : {}, { signal })
        .catch((error: unknown) => {
          throw new Error(`MCP server "${this.#profile.name}": listing tools: ${oneLine(error)}`);
        });
      for (const tool of page.tools) tools.push(definitionOf(tool));
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<ToolResult> {
    const result = await this.#client
      .callTool({ name: tool, arguments: args }, undefined, { signal: options.signal })
      .catch((error: unknown) => {
        throw new Error(`MCP server "${this.#profile.name}": ${tool}: ${oneLine(error)}`);
      });
    const out = resultOf(result as McpCallResult);
    const size =
      Buffer.byteLength(out.content) + Buffer.byteLength(JSON.stringify(out.structured ?? null));
    if (options.maxResultBytes !== undefined && size > options.maxResultBytes) {
      throw new Error(
        `MCP server "${this.#profile.name}": ${tool} answered ${size} bytes, over the limit of ${options.maxResultBytes}`,
      );
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Closing a stdio transport ends the server's process.
    await this.#client.close().catch(() => {});
  }
}

type McpTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

/** An MCP tool as a model is offered it: its input schema, its annotations as hints. */
export function definitionOf(tool: McpTool): ToolDefinition {
  const a = tool.annotations;
  const hints: NonNullable<ToolDefinition['hints']> = {};
  if (typeof a?.destructiveHint === 'boolean') hints.destructive = a.destructiveHint;
  if (typeof a?.readOnlyHint === 'boolean') hints.readOnly = a.readOnlyHint;
  if (typeof a?.idempotentHint === 'boolean') hints.idempotent = a.idempotentHint;
  if (typeof a?.openWorldHint === 'boolean') hints.openWorld = a.openWorldHint;
  const description = tool.description ?? tool.title ?? a?.title;
  return {
    name: tool.name,
    ...(description ? { description } : {}),
    parameters: { ...tool.inputSchema },
    ...(Object.keys(hints).length ? { hints } : {}),
  };
}

/** A call's result as MCP gives it (content blocks, structured content, an error flag). */
export interface McpCallResult {
  content?: Array<Record<string, unknown> & { type: string }>;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

/**
 * A call's result as the model reads it: the text blocks joined, other blocks described in a
 * line (an image's type and size, a resource's URI), structured content kept beside them and
 * given as JSON text when there is no text.
 */
export function resultOf(result: McpCallResult): ToolResult {
  const parts: string[] = [];
  for (const block of result.content ?? []) parts.push(describeBlock(block));
  // An older server's `toolResult` stands for its whole answer.
  if (!result.content && result.toolResult !== undefined)
    parts.push(JSON.stringify(result.toolResult));
  let content = parts.join('\n');
  if (content === '' && result.structuredContent !== undefined) {
    content = JSON.stringify(result.structuredContent);
  }
  return {
    content,
    ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
    ...(result.isError ? { isError: true } : {}),
    source: 'live',
  };
}

function describeBlock(block: Record<string, unknown> & { type: string }): string {
  switch (block.type) {
    case 'text':
      return String(block.text ?? '');
    case 'image':
    case 'audio': {
      const bytes = Math.floor((String(block.data ?? '').length * 3) / 4);
      return `[${block.type}: ${String(block.mimeType ?? 'unknown type')}, ${bytes} bytes]`;
    }
    case 'resource': {
      const r = (block.resource ?? {}) as Record<string, unknown>;
      return typeof r.text === 'string'
        ? `[resource ${String(r.uri ?? '')}]\n${r.text}`
        : `[resource ${String(r.uri ?? '')}: ${String(r.mimeType ?? 'binary')}]`;
    }
    case 'resource_link':
      return `[resource link ${String(block.uri ?? '')}${block.name ? ` (${String(block.name)})` : ''}]`;
    default:
      return `[${block.type} content]`;
  }
}

function whereOf(profile: McpProfile): string {
  return profile.transport === 'stdio' ? profile.command : profile.url;
}

function oneLine(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  // fetch says only "fetch failed"; why (ECONNREFUSED, a bad certificate) is in its cause.
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string }) : undefined;
  if (cause && typeof cause === 'object') text += ` (${cause.code ?? cause.message ?? ''})`;
  return text
    .split('\n')[0]!
    .trim()
    .replace(/ \(\)$/, '');
}
