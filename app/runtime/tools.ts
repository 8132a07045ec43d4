/**
 * The run's one gateway to tools (function calling), beside the calls gateway for models: it
 * opens the sources a node names through `RunOptions.tools`, offers their tools, checks each
 * call's arguments against the tool's JSON Schema, counts calls against the budgets, runs them
 * under the run's limits (concurrency, time, result size), answers them from a cassette or the
 * run's record when it can, makes them up under --simulate, and reports each as an event. Node
 * code only sees `tools` and `callTool` on its context.
 */
import type { ValidateFunction } from 'ajv';
import { graphToolDocument } from '../compiler/tool-graphs.ts';
import type { ToolOffer } from '../node-sdk/define.ts';
import type {
  ToolCall,
  ToolDefinition,
  ToolPolicy,
  ToolResult,
  ToolSource,
  ToolSourceRef,
} from '../providers/tools.ts';
import { abortError, isAbortError } from '../providers/types.ts';
import type { GraphDocument } from '../schema/document.ts';
import { BudgetExceededError } from './budget.ts';
import type { RunEventBody, ToolResultEditor } from './events.ts';
import { graphToolDefinition, graphToolResult } from './graph-tools.ts';
import { ProviderLimits } from './limits.ts';
import type { RunOptions } from './run-options.ts';
import { approvedTool, toolLabel, toolPolicy, unansweredLine } from './tool-approval.ts';
import { ArgumentChecker, checkArguments, simulatedResult, sourceId } from './tool-calls.ts';
import {
  knownResultEdit,
  type ResultEditFields,
  type ToolCheckpoint,
  ToolHolds,
  type ToolResultCheckpoint,
} from './tool-holds.ts';
import { errorMessage } from './values.ts';

export { simulatedResult, sourceId } from './tool-calls.ts';
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
   * The debugger's checkpoints before each call and after it returned: resolves when the run may
   * go on. A call whose tool asks first is held before it until a person lets it go.
   */
  hold?: (at: ToolCheckpoint | ToolResultCheckpoint) => Promise<void>;
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

export type { ToolCheckpoint } from './tool-holds.ts';

/** Where a tool offered to an instance comes from. */
interface Offered {
  ref: ToolSourceRef;
  source: string;
  definition: ToolDefinition;
  validate: ValidateFunction;
  policy: ToolPolicy;
  /** A graph tool's inputs the node gives every call (an image). */
  given?: Record<string, unknown>;
}

export class ToolGateway {
  /** True once any tool result in the run was made up by the simulator. */
  simulatedSeen = false;
  readonly #setup: ToolsSetup;
  #options: RunOptions;
  readonly #checker = new ArgumentChecker();
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
  /** Calls held at the debugger before they run or after they returned. */
  readonly #holds: ToolHolds;

