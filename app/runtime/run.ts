/**
 * A run's lifecycle: it starts at once, runs a compiled graph's XState machine (and the graphs
 * its nodes run as children), can be paused, stepped, edited at a checkpoint or cancelled, and
 * settles `result` when it ends, however it ends. The work is done by the modules beside it:
 * the node runner, the calls gateway, the loops, the event log.
 */

import { createActor } from 'xstate';
import type { PlannedNode } from '../compiler/analyze.ts';
import { type CompiledGraph, compileGraph } from '../compiler/index.ts';
import { DEFAULT_PRICES } from '../costs/prices.ts';
import type { NodeOutputs, TranscriptEntry } from '../node-sdk/define.ts';
import { DEFAULT_RETRY_POLICY } from '../providers/retry.ts';
import { isAbortError } from '../providers/types.ts';
import type { GraphDocument } from '../schema/document.ts';
import { resolveLimits } from '../schema/limits.ts';
import { BlobStore } from './blobs.ts';
import { Budget } from './budget.ts';
import { CallsGateway } from './calls.ts';
import { type Breakpoint, DebugGate, type StepKind } from './debugger.ts';
import { EventLog } from './event-log.ts';
import type {
  Checkpoint,
  RunEvent,
  RunMode,
  RunStatus,
  ToolResultEditor,
  Usage,
} from './events.ts';
import { checkRunInputs, collectRunOutputs } from './inputs.ts';
import { nodeOfInstance } from './instance-id.ts';
import { Loops } from './loops.ts';
import {
  buildRunMachine,
  type EngineHooks,
  type NodeValues,
  type ScopeContext,
} from './machine-runtime.ts';
import { NodeRunner } from './node-runner.ts';
import { originsMessage, unallowedOrigins } from './origins.ts';
import { preflight, preflightMessage, preflightRefuses } from './preflight.ts';
import type { RunOptions, RunResult } from './run-options.ts';
import { ToolGateway } from './tools.ts';
import { errorMessage, previewValues } from './values.ts';

type Listener = (event: RunEvent) => void;

let runCounter = 0;

/** Starts a run at once; `run.result` settles when it ends (it never rejects). */
export function startRun(compiled: CompiledGraph, options: RunOptions): Run {
  return new Run(compiled, options);
}

export class Run {
  readonly id: string;
  readonly result: Promise<RunResult>;
  readonly blobs: BlobStore;
  #mode: RunMode;
  /** The mode the run started in, as its `run.started` event says. */
  readonly #startMode: RunMode;

  readonly #compiled: CompiledGraph;
  readonly #options: RunOptions;
  readonly #abort = new AbortController();
  readonly #log: EventLog;
  readonly #gate: DebugGate;
  readonly #budget: Budget;
  readonly #calls: CallsGateway;
  readonly #tools: ToolGateway;
  readonly #loops: Loops;
  readonly #runner: NodeRunner;
  /** Graphs nodes run as their children, by instance prefix, with their input values. */
  readonly #children = new Map<
    string,
    { compiled: CompiledGraph; inputs: Record<string, unknown> }
  >();
  readonly #started = performance.now();
  #error: string | undefined;
  #cancelled = false;
  /** Aborted when the run ends however it ends, so no task outlives it. */
  readonly #tasks = new AbortController();

