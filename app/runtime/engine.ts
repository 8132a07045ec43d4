/**
 * The run engine: runs a compiled graph's XState machine and does the work its states ask for.
 * It owns everything around a node's execution: input resolution, the event log, model calls
 * (budget, per-provider concurrency, retries, timeouts, cassettes), the debugger gate, the
 * mindstorm transcript and rights, cancellation.
 */
import PQueue from 'p-queue';
import { createActor } from 'xstate';
import type { InputBinding, PlannedNode } from '../compiler/analyze.ts';
import { type CompiledGraph, compileGraph } from '../compiler/index.ts';
import { DEFAULT_MAX_TOKENS } from '../costs/estimate.ts';
import { callCost, DEFAULT_PRICES, type PriceTable } from '../costs/prices.ts';
import {
  createExpertProvider,
  ExpertCassetteProvider,
  LocalExpertProvider,
  SimulatedExpertProvider,
} from '../experts/providers.ts';
import {
  type ExpertProvider,
  type ExpertRequest,
  type ExpertResult,
  isBinaryValue,
} from '../experts/types.ts';
import type {
  ExpertAnswer,
  ExpertCall,
  LoopView,
  ModelCall,
  NodeContext,
  NodeOutputs,
  TranscriptEntry,
} from '../nodes/define.ts';
import type { LoopRuntime, LoopStepContext, LoopStepResult } from '../nodes/loop.ts';
import type { NodeRegistry } from '../nodes/registry.ts';
import { isBlobValue, isImageValue } from '../nodes/template.ts';
import { type Cassette, type CassetteMode, CassetteProvider } from '../providers/cassette.ts';
import {
  createChatProvider,
  type Env,
  type ProfileOverride,
  resolveProviderProfile,
} from '../providers/registry.ts';
import { callWithRetry, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../providers/retry.ts';
import type { Redactor } from '../providers/secrets.ts';
import { SimulatedProvider } from '../providers/simulated.ts';
import { estimatePromptTokens } from '../providers/text.ts';
import {
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  isAbortError,
} from '../providers/types.ts';
import type { GraphDocument, Stage } from '../schema/document.ts';
import { type RunLimits, resolveLimits } from '../schema/limits.ts';
import { parseModality } from '../schema/modality.ts';
import { BlobStore } from './blobs.ts';
import { Budget } from './budget.ts';
import { type Breakpoint, DebugGate, type StepKind } from './debugger.ts';
import type { Checkpoint, RunEvent, RunEventBody, RunMode, RunStatus, Usage } from './events.ts';
import { formatPosition, loopKey, outerSegments } from './loop-position.ts';
import {
  buildRunMachine,
  type LoopState,
  type NodeValues,
  roundsPort,
  type ScopeContext,
  type TaskEvent,
} from './machine-runtime.ts';
import { seededRandom } from './random.ts';
import { renderNodeTemplate } from './template-pool.ts';

export interface RunOptions {
  registry: NodeRegistry;
  /** Values for input nodes by name; images as `{ $image, mime }` references in `blobs`. */
  inputs?: Record<string, unknown>;
  /** Answers for human nodes by name; otherwise `askHuman` is called. */
  humanAnswers?: Record<string, string>;
  askHuman?: (request: { node: string; name: string; prompt: string }) => Promise<string>;
  blobs?: BlobStore;
  /** Every model call goes to the simulated provider. */
  simulate?: boolean;
  /** Answer calls from a cassette; `record` also writes new calls into it. */
  cassette?: { cassette: Cassette; mode: CassetteMode };
  /** Overrides provider creation (tests, or the desktop app's vault-backed providers). */
  providerFor?: (providerName: string) => ChatProvider;
  providerOverrides?: Record<string, ProfileOverride>;
  env?: Env;
  /** Overrides the document's retry settings. */
  retry?: Partial<RetryPolicy>;
  breakpoints?: Breakpoint[];
  /** Start paused: the first checkpoint holds until resume or step. */
  startPaused?: boolean;
  signal?: AbortSignal;
  runId?: string;
  /** Prices per model for costs and money budgets (default: DEFAULT_PRICES). */
  prices?: PriceTable;
  /** Injected for deterministic retry jitter in tests. */
  random?: () => number;
  /**
   * Continue from an earlier log (a resume after a crash, or the part of a parent run a fork
   * keeps). The graph runs again with the model calls answered from the run's own record (pass
   * it as `cassette` in replay-then-live mode); every event that matches one in this log is not
   * emitted again, and new events continue its sequence numbers.
   */
  continueFrom?: RunEvent[];
  /** Overrides expert provider creation (tests, or the desktop app's vault-backed tokens). */
  expertProviderFor?: (providerName: string) => ExpertProvider;
  /** Told of every answered expert call, with the exact request: the run's own record. */
  onExpertCall?: (call: {
    callId: string;
    node: string;
    instance: string;
    request: ExpertRequest;
    result: ExpertResult;
  }) => void;
  /** Told of every answered model call, with the exact request: the run's own record. */
  onModelCall?: (call: {
    callId: string;
    node: string;
    instance: string;
    request: ChatRequest;
    result: ChatResult;
  }) => void;
  /**
   * What given node instances produce instead of running (by instance id such as
   * `member#1@r3`): a fork's edit of a message or an output.
   */
  overrides?: Record<string, NodeOutputs>;
  /**
   * Scrubs key values from every event and from the result, streamed answers included (a key
   * a server echoes never leaves the run, even split across deltas).
   */
  redactor?: Redactor;
}

export interface RunResult {
  runId: string;
  status: RunStatus;
  outputs: Record<string, unknown>;
  usage: Usage;
  error?: string;
  /** True if any answer in the run was made up by the simulated provider. */
  simulated: boolean;
}

type Listener = (event: RunEvent) => void;

let runCounter = 0;

/** Starts a run at once; `run.result` settles when it ends (it never rejects). */
export function startRun(compiled: CompiledGraph, options: RunOptions): Run {
  return new Run(compiled, options);
}

export class Run {
  readonly id: string;
  readonly events: RunEvent[] = [];
  readonly result: Promise<RunResult>;
  readonly blobs: BlobStore;
  readonly mode: RunMode;

  readonly #compiled: CompiledGraph;
  readonly #options: RunOptions;
  readonly #listeners = new Set<Listener>();
  readonly #abort = new AbortController();
  readonly #gate: DebugGate;
  readonly #budget: Budget;
  readonly #queues = new Map<string, PQueue>();
  readonly #providers = new Map<string, ChatProvider>();
  readonly #expertProviders = new Map<string, ExpertProvider>();
  /** Graphs nodes run as their children, by instance prefix, with their input values. */
  readonly #children = new Map<
    string,
    { compiled: CompiledGraph; inputs: Record<string, unknown> }
  >();
  readonly #retry: RetryPolicy;
  readonly #prices: PriceTable;
  readonly #transcripts = new Map<string, TranscriptEntry[]>();
  /** The run-time part of each loop container type in the run (see `#loadLoops`). */
  readonly #loopRuntimes = new Map<string, LoopRuntime<unknown>>();
  /** Each transcript entry's place in graph order (see `#transcriptOrder`). */
  readonly #transcriptRank = new WeakMap<TranscriptEntry, number>();
  readonly #memory = new Map<string, ChatMessage[]>();
  /** Text inputs each member instance answered, by `memoryKey@rN`, for the right to change. */
  readonly #roundInputs = new Map<string, Record<string, unknown>>();
  readonly #roundGates = new Map<string, Promise<void>>();
  readonly #seed: string;
  /** Answer and template bounds from `settings.limits`, within their ceilings. */
  readonly #limits: RunLimits;
  /** Settles when the run's latest render has (see `#render`). */
  #rendered: Promise<unknown> = Promise.resolve();
  readonly #started = performance.now();
  #seq = 0;
  readonly #callsByInstance = new Map<string, number>();
  /** Identities of the events in `continueFrom` not yet met again (see `eventIdentity`). */
  readonly #logged = new Set<string>();
  readonly #occurrences = new Map<string, number>();
  /** Answers people gave in the earlier log, by node instance and question name. */
  readonly #loggedAnswers = new Map<string, string>();
  /** Message edits waiting at their checkpoint, and the edits made, by node instance. */
  readonly #messageEdits = new Map<string, string>();
  readonly #edited = new Map<string, string>();
  /** Outputs set from the debugger for instances held before they start. */
  readonly #overrides = new Map<string, NodeOutputs>();
  #simulatedSeen = false;
  readonly #redactor: Redactor | undefined;
  #error: string | undefined;
  #cancelled = false;
  /** Aborted when the run ends however it ends, so no task outlives it. */
  readonly #tasks = new AbortController();

  constructor(compiled: CompiledGraph, options: RunOptions) {
    this.#compiled = compiled;
    this.#options = options;
    // Kept even with no key known yet: the studio's learns keys entered while a run goes on.
    this.#redactor = options.redactor;
    this.id = options.runId ?? `run-${Date.now().toString(36)}-${(runCounter++).toString(36)}`;
    this.blobs = options.blobs ?? new BlobStore();
    const settings = compiled.doc.settings ?? {};
    this.#seed = String(settings.seed ?? 0);
    this.#limits = resolveLimits(settings.limits);
    this.#budget = new Budget(settings.budget ?? {});
    this.#prices = options.prices ?? DEFAULT_PRICES;
    this.#retry = {
      ...DEFAULT_RETRY_POLICY,
      ...(settings.retry ?? {}),
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
      ...(options.retry ?? {}),
    };
    this.mode = options.cassette?.mode ?? (options.simulate ? 'simulated' : 'live');
    this.#gate = new DebugGate({
      onPause: (reason, at) => this.#emit({ type: 'paused', reason, at }),
      onResume: () => this.#emit({ type: 'resumed' }),
    });
    this.#gate.setBreakpoints(options.breakpoints ?? []);
    if (options.startPaused) this.#gate.pause();
    if (options.signal) {
      // A signal that is already aborted cancels the run before it starts: same status and
      // message as a cancel() while running, never a failure.
      if (options.signal.aborted) {
        this.#cancelled = true;
        this.#abort.abort(options.signal.reason);
      } else options.signal.addEventListener('abort', () => this.cancel(), { once: true });
    }
    if (options.continueFrom) this.#adopt(options.continueFrom);
    this.result = this.#run();
  }

  // ---- control -------------------------------------------------------------------------

  /** Subscribes to events; past events are replayed first so no subscriber misses any. */
  subscribe(listener: Listener, { replay = true } = {}): () => void {
    if (replay) for (const e of this.events) listener(e);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
    this.#overrides.set(instance, outputs);
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
    this.#messageEdits.set(instance, text);
  }

  /** The planned node an instance id belongs to, in the run's graph or a plan it runs. */
  #plannedNode(instance: string): PlannedNode | undefined {
    const cut = instance.lastIndexOf('/');
    const prefix = cut >= 0 ? instance.slice(0, cut + 1) : '';
    const compiled = this.#children.get(prefix)?.compiled ?? this.#compiled;
    const id = instance.slice(cut + 1).split(/[#@]/)[0]!;
    return compiled.plan.nodes.get(id);
  }

  get paused(): boolean {
    return this.#gate.paused;
  }

  get usage(): Usage {
    return { ...this.#budget.usage };
  }

  /** The transcript of a mindstorm (by loop id, or instance id inside a replicated group). */
  transcript(loop: string): TranscriptEntry[] {
    return [...(this.#transcripts.get(loop) ?? [])];
  }

  // ---- the run -------------------------------------------------------------------------

  async #run(): Promise<RunResult> {
    const { doc, plan } = this.#compiled;
    await Promise.resolve(); // let callers subscribe before the first event
    this.#emit({
      type: 'run.started',
      graph: doc.name,
      inputs: previewValues(this.#options.inputs ?? {}),
      mode: this.mode,
    });
    let status: RunStatus = 'succeeded';
    let values: Record<string, NodeValues> = {};
    try {
      this.#checkInputs();
      if (plan.nodes.size > 0) {
        await this.#loadLoops(this.#compiled);
        values = await this.#runMachine();
      }
    } catch (error) {
      status = this.#cancelled ? 'cancelled' : 'failed';
      if (!this.#cancelled) this.#error ??= errorMessage(error);
    }
    if (this.#cancelled) status = 'cancelled';
    this.#tasks.abort();
    const outputs = this.#collectOutputs(values);
    this.#emit({
      type: 'run.finished',
      status,
      outputs: previewValues(outputs),
      usage: this.usage,
      ...(status === 'failed' && this.#error ? { error: this.#error } : {}),
      ...(status === 'cancelled' ? { error: 'cancelled' } : {}),
    });
    const result: RunResult = {
      runId: this.id,
      status,
      outputs,
      usage: this.usage,
      simulated: this.#simulatedSeen,
      ...(status === 'failed'
        ? { error: this.#error }
        : status === 'cancelled'
          ? { error: 'cancelled' }
          : {}),
    };
    return this.#redactor ? this.#redactor.apply(result) : result;
  }

  #runMachine(
    compiled: CompiledGraph = this.#compiled,
    scope: Pick<ScopeContext, 'path' | 'graph'> = { path: '' },
  ): Promise<Record<string, NodeValues>> {
    const machine = buildRunMachine(compiled, this.#hooks());
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
  #hooks() {
    return {
      startTask: (
        node: string,
        context: ScopeContext,
        replica: number | undefined,
        report: (event: TaskEvent) => void,
      ) => {
        this.#runNode(node, context, replica, this.#tasks.signal).then(
          (output) => {
            if (!this.#tasks.signal.aborted)
              report({
                type: 'task.done',
                node,
                output,
                ...(replica === undefined ? {} : { replica }),
              });
          },
          (error: unknown) => {
            if (!this.#tasks.signal.aborted) report({ type: 'task.failed', node, error });
          },
        );
      },
      loopBegin: (loop: string, context: ScopeContext, round: number) => {
        const node = this.#planOf(context).nodes.get(loop)!;
        this.#emit({
          type: 'round.started',
          loop: context.path + loop,
          round,
          maxRounds: node.spec.loop!.maxRounds(node.data),
        });
      },
      loopEnd: (loop: string, context: ScopeContext, state: LoopState) => {
        const { data, runtime } = this.#loopOf(loop, context);
        const stop = runtime.stopReason?.(
          data,
          state.history[state.round - 1] ?? {},
          state.history[state.round - 2],
        );
        this.#emit({
          type: 'round.finished',
          loop: context.path + loop,
          round: state.round,
          ...(stop ? { stop } : {}),
        });
        return stop;
      },
      step: (loop: string, step: string, context: ScopeContext, signal: AbortSignal) =>
        this.#loopStep(loop, step, context, signal),
      loopOutputs: (loop: string, context: ScopeContext): NodeValues => {
        const { data, runtime } = this.#loopOf(loop, context);
        const key = this.#loopKey(loop, context);
        const outputs = runtime.outputs({
          data,
          state: context.loops[loop]!,
          transcript: this.#transcripts.get(key) ?? [],
          values: context.values,
        });
        return { ...outputs, $instances: [key] };
      },
      fail: (node: string, error: unknown) => {
        if (!this.#cancelled) this.#error ??= errorMessage(error);
        void node;
      },
    };
  }

  #checkInputs(): void {
    const given = this.#options.inputs ?? {};
    const missing: string[] = [];
    for (const node of this.#compiled.plan.nodes.values()) {
      const input = node.spec.runInput?.(node.data);
      if (!input) continue;
      const { name, modality } = input;
      if (!(name in given) && input.default === undefined) missing.push(name);
      const value = given[name];
      if (value !== undefined && modality === 'image' && !isImageValue(value)) {
        throw new Error(
          `input "${name}" is an image: pass a file, e.g. --input ${name}=@photo.png`,
        );
      }
      const binary = modality === 'audio' || modality === 'asset3d';
      if (value !== undefined && binary && !isBlobValue(value)) {
        throw new Error(
          `input "${name}" is ${modality === 'audio' ? 'a recording' : 'a 3D asset'}: pass a file, e.g. --input ${name}=@file`,
        );
      }
    }
    if (missing.length > 0) {
      throw new Error(
        `missing input${missing.length > 1 ? 's' : ''}: ${missing.map((m) => `${m} (pass --input ${m}=...)`).join(', ')}`,
      );
    }
  }

  #collectOutputs(
    values: Record<string, NodeValues>,
    compiled: CompiledGraph = this.#compiled,
  ): Record<string, unknown> {
    const outputs: Record<string, unknown> = {};
    for (const node of compiled.plan.nodes.values()) {
      const output = node.spec.runOutput?.(node.data);
      if (output && values[node.id] && 'value' in values[node.id]!) {
        outputs[output.name] = values[node.id]!.value;
      }
    }
    return outputs;
  }

  // ---- nodes ---------------------------------------------------------------------------

  async #runNode(
    id: string,
    context: ScopeContext,
    replica: number | undefined,
    actorSignal: AbortSignal,
    phase?: LoopView['phase'],
  ): Promise<{ outputs: NodeOutputs; instance: string }> {
    const child = context.graph ? this.#children.get(context.graph) : undefined;
    const node = (child?.compiled ?? this.#compiled).plan.nodes.get(id)!;
    const frame = context.loop;
    const round = frame ? context.loops[frame.id]?.round : undefined;
    const base = `${context.path}${id}${replica === undefined ? '' : `#${replica}`}`;
    const at = frame ? this.#position(node, context, round) : '';
    const instance = frame ? `${base}@${at}${phase ? `:${phase.kind}` : ''}` : base;
    const signal = AbortSignal.any([this.#abort.signal, actorSignal]);

    if (frame?.stage === 'round' && round !== undefined && !phase) {
      const key = `${this.#loopKey(frame.id, context)}|${round}`;
      let gate = this.#roundGates.get(key);
      if (!gate) {
        gate = this.#gate.check({ kind: 'round', loop: context.path + frame.id, round });
        this.#roundGates.set(key, gate);
      }
      await gate;
    }
    // Inside a plan, checkpoints name the node by its path (`planner/answer`), so a breakpoint
    // on the document's own `answer` does not stop there too.
    await this.#gate.check({
      kind: 'node',
      node: `${context.graph ?? ''}${id}`,
      instance,
      ...(round !== undefined ? { round } : {}),
    });
    signal.throwIfAborted();

    const bindings = { ...context.bindings };
    if (node.replicate && replica !== undefined) {
      bindings[node.replicate.as] = node.replicate.items[replica];
      bindings.replica = { index: replica, count: node.replicate.items.length };
    }
    const { inputs, senders } = this.#resolveInputs(node, context);
    const runInput = node.spec.runInput?.(node.data);
    if (runInput) inputs.value = child ? child.inputs[runInput.name] : this.#inputValue(runInput);
    if (frame?.stage === 'round' && !phase) this.#roundInputs.set(`${base}@${at}`, inputs);

    this.#emit({
      type: 'node.started',
      node: id,
      instance,
      nodeType: node.type,
      ...(round !== undefined && frame?.stage === 'round' ? { round } : {}),
      ...(frame ? { stage: phase?.kind ?? frame.stage } : {}),
      inputs: previewValues(inputs),
    });
    const started = performance.now();
    try {
      const override = this.#overrides.get(instance) ?? this.#options.overrides?.[instance];
      const execute = override
        ? async (ctx: NodeContext<unknown>) => {
            // A fork's edit: the instance produces the edited values, and its message (if it
            // sends one) carries the edited text.
            if (typeof override.text === 'string') await ctx.message(override.text);
            return override;
          }
        : await this.#options.registry.executor(node.type);
      const ctx = this.#context(node, context, {
        instance,
        memoryKey: base,
        inputs,
        senders,
        bindings,
        signal,
        round,
        phase,
      });
      const outputs = await execute(ctx);
      signal.throwIfAborted();
      const edited = this.#edited.get(instance);
      if (edited !== undefined && typeof outputs.text === 'string') outputs.text = edited;
      this.#emit({
        type: 'node.finished',
        node: id,
        instance,
        outputs: previewValues(outputs),
        durationMs: Math.round(performance.now() - started),
      });
      return { outputs, instance };
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error;
      // A plan's node is named by its path: `planner/machine_translation`.
      const message = `node "${context.graph ?? ''}${id}": ${errorMessage(error)}`;
      this.#emit({ type: 'node.failed', node: id, instance, error: errorMessage(error) });
      if (!this.#cancelled) this.#error ??= message;
      throw new Error(message, { cause: error });
    }
  }

  #inputValue(input: { name: string; default?: unknown }): unknown {
    const given = this.#options.inputs ?? {};
    return input.name in given ? given[input.name] : input.default;
  }

  /** Reads each input port's value from the scope: same-round, previous-round or gathered. */
  #resolveInputs(node: PlannedNode, context: ScopeContext) {
    const inputs: Record<string, unknown> = {};
    const senders: Record<string, string[]> = {};
    for (const port of node.ports.inputs) {
      const bindings = node.inputs[port.name] ?? [];
      if (bindings.length === 0) continue;
      if (!port.multiple) {
        inputs[port.name] = asPortValue(
          this.#bindingValue(bindings[0]!, context).value,
          port.modality,
        );
        continue;
      }
      const list: unknown[] = [];
      const from: string[] = [];
      const portIsList = parseModality(port.modality)?.kind === 'list';
      for (const b of bindings) {
        const { value, senders: who } = this.#bindingValue(b, context);
        if (value === undefined) continue;
        const flatten =
          parseModality(b.modality)?.kind === 'list' && !portIsList && Array.isArray(value);
        if (flatten) {
          (value as unknown[]).forEach((v, i) => {
            list.push(v);
            from.push(who[i] ?? `${b.source}#${i}`);
          });
        } else {
          list.push(value);
          from.push(who[0] ?? b.source);
        }
      }
      inputs[port.name] = list.map((v) => asPortValue(v, port.modality));
      senders[port.name] = from;
    }
    return { inputs, senders };
  }

  #bindingValue(b: InputBinding, context: ScopeContext): { value: unknown; senders: string[] } {
    if (b.previousRound) {
      const loop = context.loop!;
      const state = context.loops[loop.id]!;
      const previous = state.history[state.round - 2]?.[b.source];
      if (previous && b.sourcePort in previous) {
        return { value: previous[b.sourcePort], senders: previous.$instances as string[] };
      }
      return { value: b.edge.data?.initial, senders: [] };
    }
    if (b.collectLoop) {
      const rounds = (context.values[b.source]?.[roundsPort(b.sourcePort)] ?? []) as unknown[];
      return { value: rounds, senders: rounds.map((_, i) => `${b.source}@r${i + 1}`) };
    }
    const values = context.values[b.source];
    return {
      value: values?.[b.sourcePort],
      senders: (values?.$instances as string[] | undefined) ?? [],
    };
  }

  #context(
    node: PlannedNode,
    context: ScopeContext,
    call: {
      instance: string;
      memoryKey: string;
      inputs: Record<string, unknown>;
      senders: Record<string, string[]>;
      bindings: Record<string, unknown>;
      signal: AbortSignal;
      round: number | undefined;
      phase: LoopView['phase'];
    },
  ): NodeContext<unknown> {
    const frame = context.loop;
    const loopView = frame ? this.#loopView(node, context, call.memoryKey, call.phase) : undefined;
    const recipients = [...new Set(node.outgoing.map((e) => e.target))];
    const random = seededRandom(`${this.#seed}:${call.instance}`);
    const memory = this.#memory.get(call.memoryKey) ?? [];
    this.#memory.set(call.memoryKey, memory);
    return {
      nodeId: node.id,
      instanceId: call.instance,
      data: node.data,
      inputs: call.inputs,
      senders: call.senders,
      bindings: call.bindings,
      ...(loopView ? { loop: loopView } : {}),
      signal: call.signal,
      random,
      memory,
      imageUrl: (image) => this.blobs.dataUrl(image),
      renderTemplate: (template, vars, field) => this.#render(template, vars, field, call.signal),
      callModel: (request) => this.#callModel(node, call.instance, request, call.signal),
      callExpert: (request) => this.#callExpert(node, call.instance, request, call.signal),
      runGraph: (document, inputs) => this.#runChild(node, call.instance, document, inputs),
      reportStep: (report) =>
        this.#emit({ type: 'environment.step', node: node.id, instance: call.instance, ...report }),
      message: async (proposed) => {
        await this.#gate.check({
          kind: 'message',
          node: `${context.graph ?? ''}${node.id}`,
          instance: call.instance,
          text: proposed,
          ...(call.round !== undefined ? { round: call.round } : {}),
        });
        call.signal.throwIfAborted();
        // Edited while held at this checkpoint: the edit is what is delivered and output.
        const text = this.#messageEdits.get(call.instance) ?? proposed;
        this.#messageEdits.delete(call.instance);
        if (text !== proposed) this.#edited.set(call.instance, text);
        const simulated = text.startsWith('[simulated]');
        this.#emit({
          type: 'message',
          from: call.instance,
          node: node.id,
          to: recipients,
          text,
          simulated,
          ...(frame
            ? { loop: context.path + frame.id, stage: call.phase?.kind ?? frame.stage }
            : {}),
          ...(call.round !== undefined && frame?.stage === 'round' ? { round: call.round } : {}),
        });
        if (frame && !call.phase) {
          const key = this.#loopKey(frame.id, context);
          const transcript = this.#transcripts.get(key) ?? [];
          const entry = {
            round: call.round ?? 0,
            stage: frame.stage,
            from: call.instance,
            to: recipients,
            text,
          };
          // Messages of one round arrive in whatever order the models answer; the transcript
          // is kept in graph order instead (round, stage, node, replica), so prompts built from
          // it are the same live, replayed from a cassette, or resumed after a crash.
          const order = this.#transcriptOrder(node, entry, call.bindings);
          const at = transcript.findIndex((e) => this.#transcriptRank.get(e)! > order);
          this.#transcriptRank.set(entry, order);
          transcript.splice(at === -1 ? transcript.length : at, 0, entry);
          this.#transcripts.set(key, transcript);
        }
      },
      vote: (tally) => this.#emit({ type: 'vote', node: node.id, instance: call.instance, tally }),
      askHuman: (request) => this.#askHuman(node, call.instance, request),
    };
  }

  /** A number that sorts messages by round, stage, node (document order) and replica. */
  #transcriptOrder(
    node: PlannedNode,
    entry: TranscriptEntry,
    bindings: Record<string, unknown>,
  ): number {
    const stages: Record<string, number> = { init: 0, round: 1, gather: 2, decide: 3 };
    const replica = (bindings.replica as { index?: number } | undefined)?.index ?? 0;
    const stage = stages[entry.stage] ?? 4;
    return ((entry.round * 8 + stage) * 100_000 + node.index) * 10_000 + replica;
  }

  /** The plan of the graph a scope belongs to: the run's own, or a plan a node runs. */
  #planOf(context: Pick<ScopeContext, 'graph'>) {
    const child = context.graph ? this.#children.get(context.graph) : undefined;
    return (child?.compiled ?? this.#compiled).plan;
  }

  /**
   * Where a node runs in the loops around it (`r3`, `gather`, `r2.3`): the innermost loop's
   * stage from the scope, its round `round` when that stage is `round`.
   */
  #position(node: PlannedNode, context: ScopeContext, round: number | undefined): string {
    const frame = context.loop!;
    const outer = outerSegments(this.#planOf(context).nodes, node.id, context.loops, frame.id);
    return formatPosition([...outer, frame.stage === 'round' ? (round ?? 0) : frame.stage]);
  }

  /** A loop's transcript and round-checkpoint key: `storm`, or `inner@r2` inside another loop. */
  #loopKey(loop: string, context: ScopeContext): string {
    return loopKey(this.#planOf(context).nodes, context.path, loop, context.loops);
  }

  /** A loop's data and its container's run-time part (loaded before the run starts). */
  #loopOf(loop: string, context: Pick<ScopeContext, 'graph'>) {
    const node = this.#planOf(context).nodes.get(loop)!;
    const runtime = this.#loopRuntimes.get(node.type);
    if (!runtime) throw new Error(`the run-time part of ${node.type} "${loop}" is not loaded`);
    return { node, data: node.data as unknown, runtime };
  }

  /** Loads the run-time part of every loop container in a plan. */
  async #loadLoops(compiled: CompiledGraph): Promise<void> {
    for (const node of compiled.plan.nodes.values()) {
      if (node.container !== 'loop' || this.#loopRuntimes.has(node.type)) continue;
      this.#loopRuntimes.set(node.type, await this.#options.registry.loopRuntime(node.type));
    }
  }

  #loopView(
    node: PlannedNode,
    context: ScopeContext,
    memoryKey: string,
    phase: LoopView['phase'],
  ): LoopView {
    const frame = context.loop!;
    const { node: loopNode, data, runtime } = this.#loopOf(frame.id, context);
    const state = context.loops[frame.id] ?? { round: 0, history: [] };
    const nodes = this.#planOf(context).nodes;
    return {
      id: frame.id,
      round: state.round,
      maxRounds: loopNode.spec.loop!.maxRounds(data),
      stage: frame.stage,
      transcript: [...(this.#transcripts.get(this.#loopKey(frame.id, context)) ?? [])],
      ...runtime.view({
        data,
        node: node.id,
        stage: frame.stage,
        state,
        ...(phase ? { phase } : {}),
        replicated: (id) => nodes.get(id)?.replicate !== undefined,
        inputsAnswered: (round) =>
          this.#roundInputs.get(`${memoryKey}@${this.#position(node, context, round)}`) ?? {},
      }),
      ...(phase ? { phase } : {}),
    };
  }

  async #askHuman(
    node: PlannedNode,
    instance: string,
    request: { name: string; prompt: string },
  ): Promise<string> {
    this.#emit({
      type: 'human.request',
      node: node.id,
      instance,
      name: request.name,
      prompt: request.prompt,
    });
    // One instance may ask several questions (a seat in a game asks every step): by name.
    let answer =
      this.#loggedAnswers.get(`${instance}|${request.name}`) ??
      this.#options.humanAnswers?.[request.name];
    if (answer === undefined) {
      if (!this.#options.askHuman) {
        throw new Error(`needs a person's answer: pass --input ${request.name}=...`);
      }
      answer = await this.#options.askHuman({
        node: node.id,
        name: request.name,
        prompt: request.prompt,
      });
    }
    this.#emit({ type: 'human.response', node: node.id, instance, name: request.name, answer });
    return answer;
  }

  // ---- model calls ---------------------------------------------------------------------

  #provider(providerName: string): ChatProvider {
    const cacheKey = this.#options.simulate ? 'simulated' : providerName;
    let provider = this.#providers.get(cacheKey);
    if (provider) return provider;
    // With --simulate the simulator stands in for every live provider; a cassette in record
    // mode can then capture simulated answers (they stay labelled as simulated on replay).
    const live = (): ChatProvider =>
      this.#options.simulate
        ? new SimulatedProvider({ id: 'simulated' })
        : (this.#options.providerFor?.(providerName) ??
          createChatProvider(
            resolveProviderProfile(providerName, {
              env: this.#options.env ?? process.env,
              overrides: this.#options.providerOverrides,
            }),
            this.#options.env ?? process.env,
          ));
    const cassette = this.#options.cassette;
    provider = cassette
      ? new CassetteProvider({
          cassette: cassette.cassette,
          mode: cassette.mode,
          ...(cassette.mode === 'replay' ? {} : { live: live() }),
        })
      : live();
    this.#providers.set(cacheKey, provider);
    return provider;
  }

  #profileConcurrency(providerName: string): number | undefined {
    try {
      return resolveProviderProfile(providerName, {
        env: this.#options.env ?? process.env,
        overrides: this.#options.providerOverrides,
      }).concurrency;
    } catch {
      return undefined;
    }
  }

  #queue(providerName: string): PQueue {
    let queue = this.#queues.get(providerName);
    if (!queue) {
      // The document's per-provider limit wins; then what the user's provider profile says its
      // server can take (a local Ollama far less than OpenAI); then the document's default.
      const concurrency = this.#compiled.doc.settings?.concurrency;
      const limit =
        concurrency?.providers?.[providerName] ??
        (this.#options.simulate ? undefined : this.#profileConcurrency(providerName)) ??
        concurrency?.default ??
        4;
      queue = new PQueue({ concurrency: limit });
      this.#queues.set(providerName, queue);
    }
    return queue;
  }

  async #callModel(
    node: PlannedNode,
    instance: string,
    call: ModelCall,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const profile = this.#compiled.doc.models?.[call.profile];
    if (!profile) throw new Error(`model profile "${call.profile}" is not defined in "models"`);
    const request = {
      model: profile.model,
      messages: call.messages,
      ...((call.temperature ?? profile.temperature) !== undefined
        ? { temperature: call.temperature ?? profile.temperature }
        : {}),
      ...((call.maxTokens ?? profile.maxTokens) !== undefined
        ? { maxTokens: call.maxTokens ?? profile.maxTokens }
        : {}),
      ...(call.stream ? { stream: true } : {}),
      ...(call.responseFormat ? { extra: { response_format: call.responseFormat } } : {}),
    };
    const promptEstimate = estimatePromptTokens(request);
    const reservation = this.#budget.reserve(
      promptEstimate + (request.maxTokens ?? 256),
      callCost(
        this.#prices,
        profile.model,
        promptEstimate,
        request.maxTokens ?? DEFAULT_MAX_TOKENS,
      ) ?? 0,
    );
    // Ids that depend on who calls, not on timing: a resumed or forked run gives the same call
    // the same id, so its events can be matched with the original log.
    const nth = (this.#callsByInstance.get(instance) ?? 0) + 1;
    this.#callsByInstance.set(instance, nth);
    const callId = `${instance}:${nth}`;
    const provider = this.#provider(profile.provider);
    this.#emit({
      type: 'model.request',
      callId,
      node: node.id,
      instance,
      profile: call.profile,
      provider: this.#options.simulate ? 'simulated' : profile.provider,
      model: profile.model,
      messages: call.messages.map((m) => this.#eventMessage(m)),
    });
    const started = performance.now();
    let attempts = 0;
    try {
      // Limits are per provider profile, as the document names them: the simulated provider, a
      // cassette or an injected provider answering a profile keeps that profile's limit.
      const result = await this.#queue(profile.provider).add(
        () =>
          callWithRetry(
            async (attemptSignal) => {
              attempts++;
              const options = { signal: attemptSignal, maxAnswerBytes: this.#limits.answerBytes };
              if (!call.stream) return provider.chat(request, options);
              // Each attempt streams afresh; a key split across deltas is still caught.
              const stream = this.#redactor?.stream();
              const delta = (text: string) => {
                if (text) this.#emit({ type: 'model.delta', callId, text });
              };
              try {
                return await provider.chat(request, {
                  ...options,
                  onDelta: (text: string) => delta(stream ? stream.push(text) : text),
                });
              } finally {
                if (stream) delta(stream.end());
              }
            },
            this.#retry,
            this.#retryOptions(callId, node.id, signal),
          ),
        { signal },
      );
      // Only live answers cost money; cassettes and the simulator are free.
      const costUsd =
        result.source === 'live'
          ? callCost(
              this.#prices,
              result.model || profile.model,
              result.usage.promptTokens,
              result.usage.completionTokens,
            )
          : 0;
      reservation.settle(result.usage.promptTokens, result.usage.completionTokens, costUsd ?? 0);
      if (result.simulated) this.#simulatedSeen = true;
      // Before the response event: a crash between the two leaves the call in the record, so
      // resuming serves it instead of paying for it again.
      this.#options.onModelCall?.({ callId, node: node.id, instance, request, result });
      this.#emit({
        type: 'model.response',
        callId,
        node: node.id,
        instance,
        text: result.text,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        ...(costUsd === undefined ? {} : { costUsd }),
        source: result.source,
        simulated: result.simulated === true,
        durationMs: Math.round(performance.now() - started),
        attempts,
      });
      return result;
    } catch (error) {
      reservation.release();
      if (!isAbortError(error) && !signal.aborted) {
        this.#emit({ type: 'model.error', callId, node: node.id, error: errorMessage(error) });
      }
      throw error;
    }
  }

  /** How a call is retried: under the run's signal, each retry reported as an event. */
  #retryOptions(callId: string, node: string, signal: AbortSignal) {
    return {
      signal,
      ...(this.#options.random ? { random: this.#options.random } : {}),
      onRetry: ({
        attempt,
        delayMs,
        error,
      }: {
        attempt: number;
        delayMs: number;
        error: unknown;
      }) =>
        this.#emit({
          type: 'model.retry',
          callId,
          node,
          attempt,
          delayMs: Math.round(delayMs),
          error: errorMessage(error),
        }),
    };
  }

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
    this.#emit({ type: 'subgraph.started', node: node.id, instance, document, prefix });
    let values: Record<string, NodeValues>;
    try {
      await this.#loadLoops(compiled);
      values = await this.#runMachine(compiled, { path: prefix, graph: prefix });
    } catch (error) {
      if (!isAbortError(error)) {
        this.#emit({
          type: 'subgraph.finished',
          node: node.id,
          instance,
          outputs: {},
          error: errorMessage(error),
        });
      }
      throw error;
    }
    const outputs = this.#collectOutputs(values, compiled);
    this.#emit({
      type: 'subgraph.finished',
      node: node.id,
      instance,
      outputs: previewValues(outputs),
    });
    return outputs;
  }

  // ---- expert calls --------------------------------------------------------------------

  #expertProvider(backend: ExpertCall['backend'], providerName: string): ExpertProvider {
    // Local operations need no model and cost nothing: they run even under --simulate, so a
    // simulated run still shows what they do; cassettes record them like any other answer.
    const name =
      backend === 'local' ? 'local' : this.#options.simulate ? 'simulated' : providerName;
    let provider = this.#expertProviders.get(name);
    if (provider) return provider;
    const live = (): ExpertProvider => {
      if (backend === 'local') return new LocalExpertProvider();
      if (this.#options.simulate) return new SimulatedExpertProvider();
      const env = this.#options.env ?? process.env;
      return (
        this.#options.expertProviderFor?.(providerName) ??
        createExpertProvider(
          resolveProviderProfile(providerName, { env, overrides: this.#options.providerOverrides }),
          env,
        )
      );
    };
    const cassette = this.#options.cassette;
    provider = cassette
      ? new ExpertCassetteProvider({
          cassette: cassette.cassette,
          mode: cassette.mode,
          ...(cassette.mode === 'replay' ? {} : { live: live() }),
        })
      : live();
    this.#expertProviders.set(name, provider);
    return provider;
  }

  async #callExpert(
    node: PlannedNode,
    instance: string,
    call: ExpertCall,
    signal: AbortSignal,
  ): Promise<ExpertAnswer> {
    const inputs: ExpertRequest['inputs'] = {};
    for (const [name, value] of Object.entries(call.inputs)) {
      if (value === undefined || value === null) continue;
      if (isImageValue(value) || isBlobValue(value)) {
        const hash = isImageValue(value) ? value.$image : value.$blob;
        const blob = this.blobs.get(hash);
        if (!blob) throw new Error(`input ${name}: blob ${hash.slice(0, 12)}… is not in this run`);
        inputs[name] = { bytes: blob.bytes, mime: blob.mime };
      } else inputs[name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const request: ExpertRequest = {
      task: call.task,
      model: call.model,
      inputs,
      ...(call.parameters && Object.keys(call.parameters).length > 0
        ? { parameters: call.parameters }
        : {}),
    };
    const provider = this.#expertProvider(call.backend, call.provider);
    const reservation = this.#budget.reserveExpert();
    const nth = (this.#callsByInstance.get(instance) ?? 0) + 1;
    this.#callsByInstance.set(instance, nth);
    const callId = `${instance}:${nth}`;
    const providerName =
      call.backend === 'local' ? 'local' : this.#options.simulate ? 'simulated' : call.provider;
    this.#emit({
      type: 'expert.request',
      callId,
      node: node.id,
      instance,
      provider: providerName,
      task: call.task,
      model: call.model,
      inputs: previewValues(call.inputs),
    });
    const started = performance.now();
    let attempts = 0;
    try {
      const result = await this.#queue(providerName).add(
        () =>
          callWithRetry(
            (attemptSignal) => {
              attempts++;
              return provider.run(request, {
                signal: attemptSignal,
                maxAnswerBytes: this.#limits.answerBytes,
              });
            },
            this.#retry,
            this.#retryOptions(callId, node.id, signal),
          ),
        { signal },
      );
      if (result.simulated) this.#simulatedSeen = true;
      reservation.settle();
      // Recorded before the response event, as model calls are: a resume serves it again.
      this.#options.onExpertCall?.({ callId, node: node.id, instance, request, result });
      const output = isBinaryValue(result.output)
        ? this.blobs.put(result.output.bytes, result.output.mime)
        : result.output;
      this.#emit({
        type: 'expert.response',
        callId,
        node: node.id,
        instance,
        output: previewValues({ output }).output,
        source: result.source,
        simulated: result.simulated === true,
        durationMs: Math.round(performance.now() - started),
        attempts,
      });
      return { output, simulated: result.simulated === true };
    } catch (error) {
      reservation.release();
      if (!isAbortError(error) && !signal.aborted) {
        this.#emit({ type: 'expert.error', callId, node: node.id, error: errorMessage(error) });
      }
      throw error;
    }
  }

  /** Events reference images by hash instead of carrying their bytes. */
  #eventMessage(message: ChatMessage): ChatMessage {
    if (typeof message.content === 'string') return message;
    return {
      role: message.role,
      content: message.content.map((part) =>
        part.type === 'image'
          ? {
              type: 'image',
              url: `blob:${part.sha256 ?? 'inline'}`,
              ...(part.mime ? { mime: part.mime } : {}),
            }
          : part,
      ),
    };
  }

  // ---- loop steps --------------------------------------------------------------------

  /**
   * Runs a step of a loop container's own (a mindstorm's revisions or vote) with a narrow view
   * of the run: nodes inside run through `#runNode`, as in a round or at a stage.
   */
  async #loopStep(
    loop: string,
    step: string,
    context: ScopeContext,
    signal: AbortSignal,
  ): Promise<LoopStepResult> {
    const { data, runtime } = this.#loopOf(loop, context);
    const perform = runtime.steps?.[step];
    if (!perform) throw new Error(`loop "${loop}" has no step "${step}"`);
    const nodes = this.#planOf(context).nodes;
    const key = this.#loopKey(loop, context);
    const state = structuredClone(context.loops[loop]!);
    const inRound = (round: number): ScopeContext => ({
      ...context,
      loop: { id: loop, stage: 'round' },
      loops: { ...context.loops, [loop]: { ...state, round } },
    });
    const base = (id: string, replica: number | undefined) =>
      `${context.path}${id}${replica === undefined ? '' : `#${replica}`}`;
    const at = (id: string, replica: number | undefined, round: number) =>
      `${base(id, replica)}@${this.#position(nodes.get(id)!, inRound(round), round)}`;
    const ctx: LoopStepContext<unknown> = {
      data,
      loop,
      key,
      seed: `${this.#seed}:${key}`,
      signal,
      state,
      transcript: this.#transcripts.get(key) ?? [],
      replicas: (id) => nodes.get(id)?.replicate?.items.length,
      nodeData: (id) => nodes.get(id)!.data,
      instance: at,
      inputsAnswered: (id, replica, round) => this.#roundInputs.get(at(id, replica, round)) ?? {},
      run: (id, replica, where, phase) =>
        this.#runNode(
          id,
          'round' in where
            ? inRound(where.round)
            : { ...context, loop: { id: loop, stage: where.stage } },
          replica,
          signal,
          phase,
        ),
      render: async (id, template, field) => {
        const node = nodes.get(id)!;
        const { inputs } = this.#resolveInputs(node, context);
        return this.#render(template, { ...context.bindings, ...inputs }, field, signal).catch(
          (error) => {
            throw isAbortError(error) ? error : new Error(`node "${id}": ${errorMessage(error)}`);
          },
        );
      },
      vote: (tally) => this.#emit({ type: 'vote', node: loop, instance: key, tally }),
    };
    return perform(ctx);
  }

  // ---- events --------------------------------------------------------------------------

  /** Takes an earlier log as this run's beginning. */
  #adopt(events: RunEvent[]): void {
    const seen = new Map<string, number>();
    for (const event of events) {
      if (event.type === 'run.finished') continue;
      this.events.push({ ...event, runId: this.id });
      this.#seq = Math.max(this.#seq, event.seq);
      const identity = eventIdentity(event);
      if (identity) this.#logged.add(occurrence(seen, identity));
      if (event.type === 'human.response')
        this.#loggedAnswers.set(`${event.instance}|${event.name}`, event.answer);
    }
  }

  /**
   * Renders a node's template within the run's limits (on a rendering thread when it takes more
   * than a moment; see renderNodeTemplate). Renders may finish out of order, but each one's
   * result is handed back only after the one asked for before it: the run goes on in the same order whichever thread finishes first, so
   * replicas reach the debugger's checkpoints, and the log, in a stable order.
   */
  #render(
    template: string,
    vars: Record<string, unknown>,
    field: string,
    signal: AbortSignal,
  ): Promise<string> {
    const rendering = renderNodeTemplate(template, vars, field, this.#limits, signal);
    const inTurn = this.#rendered.then(
      () => rendering,
      () => rendering,
    );
    this.#rendered = inTurn.catch(() => undefined);
    return inTurn;
  }

  #emit(body: RunEventBody): void {
    const identity = eventIdentity(body);
    if (identity && this.#logged.size > 0) {
      const key = occurrence(this.#occurrences, identity);
      // Already in the log this run continues: regenerated, not new.
      if (this.#logged.delete(key)) return;
    }
    const clean = this.#redactor ? this.#redactor.apply(body) : body;
    const event = { ...clean, runId: this.id, seq: ++this.#seq, time: Date.now() } as RunEvent;
    this.events.push(event);
    if (this.#gate.breakpoints.some((b) => 'event' in b && b.event === event.type))
      this.#gate.pause();
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break the run.
      }
    }
  }

  /** Milliseconds since the run started. */
  get elapsedMs(): number {
    return performance.now() - this.#started;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Keeps events small: long strings are clipped, images become references. */
export function previewValues(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, preview(v, 0)]));
}