  constructor(setup: ToolsSetup) {
    this.#setup = setup;
    this.#options = setup.options;
    this.#limits = new ProviderLimits(setup.doc.settings?.concurrency, () => undefined);
    this.#holds = new ToolHolds(setup.answerBytes);
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
        // The graph's own tool: the document's policy holds (else allow).
        const policy = toolPolicy(offer, definition, this.#options.tools);
        if (policy === 'deny') continue;
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
          validate: this.#checker.compile(definition),
          policy,
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
        const policy = toolPolicy(offer, definition, this.#options.tools);
        // A denied tool is never offered: the model cannot ask for it.
        if (policy === 'deny') continue;
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
          validate: this.#checker.compile(definition),
          policy,
        });
      }
    }
    this.#refuseUnanswered(offered);
    this.#offered.set(instance, offered);
    return [...offered.values()].map((o) => o.definition);
  }

  /** Whether a call to this tool waits for a person before it runs. */
  #asks(offered: Offered): boolean {
    return (
      offered.policy === 'ask' &&
      !approvedTool(this.#options.toolApproval?.approved, offered.ref, offered.definition.name)
    );
  }

  /**
   * A run no one can answer (no debugger attached) fails before its agent asks anything when
   * it is offered a tool that would wait for a person. A simulated run or a strict replay calls
   * no tool, so it asks nothing.
   */
  #refuseUnanswered(offered: Map<string, Offered>): void {
    if (this.#options.toolApproval?.interactive || !this.#reachesTools) return;
    const asked = [...offered.values()]
      .filter((o) => this.#asks(o))
      .map((o) => toolLabel(o.ref, o.definition.name));
    if (asked.length > 0) throw new Error(unansweredLine(asked));
  }

  /** Whether calls the record lacks reach their tools. */
  get #reachesTools(): boolean {
    return !this.#options.simulate && this.#options.cassette?.mode !== 'replay';
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
    let announced = false;
    /** The `tool.call` event, with the arguments the tool is sent (said once). */
    const announce = (args: string, edited = false) => {
      if (announced) return;
      announced = true;
      this.#setup.emit({
        type: 'tool.call',
        ...who,
        arguments: args,
        ...(edited ? { edited: true as const } : {}),
      });
    };
    const started = performance.now();
    const done = (
      result: ToolResult,
      denied = false,
      edit?: ResultEditFields,
      durationMs = Math.round(performance.now() - started),
    ): ToolResult => {
      if (result.source === 'simulated') this.simulatedSeen = true;
      this.#setup.emit({
        type: 'tool.result',
        ...who,
        result: result.content,
        isError: result.isError === true,
        from: result.source,
        simulated: result.source === 'simulated',
        durationMs,
        ...(denied ? { denied: true as const } : {}),
        ...edit,
      });
      return result;
    };
    const refused = (content: string, args = call.arguments) => {
      announce(args);
      return done({
        content,
        isError: true,
        source: this.#options.simulate ? 'simulated' : 'live',
      });
    };
    const denied = (args: string) => {
      announce(args);
      return done(
        {
          content: `the call to "${call.name}" was denied by the person running the society`,
          isError: true,
          source: 'live',
        },
        true,
      );
    };
    if (!offered) {
      const names = [...(this.#offered.get(instance)?.keys() ?? [])];
      return refused(
        `unknown tool "${call.name}"; the tools offered are: ${names.join(', ') || 'none'}`,
      );
    }
    const parsed = checkArguments(offered, call.arguments);
    if (typeof parsed === 'string') return refused(parsed);
    let args = parsed;
    let text = call.arguments;
    let edited = false;
    // A replay or fork of a run a person changed at the debugger changes it again.
    const known = this.#options.toolEdits?.[callId];
    const knownResult = knownResultEdit(known);
    let edit = known && ('denied' in known || known.arguments !== undefined) ? known : undefined;
    if (!edit && this.#setup.hold) {
      const asks = this.#asks(offered) && this.#wouldCall(offered, args);
      if (asks && !this.#options.toolApproval?.interactive) {
        throw new Error(unansweredLine([toolLabel(offered.ref, call.name)]));
      }
      edit = await this.#holds.beforeCall(
        { kind: 'tool', ...who, arguments: text, ...(asks ? { ask: true as const } : {}) },
        (t) => checkArguments(offered, t),
        this.#setup.hold,
        signal,
      );
    }
    if (edit && 'denied' in edit) return denied(text);
    if (edit?.arguments !== undefined) {
      const again = checkArguments(offered, edit.arguments);
      if (typeof again === 'string') return refused(again, edit.arguments);
      args = again;
      text = edit.arguments;
      edited = true;
    }
    announce(text, edited);
    /** The tool returned: the debugger may hold here, and a person replace what the model reads. */
    const returned = async (result: ToolResult): Promise<ToolResult> => {
      const durationMs = Math.round(performance.now() - started);
      const settled = await this.#holds.settle(
        { ...who, arguments: text },
        result,
        knownResult,
        this.#setup.hold,
        signal,
      );
      return done(settled.result, false, settled.edit, durationMs);
    };
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
        return await returned({ ...result, source: replayed ? 'cassette' : 'live' });
      }
      return await returned(
        await this.#answer(offered, call.name, args, signal, { callId, node, instance }),
      );
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

  /** Whether the call would reach its tool: not simulated, and not answered from a record. */
  #wouldCall(offered: Offered, args: Record<string, unknown>): boolean {
    if (!this.#reachesTools) return false;
    const cassette = this.#options.cassette;
    if (!cassette || cassette.mode === 'record') return true;
    const request = { source: offered.source, tool: offered.definition.name, arguments: args };
    return !cassette.cassette.holdsTool(request, { fresh: cassette.mode === 'replay-then-live' });
  }

  /** Changes the arguments of a call held before it runs (see `ToolHolds.editCall`). */
  editHeld(callId: string, argumentsText: string): void {
    this.#holds.editCall(callId, argumentsText);
  }

  /** Replaces the result of a call held after it returned (see `ToolHolds.editResult`). */
  editHeldResult(callId: string, text: string, by: ToolResultEditor): void {
    this.#holds.editResult(callId, text, by);
  }

  /** Denies a call held before it runs: the tool never runs, the model reads why. */
  denyHeld(callId: string): void {
    this.#holds.denyCall(callId);
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