  constructor(compiled: CompiledGraph, options: RunOptions) {
    this.#compiled = compiled;
    this.#options = options;
    this.id = options.runId ?? `run-${Date.now().toString(36)}-${(runCounter++).toString(36)}`;
    this.blobs = options.blobs ?? new BlobStore();
    const settings = compiled.doc.settings ?? {};
    const seed = String(settings.seed ?? 0);
    const limits = resolveLimits(settings.limits);
    this.#budget = new Budget(settings.budget ?? {});
    const cassetteMode = options.cassette?.mode;
    this.#mode =
      cassetteMode === 'replay-then-live' && options.simulate
        ? 'replay-then-simulated'
        : (cassetteMode ?? (options.simulate ? 'simulated' : 'live'));
    this.#startMode = this.#mode;
    // The redactor is kept even with no key known yet: the studio's learns keys entered while a
    // run goes on.
    this.#log = new EventLog(this.id, options.redactor, (event) => {
      if (this.#gate.pausesOn(event)) this.#gate.pause();
    });
    const emit = this.#log.emit.bind(this.#log);
    this.#gate = new DebugGate({
      onPause: (reason, at) => emit({ type: 'paused', reason, at }),
      onResume: () => emit({ type: 'resumed' }),
    });
    this.#gate.setBreakpoints(options.breakpoints ?? []);
    if (options.startPaused) this.#gate.pause();
    this.#calls = new CallsGateway({
      options,
      doc: compiled.doc,
      budget: this.#budget,
      prices: options.prices ?? DEFAULT_PRICES,
      retry: {
        ...DEFAULT_RETRY_POLICY,
        ...(settings.retry ?? {}),
        ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
        ...(options.retry ?? {}),
      },
      answerBytes: limits.answerBytes,
      imagePixels: limits.imagePixels,
      blobs: this.blobs,
      emit,
    });
    this.#tools = new ToolGateway({
      options,
      // With nodes wired as tools, the library holding the graphs they are offered as.
      doc: compiled.plan.toolDoc ?? compiled.doc,
      answerBytes: limits.answerBytes,
      // A tool's own limit when the document sets one, else the per-call timeout, else 60 s.
      timeoutMs: settings.limits?.toolMs ? limits.toolMs : (settings.timeoutMs ?? limits.toolMs),
      emit,
      hold: (at) => this.#gate.check(at),
      runGraph: (instance, child, document, inputs) => {
        const node = this.#plannedNode(instance);
        if (!node) throw new Error(`no node runs as ${instance}`);
        return this.#runChild(node, child, document, inputs);
      },
    });
    const graphOf = (context: Pick<ScopeContext, 'graph'>) => {
      const child = context.graph ? this.#children.get(context.graph) : undefined;
      return child
        ? { plan: child.compiled.plan, inputs: child.inputs }
        : { plan: this.#compiled.plan };
    };
    this.#loops = new Loops({
      registry: options.registry,
      seed,
      emit,
      planOf: (context) => graphOf(context).plan,
    });
    this.#runner = new NodeRunner({
      options,
      log: this.#log,
      gate: this.#gate,
      calls: this.#calls,
      tools: this.#tools,
      loops: this.#loops,
      blobs: this.blobs,
      seed,
      limits,
      signal: this.#abort.signal,
      graphOf,
      runChild: (node, instance, document, inputs) =>
        this.#runChild(node, instance, document, inputs),
      fail: (message) => {
        if (!this.#cancelled) this.#error ??= message;
      },
    });
    if (options.signal) {
      // A signal that is already aborted cancels the run before it starts: same status and
      // message as a cancel() while running, never a failure.
      if (options.signal.aborted) {
        this.#cancelled = true;
        this.#abort.abort(options.signal.reason);
      } else options.signal.addEventListener('abort', () => this.cancel(), { once: true });
    }
    if (options.continueFrom) this.#log.adopt(options.continueFrom);
    this.result = this.#run();
  }

  // ---- control -------------------------------------------------------------------------

  /** How its calls are answered (see `answerBeyondCassette`, which changes it). */
  get mode(): RunMode {
    return this.#mode;
  }

  /**
   * Lets a replay go beyond its cassette: from now on a call the cassette lacks is answered by
   * the simulator or a live model instead of failing the run. An edit under a replay needs it,
   * since every request after the edit changes. The run's mode becomes
   * 'replay-then-simulated' or 'replay-then-live' (said again when it finishes).
   */
  answerBeyondCassette(by: 'simulated' | 'live'): void {
    if (this.#mode !== 'replay')
      throw new Error(`the run is not a replay (its mode: ${this.#mode})`);
    this.#calls.beyondCassette(by === 'simulated');
    this.#tools.beyondCassette(by === 'simulated');
    this.#mode = by === 'simulated' ? 'replay-then-simulated' : 'replay-then-live';
  }

  /** Every event so far, oldest first. */
  get events(): RunEvent[] {
    return this.#log.events;
  }

  /** Subscribes to events; past events are replayed first so no subscriber misses any. */
  subscribe(listener: Listener, options: { replay?: boolean } = {}): () => void {
    return this.#log.subscribe(listener, options);
  }

  /** Stops the run: in-flight model calls are aborted and nothing new starts. */
  cancel(): void {
    if (this.#abort.signal.aborted) return;
    this.#cancelled = true;
    this.#abort.abort(new DOMException('run cancelled', 'AbortError'));
    this.#gate.resume();
  }

  pause(): void {
    this.#gate.pause();
  }

  resume(): void {
    this.#gate.resume();
  }

  step(kind: StepKind = 'node'): void {
    this.#gate.step(kind);
  }

  setBreakpoints(breakpoints: Breakpoint[]): void {
    this.#gate.setBreakpoints(breakpoints);
  }

  get breakpoints(): Breakpoint[] {
    return this.#gate.breakpoints;
  }

  /** Where the run is held, oldest first (empty while it runs). */
  get waitingAt(): Checkpoint[] {
    return this.#gate.waitingAt;
  }

  /**
   * Sets what a node instance held before it starts (see `waitingAt`) produces: when the run
   * goes on it is not executed, and these values are its outputs (a `text` output is also sent
   * as its message).
   */
  overrideOutput(instance: string, outputs: NodeOutputs): void {
    const held = this.#gate.waitingAt.some((at) => at.kind === 'node' && at.instance === instance);
    if (!held) throw new Error(`node ${instance} is not waiting to start`);
    this.#runner.override(instance, outputs);
  }

  /**
   * Replaces the text of a message held at its checkpoint (see `waitingAt`); when the run goes
   * on, the edit is delivered, enters the transcript and becomes the node's output.
   */
  editMessage(instance: string, text: string): void {
    const held = this.#gate.waitingAt.some(
      (at) => at.kind === 'message' && at.instance === instance,
    );
    if (!held) throw new Error(`no message from ${instance} is waiting to be delivered`);
    const node = this.#plannedNode(instance);
    if (node && !node.ports.outputs.some((p) => p.name === 'text')) {
      throw new Error(
        `${instance}'s message reports on its work (its outputs: ${node.ports.outputs.map((p) => p.name).join(', ')}); editing it would change nothing it produces`,
      );
    }
    this.#runner.editMessage(instance, text);
  }

  /**
   * Changes the arguments of a tool call held before it runs (JSON text, checked against the
   * tool's schema): the tool receives them, and its events say they were edited.
   */
  editToolCall(callId: string, args: string): void {
    this.#tools.editHeld(callId, args);
  }

  /**
   * Replaces the result of a tool call held after it returned, before the model reads it: the
   * model reads `text`; the `tool.result` event keeps the tool's own and says who changed it.
   */
  editToolResult(callId: string, text: string, by: ToolResultEditor): void {
    this.#tools.editHeldResult(callId, text, by);
  }

  /** Denies a tool call held before it runs: the tool never runs; the model reads the denial. */
  denyToolCall(callId: string): void {
    this.#tools.denyHeld(callId);
  }

  /** The planned node an instance id belongs to, in the run's graph or a plan it runs. */
  #plannedNode(instance: string): PlannedNode | undefined {
    // The longest child graph's prefix it starts with; ids of sub-society members hold `/` too.
    let prefix = '';
    for (const key of this.#children.keys()) {
      if (instance.startsWith(key) && key.length > prefix.length) prefix = key;
    }
    const compiled = this.#children.get(prefix)?.compiled ?? this.#compiled;
    return nodeOfInstance(compiled.plan.nodes, instance.slice(prefix.length));
  }

  get paused(): boolean {
    return this.#gate.paused;
  }

  get usage(): Usage {
    return { ...this.#budget.usage };
  }

  /**
   * The transcript of a loop: by loop id, by instance id inside a replicated group, or as
   * `inner@r2` for a loop entered in round 2 of another (that entry's transcript).
   */
  transcript(loop: string): TranscriptEntry[] {
    return this.#loops.transcript(loop);
  }

  /** Milliseconds since the run started. */
  get elapsedMs(): number {
    return performance.now() - this.#started;
  }

  /**
   * The mode the log's `run.started` says: a fork's or a resume's is the one it kept from the
   * run it continues (a replay's, say), so its end says the mode it ran in when that differs.
   */
  #loggedStartMode(): RunMode {
    const started = this.#log.events.find((e) => e.type === 'run.started');
    return started?.type === 'run.started' ? started.mode : this.#startMode;
  }

  // ---- the run -------------------------------------------------------------------------

  async #run(): Promise<RunResult> {
    const { doc, plan } = this.#compiled;
    await Promise.resolve(); // let callers subscribe before the first event
    this.#log.emit({
      type: 'run.started',
      graph: doc.name,
      inputs: previewValues(this.#options.inputs ?? {}),
      mode: this.#startMode,
      ...(Object.keys(plan.params).length ? { params: { ...plan.params } } : {}),
    });
    let status: RunStatus = 'succeeded';
    let values: Record<string, NodeValues> = {};
    try {
      checkRunInputs(plan, this.#options.inputs ?? {});
      this.#preflight();
      if (plan.nodes.size > 0) {
        await this.#loops.load(plan);
        values = await this.#runMachine(this.#compiled, { path: '' });
      }
    } catch (error) {
      status = this.#cancelled ? 'cancelled' : 'failed';
      if (!this.#cancelled) this.#error ??= errorMessage(error);
    }
    if (this.#cancelled) status = 'cancelled';
    this.#tasks.abort();
    await this.#tools.close();
    const outputs = collectRunOutputs(plan, values);
    this.#log.emit({
      type: 'run.finished',
      status,
      outputs: previewValues(outputs),
      usage: this.usage,
      ...(this.#mode !== this.#loggedStartMode() ? { mode: this.#mode } : {}),
      ...(status === 'failed' && this.#error ? { error: this.#error } : {}),
      ...(status === 'cancelled' ? { error: 'cancelled' } : {}),
    });
    const result: RunResult = {
      runId: this.id,
      status,
      outputs,
      usage: this.usage,
      simulated: this.#calls.simulatedSeen || this.#tools.simulatedSeen,
      ...(status === 'failed'
        ? { error: this.#error }
        : status === 'cancelled'
          ? { error: 'cancelled' }
          : {}),
    };
    return this.#options.redactor ? this.#options.redactor.apply(result) : result;
  }

  /**
   * Fails the run before its first call when a key any node can use is missing, or when a node
   * would contact an origin the user has not allowed: callers check first (to refuse before a
   * run is recorded), and this keeps any other caller as safe.
   */
  #preflight(): void {
    const o = this.#options;
    const check = preflight(this.#compiled.plan, {
      ...(o.env ? { env: o.env } : {}),
      ...(o.providerOverrides ? { providerOverrides: o.providerOverrides } : {}),
      simulate: o.simulate === true,
      ...(o.cassette ? { cassetteMode: o.cassette.mode } : {}),
      chatInjected: o.providerFor !== undefined,
      expertInjected: o.expertProviderFor !== undefined,
    });
    if (preflightRefuses(check)) throw new Error(preflightMessage(check, 'cli'));
    // Outside hosts the document's nodes contact need the user's leave, whatever the mode: a
    // replay answers model calls from its cassette but still reaches a simulator.
    const refused = unallowedOrigins(this.#compiled.plan, o.allowedOrigins ?? []);
    if (refused.length) throw new Error(originsMessage(refused, 'cli'));
  }

  #runMachine(
    compiled: CompiledGraph,
    scope: Pick<ScopeContext, 'path' | 'graph'>,
  ): Promise<Record<string, NodeValues>> {
    const machine = buildRunMachine(compiled, this.#hooks);
    return new Promise((resolve, reject) => {
      // An abort before this point fired no listener: do not start at all.
      if (this.#abort.signal.aborted) {
        reject(new DOMException('run cancelled', 'AbortError'));
        return;
      }
      const initial: ScopeContext = {
        ...scope,
        bindings: {},
        values: {},
        replicas: {},
        started: {},
        loops: {},
      };
      const actor = createActor(machine, { input: initial });
      const onAbort = () => {
        actor.stop();
        reject(new DOMException('run cancelled', 'AbortError'));
      };
      this.#abort.signal.addEventListener('abort', onAbort, { once: true });
      actor.subscribe({
        complete: () => {
          this.#abort.signal.removeEventListener('abort', onAbort);
          const snapshot = actor.getSnapshot();
          if (snapshot.value === 'failed') reject(new Error(this.#error ?? 'the run failed'));
          else resolve(snapshot.context.values);
        },
        error: (error) => {
          this.#abort.signal.removeEventListener('abort', onAbort);
          this.#error ??= errorMessage(error);
          reject(error);
        },
      });
      actor.start();
    });
  }

  /** The engine's side of the machine: what actors, guards and actions call. */
  readonly #hooks: EngineHooks = {
    startTask: (node, context, replica, report) => {
      const tasks = this.#tasks.signal;
      this.#runner.runNode(node, context, replica, tasks).then(
        (output) => {
          if (!tasks.aborted)
            report({
              type: 'task.done',
              node,
              output,
              ...(replica === undefined ? {} : { replica }),
            });
        },
        (error: unknown) => {
          if (!tasks.aborted) report({ type: 'task.failed', node, error });
        },
      );
    },
    loopBegin: (loop, context, round) => this.#loops.begin(loop, context, round),
    loopEnd: (loop, context, state) => this.#loops.end(loop, context, state),
    step: (loop, step, context, signal) =>
      this.#loops.step(loop, step, context, signal, {
        runNode: (id, ctx, replica, s, phase) => this.#runner.runNode(id, ctx, replica, s, phase),
        render: (template, vars, field, s) => this.#runner.render(template, vars, field, s),
      }),
    loopOutputs: (loop, context) => this.#loops.outputs(loop, context),
    fail: (_node, error) => {
      if (!this.#cancelled) this.#error ??= errorMessage(error);
    },
  };

  // ---- child graphs --------------------------------------------------------------------

  /**
   * Runs a graph as a child of a node instance, in this run: its nodes are scheduled by a
   * machine of their own, their instance ids start with `<instance>/`, and their events, model
   * and expert calls are this run's (recorded, replayed, resumed and budgeted like any other).
   */
  async #runChild(
    node: PlannedNode,
    instance: string,
    document: GraphDocument,
    inputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const compiled = await compileGraph(document, this.#options.registry);
    if (!compiled.ok) {
      throw new Error(
        `the graph cannot run: ${compiled.problems.map((p) => p.message).join('; ')}`,
      );
    }
    const prefix = `${instance}/`;
    if (this.#children.has(prefix)) throw new Error(`${instance} already runs a graph`);
    this.#children.set(prefix, { compiled, inputs });
    const finished = { type: 'subgraph.finished', node: node.id, instance } as const;
    this.#log.emit({ type: 'subgraph.started', node: node.id, instance, document, prefix });
    let values: Record<string, NodeValues>;
    try {
      await this.#loops.load(compiled.plan);
      values = await this.#runMachine(compiled, { path: prefix, graph: prefix });
    } catch (error) {
      if (!isAbortError(error)) {
        this.#log.emit({ ...finished, outputs: {}, error: errorMessage(error) });
      }
      throw error;
    }
    const outputs = collectRunOutputs(compiled.plan, values);
    this.#log.emit({ ...finished, outputs: previewValues(outputs) });
    return outputs;
  }
}