/**
 * A value as a port of this modality takes it: a label (`{ label, score }`) arriving at a text
 * port, or labels at a list of texts, become their class names, as the modality rules promise.
 */
function asPortValue(value: unknown, modality: string): unknown {
  const isLabel = (v: unknown): v is { label: string } =>
    typeof v === 'object' && v !== null && typeof (v as { label?: unknown }).label === 'string';
  if (modality === 'text' && isLabel(value)) return value.label;
  if (modality === 'list<text>' && Array.isArray(value))
    return value.map((v) => (isLabel(v) ? v.label : v));
  return value;
}

/** Longer runs of numbers (embeddings) are described in events, not copied. */
const MAX_NUMBERS = 32;

function preview(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.length > 4000 ? `${value.slice(0, 4000)}…` : value;
  if (isImageValue(value) || isBlobValue(value)) return value;
  const shape = numericShape(value);
  if (shape && shape.reduce((a, b) => a * b, 1) > MAX_NUMBERS) {
    return { $numbers: shape.join('×') };
  }
  if (depth > 4) return '…';
  if (Array.isArray(value)) return value.map((v) => preview(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, preview(v, depth + 1)]));
  }
  return value;
}

/** The dimensions of a vector or matrix of numbers ([n] or [rows, cols]); else undefined. */
function numericShape(value: unknown): number[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.every((v) => typeof v === 'number')) return [value.length];
  const inner = numericShape(value[0]);
  if (inner?.length !== 1) return undefined;
  const width = inner[0]!;
  return value.every(
    (row) => Array.isArray(row) && row.length === width && row.every((v) => typeof v === 'number'),
  )
    ? [value.length, width]
    : undefined;
}

