/**
 * Runs one node instance: waits at the debugger's checkpoints, reads its inputs, reports it
 * started, hands its executor a context of capabilities (model and expert calls through the
 * run's gateway, messages, templates, a person, a child graph), and reports how it ended. A
 * fork's or the debugger's override stands in for the executor.
 */
import type { GraphPlan, PlannedNode } from '../compiler/analyze.ts';
import {
  isNotTaken,
  type LoopView,
  type NodeContext,
  type NodeOutputs,
  notTaken,
} from '../node-sdk/define.ts';
import { seededRandom } from '../node-sdk/random.ts';
import type { AnswerShape, ChatMessage } from '../providers/types.ts';
import { isAbortError } from '../providers/types.ts';
import type { GraphDocument } from '../schema/document.ts';
import type { RunLimits } from '../schema/limits.ts';
import { withParamVars } from '../schema/params.ts';
import { isSimulatedText } from '../schema/simulated.ts';
import type { BlobStore } from './blobs.ts';
import type { CallsGateway } from './calls.ts';
import { runComputeTask } from './compute.ts';
import { type DebugGate, withoutCopies } from './debugger.ts';
import type { EventLog } from './event-log.ts';
import { resolveInputs, skipCause } from './inputs.ts';
import { instanceOf } from './instance-id.ts';
import type { Loops } from './loops.ts';
import type { ScopeContext } from './machine-runtime.ts';
import { RenderMemo } from './render-memo.ts';
import { parseReport } from './reports.ts';
import type { RunOptions } from './run-options.ts';
import { renderNodeTemplate } from './template-pool.ts';
import type { ToolGateway } from './tools.ts';
import { errorMessage, previewValues } from './values.ts';

/** What the runner needs of its run. */
export interface RunnerSetup {
  options: RunOptions;
  log: EventLog;
  gate: DebugGate;
  calls: CallsGateway;
  tools: ToolGateway;
  loops: Loops;
  blobs: BlobStore;
  seed: string;
  limits: RunLimits;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** The plan a scope belongs to, and the values a child graph's inputs were given. */
  graphOf(context: Pick<ScopeContext, 'graph'>): {
    plan: GraphPlan;
    inputs?: Record<string, unknown>;
  };
  runChild(
    node: PlannedNode,
    instance: string,
    document: GraphDocument,
    inputs: Record<string, unknown>,
  ): Promise<Record<string, unknown>>;
  /** Notes why the run fails (the first reason wins). */
  fail(message: string): void;
}

/** What a node instance is run with beyond its scope. */
interface Call {
  instance: string;
  /** The instance without its position in the loops (`member#1`): what it answered is kept by. */
  memoryKey: string;
  /** Which conversation memory the instance reads and adds to (see `#conversation`). */
  conversation: string;
  inputs: Record<string, unknown>;
  senders: Record<string, string[]>;
  bindings: Record<string, unknown>;
  signal: AbortSignal;
  round: number | undefined;
  phase: LoopView['phase'];
}

export class NodeRunner {
  readonly #setup: RunnerSetup;
  /** Each instance's conversation, by instance without its round (kept across rounds). */
  readonly #memory = new Map<string, ChatMessage[]>();
  readonly #roundGates = new Map<string, Promise<void>>();
  /** Message edits waiting at their checkpoint, and the edits made, by node instance. */
  readonly #messageEdits = new Map<string, string>();
  readonly #edited = new Map<string, string>();
  /** Outputs set from the debugger for instances held before they start. */
  readonly #overrides = new Map<string, NodeOutputs>();
  readonly #joined = new WeakMap<AbortSignal, AbortSignal>();
  /** The origins the user allowed this run to contact (RunOptions.allowedOrigins). */
  readonly #allowedOrigins: ReadonlySet<string>;
  /** Settles when the run's latest render has (see `render`). */
  #rendered: Promise<unknown> = Promise.resolve();
  /** The last text of each template, for copies that render it from the same values. */
  readonly #renders = new RenderMemo();

  constructor(setup: RunnerSetup) {
    this.#setup = setup;
    this.#allowedOrigins = new Set(setup.options.allowedOrigins ?? []);
  }

