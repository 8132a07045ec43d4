/**
 * The run's one gateway to tools (function calling), beside the calls gateway for models: it
 * opens the sources a node names through `RunOptions.tools`, offers their tools, checks each
 * call's arguments against the tool's JSON Schema, counts calls against the budgets, runs them
 * under the run's limits (concurrency, time, result size), answers them from a cassette or the
 * run's record when it can, makes them up under --simulate, and reports each as an event. Node
 * code only sees `tools` and `callTool` on its context.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolOffer } from '../node-sdk/define.ts';
import { toolKey } from '../providers/cassette-file.ts';
import { valueForSchema } from '../providers/simulated-json.ts';
import type {
  ToolCall,
  ToolDefinition,
  ToolResult,
  ToolSource,
  ToolSourceRef,
} from '../providers/tools.ts';
import { abortError, isAbortError } from '../providers/types.ts';
import type { GraphDocument } from '../schema/document.ts';
import { SIMULATED_PREFIX } from '../schema/simulated.ts';
import { BudgetExceededError } from './budget.ts';
import type { RunEventBody } from './events.ts';
import { graphToolDefinition, graphToolDocument, graphToolResult } from './graph-tools.ts';
import { ProviderLimits } from './limits.ts';
import type { RunOptions } from './run-options.ts';
import { errorMessage } from './values.ts';

export type { ToolOffer };

/** What the gateway needs of its run. */
export interface ToolsSetup {
  options: RunOptions;
  doc: GraphDocument;
  /** The most bytes a result may have (the run's answer limit). */
  answerBytes: number;
  /** Longest one call may take. */
  timeoutMs: number;
  emit: (body: RunEventBody) => void;
  /**
   * Runs a graph as a child of a node instance (`child` names the call's copy, under the
   * instance): what a call to a graph tool does.
   */
  runGraph(
    instance: string,
    child: string,
    document: GraphDocument,
    inputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
}

/** How events and records name a source: `mcp:tools`, `graph:calculator`. */
export function sourceId(ref: ToolSourceRef): string {
  return ref.kind === 'mcp' ? `mcp:${ref.profile}` : `graph:${ref.graph}`;
}

/** Where a tool offered to an instance comes from. */
interface Offered {
  ref: ToolSourceRef;
  source: string;
  definition: ToolDefinition;
  validate: ValidateFunction;
  /** A graph tool's inputs the node gives every call (an image). */
  given?: Record<string, unknown>;
}

export class ToolGateway {
  /** True once any tool result in the run was made up by the simulator. */
  simulatedSeen = false;
  readonly #setup: ToolsSetup;
  #options: RunOptions;
  readonly #ajv = new Ajv({ allErrors: true, strict: false });
  readonly #limits: ProviderLimits;
  /** Each source opened once per run (undefined: a simulated run could not open it). */
  readonly #sources = new Map<string, Promise<ToolSource | undefined>>();
  readonly #lists = new Map<string, Promise<ToolDefinition[]>>();
  /** The tools each instance was offered, by name. */
  readonly #offered = new Map<string, Map<string, Offered>>();
  readonly #callsByInstance = new Map<string, number>();
  readonly #callsByNode = new Map<string, number>();
  #calls = 0;
  /** Closes the sources when the run ends. */
  readonly #closing = new AbortController();

  constructor(setup: ToolsSetup) {
    this.#setup = setup;
    this.#options = setup.options;
    this.#limits = new ProviderLimits(setup.doc.settings?.concurrency, () => undefined);
  }

  /** From now on calls the replayed cassette lacks are made (see `CallsGateway.beyondCassette`). */
  beyondCassette(simulate: boolean): void {
    const cassette = this.#options.cassette;
    if (cassette?.mode !== 'replay') return;
    this.#options = {
      ...this.#options,
      simulate,
      cassette: { ...cassette, mode: 'replay-then-live' },
    };
  }

  /** Tool calls made so far in the run. */
  get calls(): number {
    return this.#calls;
  }

  // ---- offering ---------------------------------------------------------------------------

