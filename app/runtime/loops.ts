/**
 * The engine's side of loop containers: it keeps each loop entry's transcript and what its
 * nodes answered, says where an execution sits in the loops around it, and bridges the loop
 * machine's actions to the container's run-time part (`LoopRuntime`, loaded through the
 * registry): round events, stop conditions, what a node inside sees, steps, outputs.
 */

import { ancestors, type GraphPlan, type PlannedNode } from '../compiler/analyze.ts';
import type { LoopView, NodeOutputs, TranscriptEntry } from '../node-sdk/define.ts';
import type {
  LoopRuntime,
  LoopState,
  LoopStepContext,
  LoopStepResult,
  LoopUsage,
} from '../node-sdk/loop.ts';
import type { NodeRegistry } from '../node-sdk/registry.ts';
import { isAbortError } from '../providers/types.ts';
import { withParamVars } from '../schema/params.ts';
import type { RunEventBody } from './events.ts';
import { resolveInputs } from './inputs.ts';
import { instanceOf } from './instance-id.ts';
import { formatPosition, loopKey, outerSegments } from './loop-position.ts';
import type { NodeValues, ScopeContext } from './machine-runtime.ts';
import { parseReport } from './reports.ts';
import { errorMessage } from './values.ts';

/** What loop steps need of the node runner: running a node inside, rendering a template. */
export interface LoopRunner {
  runNode(
    id: string,
    context: ScopeContext,
    replica: number | undefined,
    signal: AbortSignal,
    phase: LoopView['phase'],
  ): Promise<{ outputs: NodeOutputs; instance: string }>;
  render(
    template: string,
    vars: Record<string, unknown>,
    field: string,
    signal: AbortSignal,
  ): Promise<string>;
}

const STAGE_RANK: Record<string, number> = { init: 0, round: 1, gather: 2, decide: 3 };

export class Loops {
  readonly #registry: NodeRegistry;
  readonly #seed: string;
  readonly #emit: (body: RunEventBody) => void;
  readonly #planOf: (context: Pick<ScopeContext, 'graph'>) => GraphPlan;
  /** The run-time part of each loop container type in the run (see `load`). */
  readonly #runtimes = new Map<string, LoopRuntime<unknown>>();
  /** Transcripts by loop key (`storm`, `inner@r2`). */
  readonly #transcripts = new Map<string, TranscriptEntry[]>();
  /** Each transcript entry's place in graph order (see `#order`). */
  readonly #rank = new WeakMap<TranscriptEntry, number>();
  /** Text inputs each member instance answered, by `memoryKey@position`, for later rights. */
  readonly #answered = new Map<string, Record<string, unknown>>();
  /** What each loop entry's model calls used, by loop key (a loop entered again: a new key). */
  readonly #usage = new Map<string, LoopUsage>();

  constructor(setup: {
    registry: NodeRegistry;
    seed: string;
    emit: (body: RunEventBody) => void;
    planOf: (context: Pick<ScopeContext, 'graph'>) => GraphPlan;
  }) {
    this.#registry = setup.registry;
    this.#seed = setup.seed;
    this.#emit = setup.emit;
    this.#planOf = setup.planOf;
  }

  /** Loads the run-time part of every loop container in a plan, before its machine starts. */
  async load(plan: GraphPlan): Promise<void> {
    for (const node of plan.nodes.values()) {
      if (node.container !== 'loop' || this.#runtimes.has(node.type)) continue;
      this.#runtimes.set(node.type, await this.#registry.loopRuntime(node.type));
    }
  }

  /** A loop's transcript by key: the loop's id, or instance id inside a replicated group. */
  transcript(key: string): TranscriptEntry[] {
    return [...(this.#transcripts.get(key) ?? [])];
  }

  /** A loop's transcript and round-checkpoint key: `storm`, or `inner@r2` inside another loop. */
  key(loop: string, context: ScopeContext): string {
    return loopKey(this.#planOf(context).nodes, instanceOf(context, loop), loop, context.loops);
  }

  /**
   * Where a node runs in the loops around it (`r3`, `gather`, `r2.3`): the innermost loop's
   * stage from the scope, its round `round` when that stage is `round`.
   */
  position(node: PlannedNode, context: ScopeContext, round: number | undefined): string {
    const frame = context.loop!;
    const outer = outerSegments(this.#planOf(context).nodes, node.id, context.loops, frame.id);
    return formatPosition([...outer, frame.stage === 'round' ? (round ?? 0) : frame.stage]);
  }

  /** Keeps what an instance answered in a round (`memoryKey@position`), for later rights. */
  keepAnswered(key: string, inputs: Record<string, unknown>): void {
    this.#answered.set(key, inputs);
  }

  /**
   * Counts a model call a node made toward every loop entry around it (the innermost and the
   * ones it sits in), for stop conditions on what a loop has used.
   */
  addUsage(
    node: PlannedNode,
    context: ScopeContext,
    usage: { promptTokens: number; completionTokens: number },
  ): void {
    const nodes = this.#planOf(context).nodes as Map<string, PlannedNode>;
    for (const loop of ancestors(nodes, node.id)) {
      if (nodes.get(loop)?.container !== 'loop' || !context.loops[loop]) continue;
      const key = this.key(loop, context);
      const sum = this.#usage.get(key) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
      sum.calls++;
      sum.promptTokens += usage.promptTokens;
      sum.completionTokens += usage.completionTokens;
      this.#usage.set(key, sum);
    }
  }

  #of(loop: string, context: Pick<ScopeContext, 'graph'>) {
    const node = this.#planOf(context).nodes.get(loop)!;
    const runtime = this.#runtimes.get(node.type);
    if (!runtime) throw new Error(`the run-time part of ${node.type} "${loop}" is not loaded`);
    return { node, data: node.data as unknown, runtime, maxRounds: node.spec.loop!.maxRounds };
  }

  // ---- the loop machine's actions ------------------------------------------------------------

  begin(loop: string, context: ScopeContext, round: number): void {
    const { data, maxRounds } = this.#of(loop, context);
    this.#emit({
      type: 'round.started',
      loop: instanceOf(context, loop),
      round,
      maxRounds: maxRounds(data),
    });
  }

  /** Ends a round: the stop condition that held, if one did. */
  end(loop: string, context: ScopeContext, state: LoopState): string | undefined {
    const { data, runtime } = this.#of(loop, context);
    const usage = this.#usage.get(this.key(loop, context));
    const stop = runtime.stopReason?.(
      data,
      state.history[state.round - 1] ?? {},
      state.history[state.round - 2],
      { ...(usage ?? { calls: 0, promptTokens: 0, completionTokens: 0 }) },
    );
    this.#emit({
      type: 'round.finished',
      loop: instanceOf(context, loop),
      round: state.round,
      ...(stop ? { stop } : {}),
    });
    return stop;
  }