export type { Stage };

/**
 * Who an event is about, independent of timing and sequence numbers: two executions of the same
 * graph on the same answers give their events the same identities. Pauses, resumes and errors
 * have none (they belong to one session and are never taken for an earlier one).
 */
export function eventIdentity(e: RunEventBody): string | undefined {
  switch (e.type) {
    case 'run.started':
      return e.type;
    case 'node.started':
    case 'node.finished':
    case 'node.failed':
    case 'vote':
    case 'human.request':
    case 'human.response':
      return `${e.type}|${e.instance}`;
    case 'model.request':
    case 'model.response':
    case 'model.error':
    case 'model.delta':
      return `${e.type}|${e.callId}`;
    case 'model.retry':
      return `${e.type}|${e.callId}|${e.attempt}`;
    case 'expert.request':
    case 'expert.response':
    case 'expert.error':
      return `${e.type}|${e.callId}`;
    case 'subgraph.started':
    case 'subgraph.finished':
      return `${e.type}|${e.instance}`;
    case 'environment.step':
      return `${e.type}|${e.instance}|${e.step}`;
    case 'message':
      return `${e.type}|${e.from}`;
    case 'round.started':
    case 'round.finished':
      return `${e.type}|${e.loop}|${e.round}`;
    case 'run.finished':
    case 'paused':
    case 'resumed':
    case 'error':
      return undefined;
    default:
      return e satisfies never;
  }
}

/** `identity#n` for the n-th event with that identity (model deltas repeat, for instance). */
function occurrence(counts: Map<string, number>, identity: string): string {
  const n = (counts.get(identity) ?? 0) + 1;
  counts.set(identity, n);
  return `${identity}#${n}`;
}