  /**
   * The run's signal joined with an actor's, made once per actor signal: every task of a run
   * shares one, and a composite signal per node costs more than the node's own work.
   */
  #signalWith(actorSignal: AbortSignal): AbortSignal {
    let joined = this.#joined.get(actorSignal);
    if (!joined) {
      joined = AbortSignal.any([this.#setup.signal, actorSignal]);
      this.#joined.set(actorSignal, joined);
    }
    return joined;
  }

  /** What an instance held before it starts produces instead of running. */
  override(instance: string, outputs: NodeOutputs): void {
    this.#overrides.set(instance, outputs);
  }

  /** The text a message held at its checkpoint is delivered with. */
  editMessage(instance: string, text: string): void {
    this.#messageEdits.set(instance, text);
  }

  async runNode(
    id: string,
    context: ScopeContext,
    replica: number | undefined,
    actorSignal: AbortSignal,
    phase?: LoopView['phase'],
  ): Promise<{ outputs: NodeOutputs; instance: string }> {
    const { gate, log, loops, options } = this.#setup;
    const graph = this.#setup.graphOf(context);
    const node = graph.plan.nodes.get(id)!;
    const frame = context.loop;
    const round = frame ? context.loops[frame.id]?.round : undefined;
    const base = `${instanceOf(context, id)}${replica === undefined ? '' : `#${replica}`}`;
    const at = frame ? loops.position(node, context, round) : '';
    const instance = frame ? `${base}@${at}${phase ? `:${phase.kind}` : ''}` : base;
    const signal = this.#signalWith(actorSignal);

    // On a branch not taken: never started, no checkpoint, no call; its outputs are not taken
    // either, so what reads only them is skipped in turn.
    const skip = skipCause(node, context);
    if (skip) {
      log.emit({
        type: 'node.skipped',
        node: id,
        instance,
        from: skip.from,
        reason: skip.reason,
        ...(round !== undefined && frame?.stage === 'round' ? { round } : {}),
      });
      const outputs: NodeOutputs = {};
      for (const port of node.ports.outputs) outputs[port.name] = notTaken(skip.reason);
      return { outputs, instance };
    }

    if (frame?.stage === 'round' && round !== undefined && !phase) {
      const key = `${loops.key(frame.id, context)}|${round}`;
      let held = this.#roundGates.get(key);
      if (!held) {
        held = gate.check({
          kind: 'round',
          loop: instanceOf(context, frame.id),
          round,
          group: withoutCopies(loops.key(frame.id, context)),
        });
        this.#roundGates.set(key, held);
      }
      await held;
    }
    // Inside a plan, checkpoints name the node by its path (`planner/answer`), so a breakpoint
    // on the document's own `answer` does not stop there too.
    await gate.check({
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
    const { inputs, senders } = resolveInputs(node, context);
    const runInput = node.spec.runInput?.(node.data);
    if (runInput) {
      // A child graph's inputs are what its parent gave; the run's fall back to defaults.
      const given = options.inputs ?? {};
      inputs.value = graph.inputs
        ? graph.inputs[runInput.name]
        : runInput.name in given
          ? given[runInput.name]
          : runInput.default;
    }
    if (frame?.stage === 'round' && !phase) loops.keepAnswered(`${base}@${at}`, inputs);

    log.emit({
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
      const override = this.#overrides.get(instance) ?? options.overrides?.[instance];
      const execute = override
        ? async (ctx: NodeContext<unknown>) => {
            // A fork's edit: the instance produces the edited values, and its message (if it
            // sends one) carries the edited text. A member left out (`$leftOut`, society
            // credit) sends none, so no transcript hears from it; the mark itself is the log's
            // (a fork of the fork leaves it out too), not a value any reader gets.
            const { $leftOut, ...given } = override;
            if (typeof given.text === 'string' && $leftOut !== true) await ctx.message(given.text);
            return given;
          }
        : await options.registry.executor(node.type);
      const conversation = this.#conversation(node, context, base, replica);
      const call = {
        instance,
        memoryKey: base,
        conversation,
        inputs,
        senders,
        bindings,
        signal,
        round,
        phase,
      };
      const outputs = await execute(this.#context(node, context, call));
      signal.throwIfAborted();
      const edited = this.#edited.get(instance);
      if (edited !== undefined && typeof outputs.text === 'string') outputs.text = edited;
      const taken = Object.fromEntries(Object.entries(outputs).filter(([, v]) => !isNotTaken(v)));
      const untaken = Object.entries(outputs).filter(([, v]) => isNotTaken(v));
      log.emit({
        type: 'node.finished',
        node: id,
        instance,
        // Given values are kept whole: they are the run's record of the edit, which its export
        // carries and a replay gives again (nothing else could produce them).
        outputs: override
          ? { ...outputs, ...(override.$leftOut ? { $leftOut: true } : {}) }
          : previewValues(taken),
        ...(untaken.length
          ? {
              notTaken: Object.fromEntries(
                untaken.map(([port, v]) => [port, (v as { $notTaken: string }).$notTaken]),
              ),
            }
          : {}),
        durationMs: Math.round(performance.now() - started),
        ...(override ? { given: true as const } : {}),
      });
      return { outputs, instance };
    } catch (error) {
      if (isAbortError(error) || signal.aborted) throw error;
      // A plan's node is named by its path: `planner/machine_translation`.
      // A copy (a replica, a round) is named too: `node "organizer" (organizer@r2): …`.
      const copy = instance === id ? '' : ` (${instance})`;
      const message = `node "${context.graph ?? ''}${id}"${copy}: ${errorMessage(error)}`;
      log.emit({ type: 'node.failed', node: id, instance, error: errorMessage(error) });
      this.#setup.fail(message);
      throw new Error(message, { cause: error });
    }
  }

  #context(node: PlannedNode, context: ScopeContext, call: Call): NodeContext<unknown> {
    const { blobs, calls, log, loops, seed } = this.#setup;
    const frame = context.loop;
    const replica = (call.bindings.replica as { index?: number } | undefined)?.index;
    const loopView = frame
      ? loops.view(node, context, call.memoryKey, call.phase, replica)
      : undefined;
    const memory = this.#memory.get(call.conversation) ?? [];
    this.#memory.set(call.conversation, memory);
    const answerShape = this.#answerShape(node, context);
    const { params } = this.#setup.graphOf(context).plan;
    return {
      nodeId: node.id,
      instanceId: call.instance,
      data: node.data,
      inputs: call.inputs,
      senders: call.senders,
      bindings: call.bindings,
      ...(loopView ? { loop: loopView } : {}),
      signal: call.signal,
      allowedOrigins: this.#allowedOrigins,
      random: seededRandom(`${seed}:${call.instance}`),
      memory,
      imageUrl: (image) => blobs.dataUrl(image),
      // The template parameters are there for every template, under whatever a node adds.
      renderTemplate: (template, vars, field) =>
        this.render(template, withParamVars(vars, params), field, call.signal),
      compute: (task, input, what) =>
        runComputeTask(task, input, what, this.#setup.limits, call.signal),
      callModel: async (request) => {
        const result = await calls.callModel(node.id, call.instance, request, call.signal);
        loops.addUsage(node, context, result.usage);
        return result;
      },
      callExpert: (request) => calls.callExpert(node.id, call.instance, request, call.signal),
      tools: (offers) => this.#setup.tools.offer(node.id, call.instance, offers, call.signal),
      callTool: (request, options = {}) =>
        this.#setup.tools.call(node.id, call.instance, request, options, call.signal),
      runGraph: (document, inputs) => this.#setup.runChild(node, call.instance, document, inputs),
      message: (proposed) => this.#message(node, context, call, proposed),
      report: (kind, data) =>
        log.emit({
          type: 'report',
          node: node.id,
          instance: call.instance,
          kind,
          data: parseReport(node.spec, kind, data),
          ...(call.round !== undefined ? { round: call.round } : {}),
        }),
      askHuman: (request) => this.#askHuman(node, call.instance, request),
      ...(answerShape ? { answerShape } : {}),
    };
  }

  /**
   * The key of the memory an instance reads and adds to: its own (`member#1`), or its thread's
   * when its spec names one, within the entry of its innermost loop (`look@r2`), so the
   * conversation lasts across that entry's rounds and stages and a loop entered again starts
   * afresh. Replicas of a node keep one conversation each, threads included.
   */
  #conversation(
    node: PlannedNode,
    context: ScopeContext,
    base: string,
    replica: number | undefined,
  ): string {
    const frame = context.loop;
    const entry = frame ? this.#setup.loops.key(frame.id, context) : context.path;
    const thread = node.spec.thread?.(node.data);
    const own =
      thread === undefined ? base : `~${thread}${replica === undefined ? '' : `#${replica}`}`;
    return `${context.graph ?? ''}|${entry}|${own}`;
  }

  /**
   * The first answer shape a node this one feeds asks for on the port it feeds, looking through
   * nodes that pass that port's value on (a gate) to what they feed, a few nodes deep.
   */
  #answerShape(node: PlannedNode, context: ScopeContext, depth = 0): AnswerShape | undefined {
    const { plan } = this.#setup.graphOf(context);
    for (const edge of node.outgoing) {
      const target = plan.nodes.get(edge.target);
      if (!target) continue;
      const shape = target.spec.inputShape?.(target.data, edge.targetHandle);
      if (shape) return shape;
      if (depth < 4 && target.spec.passesShape?.(target.data, edge.targetHandle)) {
        const passed = this.#answerShape(target, context, depth + 1);
        if (passed) return passed;
      }
    }
    return undefined;
  }

  /** Delivers a message, after its checkpoint; in a loop it enters the transcript. */
  async #message(node: PlannedNode, context: ScopeContext, call: Call, proposed: string) {
    const frame = context.loop;
    await this.#setup.gate.check({
      kind: 'message',
      node: `${context.graph ?? ''}${node.id}`,
      instance: call.instance,
      text: proposed,
      ...(call.round !== undefined ? { round: call.round } : {}),
    });
    call.signal.throwIfAborted();
    // Edited while held at this checkpoint: the edit is what is delivered and output.
    const text =
      this.#messageEdits.get(call.instance) ??
      this.#setup.options.messageEdits?.[call.instance] ??
      proposed;
    this.#messageEdits.delete(call.instance);
    if (text !== proposed) this.#edited.set(call.instance, text);
    const recipients = [...new Set(node.outgoing.map((e) => e.target))];
    this.#setup.log.emit({
      type: 'message',
      from: call.instance,
      node: node.id,
      to: recipients,
      text,
      simulated: isSimulatedText(text),
      ...(text !== proposed ? { edited: true as const } : {}),
      ...(frame
        ? { loop: instanceOf(context, frame.id), stage: call.phase?.kind ?? frame.stage }
        : {}),
      ...(call.round !== undefined && frame?.stage === 'round' ? { round: call.round } : {}),
    });
    if (frame && !call.phase) {
      const entry = {
        round: call.round ?? 0,
        stage: frame.stage,
        from: call.instance,
        to: recipients,
        text,
      };
      this.#setup.loops.addMessage(node, context, entry, call.bindings);
    }
  }

  async #askHuman(
    node: PlannedNode,
    instance: string,
    request: { name: string; prompt: string; fallback?: string; example?: string },
  ): Promise<string> {
    const { log, options } = this.#setup;
    const example = request.example === undefined ? {} : { example: request.example };
    log.emit({
      type: 'human.request',
      node: node.id,
      instance,
      name: request.name,
      prompt: request.prompt,
      ...example,
    });
    // One instance may ask several questions (a seat in a game asks every step): by name.
    let answer =
      log.loggedAnswer(instance, request.name) ??
      options.humanAnswers?.[request.name] ??
      (request.fallback === undefined ? undefined : options.humanAnswers?.[request.fallback]);
    // Nobody to ask (a script, a recording): the document's example answers, and says so.
    const fromExample = answer === undefined && !options.askHuman && request.example !== undefined;
    if (fromExample) answer = request.example;
    if (answer === undefined) {
      if (!options.askHuman) {
        throw new Error(`needs a person's answer: pass --input ${request.name}=...`);
      }
      answer = await options.askHuman({
        node: node.id,
        name: request.name,
        prompt: request.prompt,
        ...example,
      });
    }
    log.emit({
      type: 'human.response',
      node: node.id,
      instance,
      name: request.name,
      answer,
      ...(fromExample ? { fromExample: true as const } : {}),
    });
    return answer;
  }

  /**
   * Renders a node's template within the run's limits (on a rendering thread when it takes more
   * than a moment; see renderNodeTemplate). Renders may finish out of order, but each one's
   * result is handed back only after the one asked for before it: the run goes on in the same
   * order whichever thread finishes first, so replicas reach the debugger's checkpoints, and
   * the log, in a stable order.
   */
  render(
    template: string,
    vars: Record<string, unknown>,
    field: string,
    signal: AbortSignal,
  ): Promise<string> {
    const values = signal.aborted ? undefined : this.#renders.read(template, vars);
    const shared = values && this.#renders.lookup(field, template, values);
    const own = () => renderNodeTemplate(template, vars, field, this.#setup.limits, signal);
    // A shared render that failed (its own copy cancelled, say) is this copy's to render again.
    const rendering = shared ? shared.catch(own) : own();
    if (values && !shared) this.#renders.keep(field, template, values, rendering);
    // A later render may fail while an earlier one is still rendering: its failure is handed
    // on in turn below, so it is not left unhandled meanwhile (that would end the process).
    rendering.catch(() => undefined);
    const inTurn = this.#rendered.then(
      () => rendering,
      () => rendering,
    );
    this.#rendered = inTurn.catch(() => undefined);
    return inTurn;
  }
}