  outputs(loop: string, context: ScopeContext): NodeValues {
    const { data, runtime } = this.#of(loop, context);
    const key = this.key(loop, context);
    const outputs = runtime.outputs({
      data,
      state: context.loops[loop]!,
      transcript: this.#transcripts.get(key) ?? [],
      values: context.values,
    });
    return { ...outputs, $instances: [key] };
  }

  // ---- nodes inside --------------------------------------------------------------------------

  /** What a node inside sees of its innermost loop. */
  view(
    node: PlannedNode,
    context: ScopeContext,
    memoryKey: string,
    phase: LoopView['phase'],
    replica?: number,
  ): LoopView {
    const frame = context.loop!;
    const { data, runtime, maxRounds } = this.#of(frame.id, context);
    const state = context.loops[frame.id] ?? { round: 0, history: [] };
    const nodes = this.#planOf(context).nodes;
    return {
      id: frame.id,
      round: state.round,
      maxRounds: maxRounds(data),
      stage: frame.stage,
      transcript: this.transcript(this.key(frame.id, context)),
      ...runtime.view({
        data,
        node: node.id,
        ...(replica === undefined ? {} : { replica }),
        stage: frame.stage,
        state,
        ...(phase ? { phase } : {}),
        replicated: (id) => nodes.get(id)?.replicate !== undefined,
        inputsAnswered: (round) =>
          this.#answered.get(`${memoryKey}@${this.position(node, context, round)}`) ?? {},
      }),
      ...(phase ? { phase } : {}),
    };
  }

  /**
   * Adds a message to its loop's transcript. Messages of one round arrive in whatever order the
   * models answer; the transcript is kept in graph order instead (round, stage, node, replica),
   * so prompts built from it are the same live, replayed from a cassette, or resumed.
   */
  addMessage(
    node: PlannedNode,
    context: ScopeContext,
    entry: TranscriptEntry,
    bindings: Record<string, unknown>,
  ): void {
    const key = this.key(context.loop!.id, context);
    const transcript = this.#transcripts.get(key) ?? [];
    const replica = (bindings.replica as { index?: number } | undefined)?.index ?? 0;
    const stage = STAGE_RANK[entry.stage] ?? 4;
    const order = ((entry.round * 8 + stage) * 100_000 + node.index) * 10_000 + replica;
    const at = transcript.findIndex((e) => this.#rank.get(e)! > order);
    this.#rank.set(entry, order);
    transcript.splice(at === -1 ? transcript.length : at, 0, entry);
    this.#transcripts.set(key, transcript);
  }

  // ---- steps ---------------------------------------------------------------------------------

  /**
   * Runs a step of a loop container's own (a mindstorm's revisions or vote) with a narrow view
   * of the run: nodes inside run through the node runner, as in a round or at a stage.
   */
  step(
    loop: string,
    step: string,
    context: ScopeContext,
    signal: AbortSignal,
    runner: LoopRunner,
  ): Promise<LoopStepResult> {
    const { node, data, runtime } = this.#of(loop, context);
    const perform = runtime.steps?.[step];
    if (!perform) throw new Error(`loop "${loop}" has no step "${step}"`);
    const nodes = this.#planOf(context).nodes;
    const key = this.key(loop, context);
    const state = structuredClone(context.loops[loop]!);
    const inRound = (round: number): ScopeContext => ({
      ...context,
      loop: { id: loop, stage: 'round' },
      loops: { ...context.loops, [loop]: { ...state, round } },
    });
    const at = (id: string, replica: number | undefined, round: number) =>
      `${instanceOf(context, id)}${replica === undefined ? '' : `#${replica}`}@${this.position(nodes.get(id)!, inRound(round), round)}`;
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
      inputsAnswered: (id, replica, round) => this.#answered.get(at(id, replica, round)) ?? {},
      run: (id, replica, where, phase) =>
        runner.runNode(
          id,
          'round' in where
            ? inRound(where.round)
            : { ...context, loop: { id: loop, stage: where.stage } },
          replica,
          signal,
          phase,
        ),
      render: (id, template, field) => {
        const { inputs } = resolveInputs(nodes.get(id)!, context);
        return runner
          .render(
            template,
            withParamVars({ ...context.bindings, ...inputs }, this.#planOf(context).params),
            field,
            signal,
          )
          .catch((error) => {
            throw isAbortError(error) ? error : new Error(`node "${id}": ${errorMessage(error)}`);
          });
      },
      report: (kind, data) =>
        this.#emit({
          type: 'report',
          node: loop,
          instance: key,
          kind,
          data: parseReport(node.spec, kind, data),
        }),
    };
    return perform(ctx);
  }
}