  /**
   * The tools `instance` is offered: every tool of each source, or those its offer allows.
   * A live run that cannot open a source fails here, naming it; a simulated one is offered no
   * tools of it, and says so in a `tool.error` event.
   */
  async offer(
    node: string,
    instance: string,
    offers: readonly ToolOffer[],
    signal: AbortSignal,
  ): Promise<ToolDefinition[]> {
    const offered = new Map<string, Offered>();
    for (const offer of offers) {
      const source = sourceId(offer.source);
      let tools: ToolDefinition[];
      if (offer.source.kind === 'graph') {
        // A library graph is one tool, read from the document: no source to open or record.
        const tool = graphToolDefinition(this.#setup.doc, this.#options.registry, {
          ...offer,
          source: offer.source,
        });
        if (!tool) throw new Error(`the document's library holds no graph "${offer.source.graph}"`);
        const definition = tool.definition;
        const given = Object.fromEntries(
          tool.given.flatMap((name) =>
            offer.given && Object.hasOwn(offer.given, name) ? [[name, offer.given[name]]] : [],
          ),
        );
        const other = offered.get(definition.name);
        if (other) {
          throw new Error(
            `the tool "${definition.name}" is offered by both ${other.source} and ${source}; give one of them another "name"`,
          );
        }
        offered.set(definition.name, {
          ref: offer.source,
          source,
          definition,
          validate: this.#compile(definition),
          given,
        });
        continue;
      }
      try {
        tools = await this.#list(offer.source, signal);
      } catch (error) {
        if (isAbortError(error) || signal.aborted || !this.#options.simulate) throw error;
        this.#setup.emit({
          type: 'tool.error',
          node,
          instance,
          source,
          error: `the simulated agent is offered no tools of ${source}: ${errorMessage(error)}`,
        });
        continue;
      }
      const allowed = offer.allow ? new Set(offer.allow) : undefined;
      if (allowed && tools.length > 0) {
        const missing = [...allowed].filter((name) => !tools.some((t) => t.name === name));
        if (missing.length > 0) {
          throw new Error(
            `${source} offers no tool ${missing.map((m) => `"${m}"`).join(', ')} (it offers: ${tools.map((t) => t.name).join(', ') || 'none'})`,
          );
        }
      }
      for (const definition of tools) {
        if (allowed && !allowed.has(definition.name)) continue;
        const other = offered.get(definition.name);
        if (other) {
          throw new Error(
            `the tool "${definition.name}" is offered by both ${other.source} and ${source}; allow it from one of them only`,
          );
        }
        offered.set(definition.name, {
          ref: offer.source,
          source,
          definition,
          validate: this.#compile(definition),
        });
      }
    }
    this.#offered.set(instance, offered);
    return [...offered.values()].map((o) => o.definition);
  }

  #compile(definition: ToolDefinition): ValidateFunction {
    try {
      return this.#ajv.compile(definition.parameters);
    } catch (error) {
      throw new Error(
        `the tool "${definition.name}" has a schema that cannot be read: ${errorMessage(error)}`,
      );
    }
  }

  /** A source's tools: from the run's cassette when it holds them, else from the source. */
  #list(
    ref: Extract<ToolSourceRef, { kind: 'mcp' }>,
    signal: AbortSignal,
  ): Promise<ToolDefinition[]> {
    const id = sourceId(ref);
    let list = this.#lists.get(id);
    if (!list) {
      list = (async () => {
        const cassette = this.#options.cassette;
        const recorded = cassette?.mode !== 'record' ? cassette?.cassette.toolList(id) : undefined;
        if (recorded) return recorded;
        if (cassette?.mode === 'replay')
          throw new Error(`${cassette.cassette.source} holds no tools of ${id}`);
        const source = await this.#open(ref, signal);
        const tools = await source.list(signal);
        if (cassette) cassette.cassette.recordToolList(id, tools);
        this.#options.onToolList?.({ source: id, tools });
        return tools;
      })();
      // A failed listing is not kept: the next node to ask tries again.
      list.catch(() => this.#lists.delete(id));
      this.#lists.set(id, list);
    }
    return list;
  }

  #open(ref: Extract<ToolSourceRef, { kind: 'mcp' }>, signal: AbortSignal): Promise<ToolSource> {
    const id = sourceId(ref);
    let opened = this.#sources.get(id);
    if (!opened) {
      const sources = this.#options.tools;
      opened = sources
        ? sources.open(ref, { signal: this.#closing.signal }).catch((error: unknown) => {
            this.#sources.delete(id);
            throw new Error(`cannot open MCP profile "${ref.profile}": ${errorMessage(error)}`);
          })
        : Promise.reject(
            new Error(
              `MCP profile "${ref.profile}" cannot be opened: this run was given no tool sources`,
            ),
          );
      this.#sources.set(id, opened);
    }
    if (signal.aborted) return Promise.reject(abortError(signal.reason));
    return opened as Promise<ToolSource>;
  }

  /** Closes every source the run opened (a stdio server's process ends with it). */
  async close(): Promise<void> {
    this.#closing.abort();
    const opened = [...this.#sources.values()];
    this.#sources.clear();
    await Promise.all(
      opened.map(async (p) => {
        try {
          await (await p)?.close();
        } catch {
          // A source that fails to close has nothing more to give the run.
        }
      }),
    );
  }

  // ---- calling ----------------------------------------------------------------------------

  /**
   * Runs one call a model asked for and gives back what the model reads: the tool's result, or
   * why the call could not run (arguments that are not JSON or break the tool's schema, a tool
   * not offered) as an error result it may correct. A spent budget, a time-out or a source that
   * fails throws: the node fails with it.
   */
  async call(
    node: string,
    instance: string,
    call: ToolCall,
    options: { maxCalls?: number },
    signal: AbortSignal,
  ): Promise<ToolResult> {
    this.#count(node, options.maxCalls);
    const nth = (this.#callsByInstance.get(instance) ?? 0) + 1;
    this.#callsByInstance.set(instance, nth);
    const callId = `${instance}:tool${nth}`;
    const offered = this.#offered.get(instance)?.get(call.name);
    const source = offered?.source ?? 'none';
    const who = { callId, node, instance, source, tool: call.name };
    this.#setup.emit({ type: 'tool.call', ...who, arguments: call.arguments });
    const started = performance.now();
    const done = (result: ToolResult): ToolResult => {
      if (result.source === 'simulated') this.simulatedSeen = true;
      this.#setup.emit({
        type: 'tool.result',
        ...who,
        result: result.content,
        isError: result.isError === true,
        from: result.source,
        simulated: result.source === 'simulated',
        durationMs: Math.round(performance.now() - started),
      });
      return result;
    };
    const refused = (content: string) =>
      done({ content, isError: true, source: this.#options.simulate ? 'simulated' : 'live' });
    if (!offered) {
      const names = [...(this.#offered.get(instance)?.keys() ?? [])];
      return refused(
        `unknown tool "${call.name}"; the tools offered are: ${names.join(', ') || 'none'}`,
      );
    }
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        return refused(`the arguments of "${call.name}" must be a JSON object`);
      args = parsed as Record<string, unknown>;
    } catch (error) {
      return refused(`the arguments of "${call.name}" are not JSON: ${errorMessage(error)}`);
    }
    if (!offered.validate(args)) {
      const problems = (offered.validate.errors ?? [])
        .map((e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is not valid'}`)
        .join('; ');
      return refused(`the arguments of "${call.name}" do not match its schema: ${problems}`);
    }
    try {
      if (offered.ref.kind === 'graph') {
        // A graph tool runs its graph under the instance, whatever the mode: its own model and
        // expert calls are what a cassette answers, records keep and the simulator makes up.
        const outputs = await this.#setup.runGraph(
          instance,
          `${instance}/tool${nth}`,
          graphToolDocument(this.#setup.doc, offered.ref.graph),
          { ...args, ...offered.given },
        );
        const result = graphToolResult(outputs);
        this.#checkSize(call.name, result.content);
        const replayed = this.#options.cassette?.mode === 'replay';
        return done({ ...result, source: replayed ? 'cassette' : 'live' });
      }
      return done(await this.#answer(offered, call.name, args, signal, { callId, node, instance }));
    } catch (error) {
      if (!isAbortError(error) && !signal.aborted) {
        this.#setup.emit({
          type: 'tool.error',
          ...who,
          error: errorMessage(error),
          durationMs: Math.round(performance.now() - started),
        });
      }
      throw error;
    }
  }

  /** Counts a call against the run's and the node's budgets, or throws when one is spent. */
  #count(node: string, maxCalls: number | undefined): void {
    const runMax = this.#setup.doc.settings?.budget?.maxToolCalls;
    if (runMax !== undefined && this.#calls >= runMax) {
      throw new BudgetExceededError(
        `budget exceeded: the run may make at most ${runMax} tool calls (settings.budget.maxToolCalls)`,
      );
    }
    const byNode = this.#callsByNode.get(node) ?? 0;
    if (maxCalls !== undefined && byNode >= maxCalls) {
      throw new BudgetExceededError(
        `budget exceeded: the node may make at most ${maxCalls} tool calls (its maxToolCalls)`,
      );
    }
    this.#calls++;
    this.#callsByNode.set(node, byNode + 1);
  }

  /** The result: recorded, made up, or from the source, and kept in the run's record. */
  async #answer(
    offered: Offered,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    who: { callId: string; node: string; instance: string },
  ): Promise<ToolResult> {
    const request = { source: offered.source, tool, arguments: args };
    const cassette = this.#options.cassette;
    if (cassette && cassette.mode !== 'record') {
      const recorded = cassette.cassette.lookupTool(request, {
        fresh: cassette.mode === 'replay-then-live',
      });
      if (recorded) {
        this.#checkSize(tool, recorded.content);
        return {
          content: recorded.content,
          ...(recorded.structured !== undefined ? { structured: recorded.structured } : {}),
          ...(recorded.isError ? { isError: true } : {}),
          source: recorded.simulated ? 'simulated' : 'cassette',
        };
      }
      if (cassette.mode === 'replay') {
        throw new Error(
          `no recording of the call ${tool}(${JSON.stringify(args)}) to ${offered.source} in ${cassette.cassette.source}`,
        );
      }
    }
    const result = this.#options.simulate
      ? simulatedResult(offered.definition, args)
      : await this.#live(offered, tool, args, signal);
    this.#checkSize(tool, result.content);
    const kept = {
      content: result.content,
      ...(result.structured !== undefined ? { structured: result.structured } : {}),
      ...(result.isError ? { isError: true } : {}),
      ...(result.source === 'simulated' ? { simulated: true } : {}),
    };
    cassette?.cassette.recordTool(request, kept);
    // Kept before the result event: a crash between the two leaves the call in the record, so
    // resuming serves it instead of making it again.
    this.#options.onToolCall?.({ ...who, ...request, result: kept });
    return result;
  }

  async #live(
    offered: Offered,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const id = offered.source;
    if (offered.ref.kind !== 'mcp') throw new Error(`${id} is not called through a tool source`);
    // Opened here when the tools were offered from a record (a resume going live).
    const source = await this.#open(offered.ref, signal);
    const timeoutMs = this.#setup.timeoutMs;
    return this.#limits.queue(id).add(
      async () => {
        const timeout = AbortSignal.timeout(timeoutMs);
        const both = AbortSignal.any([signal, timeout]);
        try {
          return await source.call(tool, args, {
            signal: both,
            maxResultBytes: this.#setup.answerBytes,
          });
        } catch (error) {
          if (timeout.aborted && !signal.aborted) {
            throw new Error(`${id} did not answer the call to "${tool}" within ${timeoutMs} ms`);
          }
          throw error;
        }
      },
      { signal },
    ) as Promise<ToolResult>;
  }

  #checkSize(tool: string, content: string): void {
    const bytes = Buffer.byteLength(content);
    if (bytes > this.#setup.answerBytes) {
      throw new Error(
        `the result of "${tool}" is ${bytes.toLocaleString('en-US')} bytes, more than the run's answer limit of ${this.#setup.answerBytes.toLocaleString('en-US')} (settings.limits.answerBytes)`,
      );
    }
  }
}

/**
 * A made-up result under --simulate: shaped by the tool's output schema when it has one, and
 * labelled, so it can never pass for what the tool would have said. No source is called.
 */
export function simulatedResult(tool: ToolDefinition, args: Record<string, unknown>): ToolResult {
  const hex = toolKey({ source: 'simulated', tool: tool.name, arguments: args });
  let next = 0;
  const draw = (n: number) => {
    const start = (next++ * 4) % hex.length;
    return Number.parseInt(hex.slice(start, start + 4), 16) % Math.max(1, n);
  };
  if (tool.outputSchema) {
    const structured = valueForSchema(tool.outputSchema, {
      say: () => `${SIMULATED_PREFIX}a result of ${tool.name}`,
      draw,
    });
    return {
      content: `${SIMULATED_PREFIX}${JSON.stringify(structured)}`,
      structured,
      source: 'simulated',
    };
  }
  return {
    content: `${SIMULATED_PREFIX}what ${tool.name} would give for ${JSON.stringify(args)}`,
    source: 'simulated',
  };
}
