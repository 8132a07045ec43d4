/**
 * Turns the compiler's JSON machine configs into running XState actors. The configs name
 * actors, guards and actions; this module supplies them: each scheduler's `schedule`,
 * `complete` and `allDone` close over its node table and run as actor logic of their own
 * (./scheduler-actor.ts), loop machines get the loop actions through `setup()`, and every
 * `invoke.input` gets the live scope context (the one thing JSON cannot express).
 */

import { type AnyActorLogic, assign, fromPromise, setup } from 'xstate';
import { ancestors } from '../compiler/analyze.ts';
import type { CompiledGraph } from '../compiler/index.ts';
import {
  type ScheduledNode,
  type StateConfig,
  scheduledNodes,
  scopeMembers,
} from '../compiler/machine.ts';
import { isNotTaken, type NodeOutputs } from '../node-sdk/define.ts';
import type { LoopState, LoopStepResult, NodeValues } from '../node-sdk/loop.ts';
import type { Stage } from '../schema/document.ts';
import { instanceOf } from './instance-id.ts';
import { type SchedulerOps, type ScheduleWork, schedulerLogic } from './scheduler-actor.ts';

/** A typed `assign` for scope contexts (XState's own inference needs the whole setup). */
const update = <P>(
  // biome-ignore lint/suspicious/noExplicitAny: these actions receive done events of several actor kinds.
  fn: (args: { context: ScopeContext; event: any }, params: P) => Partial<ScopeContext>,
) => assign(fn as never);

export type { LoopState, NodeValues };

/** Where a node's values keep one port's value in every round of its loop. */
export function roundsPort(port: string): string {
  return `$rounds:${port}`;
}

/** The context of every scope machine. */
export interface ScopeContext {
  /** Instance prefix: '' at the top, `artist#3/` inside replica 3 of group artist. */
  path: string;
  /** Template variables from replication. */
  bindings: Record<string, unknown>;
  values: Record<string, NodeValues>;
  replicas: Record<string, unknown[]>;
  /** Nodes the scheduler has started (all their replicas at once). */
  started: Record<string, true>;
  loops: Record<string, LoopState>;
  /** Set when this machine runs one stage of a loop. */
  loop?: { id: string; stage: Stage };
  /**
   * Set inside a graph a node runs as its child (a planner's plan): the key of that graph in
   * the engine. Absent in the run's own graph.
   */
  graph?: string;
  /**
   * The id prefix this scope's instances leave out: `judge/` inside a copy of a replicated
   * sub-society `judge`, whose members' ids all start with it, so its member `judge/agent1`
   * runs as `judge#2/agent1` rather than `judge#2/judge/agent1`.
   */
  local?: string;
}

/** What the scheduler reports about a task it asked the engine to run. */
export type TaskEvent =
  | {
      type: 'task.done';
      node: string;
      replica?: number;
      output: { outputs: NodeOutputs; instance: string };
    }
  | { type: 'task.failed'; node: string; error: unknown };

export interface EngineHooks {
  /** Runs one node (one replica) and reports back; never throws. */
  startTask(
    node: string,
    context: ScopeContext,
    replica: number | undefined,
    report: (event: TaskEvent) => void,
  ): void;
  loopBegin(loop: string, context: ScopeContext, round: number): void;
  loopEnd(loop: string, context: ScopeContext, state: LoopState): string | undefined;
  /** Runs a step of the loop container's own (`runStep`) in this scope. */
  step(
    loop: string,
    step: string,
    context: ScopeContext,
    signal: AbortSignal,
  ): Promise<LoopStepResult>;
  loopOutputs(loop: string, context: ScopeContext): NodeValues;
  fail(node: string, error: unknown): void;
}

interface ScopeInput {
  scope: string;
  stage?: Stage;
  members: string[];
  replica?: number;
}

export function buildRunMachine(compiled: CompiledGraph, hooks: EngineHooks): AnyActorLogic {
  const { plan, machines } = compiled;
  /** Each container's nodes, at any depth: found once, read at every stage's and copy's end. */
  const within = new Map<string, Set<string>>();
  const isInside = (id: string, container: string) => {
    let inside = within.get(container);
    if (!inside) {
      inside = new Set(
        [...plan.nodes.keys()].filter((n) => ancestors(plan.nodes, n).includes(container)),
      );
      within.set(container, inside);
    }
    return inside.has(id);
  };
  /** For each loop, the source ports read with `collect: all` from outside it. */
  const collected = new Map<string, Array<{ source: string; port: string }>>();
  for (const node of plan.nodes.values()) {
    for (const b of Object.values(node.inputs).flat()) {
      if (!b.collectLoop) continue;
      const list = collected.get(b.collectLoop) ?? [];
      if (!list.some((c) => c.source === b.source && c.port === b.sourcePort)) {
        list.push({ source: b.source, port: b.sourcePort });
      }
      collected.set(b.collectLoop, list);
    }
  }

  /** The context a child scope machine starts with. */
  const childContext = (parent: ScopeContext, input: ScopeInput): ScopeContext => {
    const values = { ...parent.values };
    for (const m of input.members) delete values[m];
    const node = plan.nodes.get(input.scope)!;
    let path = parent.path;
    let local = parent.local;
    let bindings = parent.bindings;
    if (input.replica !== undefined && node.replicate) {
      path = `${instanceOf(parent, input.scope)}#${input.replica}/`;
      local = `${input.scope}/`;
      bindings = {
        ...parent.bindings,
        [node.replicate.as]: node.replicate.items[input.replica],
        replica: { index: input.replica, count: node.replicate.items.length },
      };
    }
    return {
      path,
      bindings,
      values,
      replicas: {},
      started: {},
      loops: parent.loops,
      ...(local ? { local } : {}),
      ...(parent.graph ? { graph: parent.graph } : {}),
      ...(input.stage
        ? { loop: { id: input.scope, stage: input.stage } }
        : parent.loop
          ? { loop: parent.loop }
          : {}),
    };
  };

  /** Values a child scope produced for nodes inside `container`. */
  const innerValues = (output: ScopeContext, container: string) =>
    Object.fromEntries(Object.entries(output.values).filter(([id]) => isInside(id, container)));

  const loopState = (context: ScopeContext, loop: string): LoopState =>
    context.loops[loop] ?? { round: 0, history: [] };

  const common = {
    guards: {
      loopContinues: (
        { context }: { context: ScopeContext },
        params: { loop: string; maxRounds: number },
      ) => {
        const state = loopState(context, params.loop);
        return state.round < params.maxRounds && !state.stop;
      },
    },
    actions: {
      loopEnter: update(({ context }, params: { loop: string }) => ({
        loops: { ...context.loops, [params.loop]: { round: 0, history: [] } },
      })),
      loopBegin: update(({ context }, params: { loop: string }) => {
        const previous = loopState(context, params.loop);
        const state: LoopState = { ...previous, round: previous.round + 1 };
        hooks.loopBegin(params.loop, context, state.round);
        return { loops: { ...context.loops, [params.loop]: state } };
      }),
      loopEnd: update(({ context, event }, params: { loop: string }) => {
        const output = (event as unknown as { output: ScopeContext }).output;
        const round = innerValues(output, params.loop);
        const previous = loopState(context, params.loop);
        const state: LoopState = { ...previous, history: [...previous.history, round] };
        const stop = hooks.loopEnd(params.loop, context, state);
        if (stop) state.stop = stop;
        return {
          values: { ...context.values, ...round },
          loops: { ...context.loops, ...output.loops, [params.loop]: state },
        };
      }),
      loopStage: update(({ context, event }, params: { loop: string }) => {
        const output = (event as unknown as { output: ScopeContext }).output;
        return {
          values: { ...context.values, ...innerValues(output, params.loop) },
          loops: { ...context.loops, ...output.loops },
        };
      }),
      loopStepDone: update(({ context, event }, params: { loop: string }) => {
        const result = (event as unknown as { output: LoopStepResult }).output;
        const state = loopState(context, params.loop);
        return {
          values: { ...context.values, ...result.values },
          loops: {
            ...context.loops,
            [params.loop]: {
              ...state,
              history: result.history ?? state.history,
              ...(result.memo ? { memo: { ...state.memo, ...result.memo } } : {}),
            },
          },
        };
      }),
      loopFinish: update(({ context }, params: { loop: string }) => {
        const values = { ...context.values };
        // Values that leave the loop with `collect: all` are gathered here, while this scope
        // still holds the loop's history; from then on they travel with the node's values,
        // so they survive being gathered from the copies of a replicated group.
        const history = loopState(context, params.loop).history;
        for (const { source, port } of collected.get(params.loop) ?? []) {
          values[source] = {
            ...values[source],
            [roundsPort(port)]: history
              .map((round) => round[source]?.[port])
              .filter((v) => v !== undefined),
          };
        }
        values[params.loop] = hooks.loopOutputs(params.loop, context);
        return { values };
      }),
    },
  };

  /** The values a replicated node's or group's copies produced, as lists in item order. */
  const gathered = (context: ScopeContext, node: string, results: unknown[], group: boolean) => {
    const values = { ...context.values };
    if (!group) {
      const outputs = results as Array<{ outputs: NodeOutputs; instance: string }>;
      const lists: NodeValues = { $instances: outputs.map((r) => r.instance) };
      for (const port of Object.keys(outputs[0]?.outputs ?? {})) {
        lists[port] = gatheredPort(outputs.map((r) => r.outputs[port]));
      }
      values[node] = lists;
    } else {
      const scopes = results as ScopeContext[];
      const inner = new Set(scopes.flatMap((s) => Object.keys(innerValues(s, node))));
      for (const id of inner) {
        const lists: NodeValues = {
          $instances: scopes.flatMap((s) => (s.values[id]?.$instances as string[]) ?? []),
        };
        for (const port of Object.keys(scopes[0]?.values[id] ?? {})) {
          if (port !== '$instances')
            lists[port] = gatheredPort(scopes.map((s) => s.values[id]?.[port]));
        }
        values[id] = lists;
      }
      values[node] = { $instances: scopes.map((s) => s.path) };
    }
    return values;
  };

  /** The guard and actions of one scheduler machine, closed over its node table. */
  const scheduler = (table: Record<string, ScheduledNode>): SchedulerOps<ScopeContext> => {
    const members = Object.keys(table);
    /** For each node, the siblings that wait for it: only they can become ready when it ends. */
    const dependents = new Map<string, string[]>();
    for (const [node, entry] of Object.entries(table)) {
      for (const need of entry.needs) dependents.set(need, [...(dependents.get(need) ?? []), node]);
    }
    /**
     * How far each running scope has got: the members known done, in order, and for each node
     * the needs known met. Values only ever arrive in a scope, so checks resume where they
     * stopped instead of rescanning: a wide fan-in would otherwise be quadratic. Keyed by the
     * scope's `started` record, which lives as long as that scope's actor.
     */
    const progress = new WeakMap<object, { done: number; met: Map<string, number> }>();
    const progressOf = (ctx: ScopeContext) => {
      let p = progress.get(ctx.started);
      if (!p) {
        p = { done: 0, met: new Map() };
        progress.set(ctx.started, p);
      }
      return p;
    };
    /** Whether every sibling a node needs has values (resuming from the last check). */
    const ready = (ctx: ScopeContext, node: string, needs: string[]): boolean => {
      const p = progressOf(ctx);
      let i = p.met.get(node) ?? 0;
      while (i < needs.length && ctx.values[needs[i]!] !== undefined) i++;
      p.met.set(node, i);
      return i === needs.length;
    };
    return {
      allDone: (context) => {
        const p = progressOf(context);
        while (p.done < members.length && context.values[members[p.done]!] !== undefined) p.done++;
        return p.done === members.length;
      },
      schedule: (ctx, event) => {
        const work: ScheduleWork<ScopeContext> = { tasks: [], children: [] };
        const finished = event.type === 'task.done' || event.type.startsWith('xstate.done.actor.');
        const candidates = finished ? (dependents.get(readCompletion(event).node) ?? []) : members;
        for (const node of candidates) {
          const entry = table[node]!;
          if (ctx.started[node] || !ready(ctx, node, entry.needs)) continue;
          // Updated in place: a copy per completion would make a wide fan-in quadratic, and
          // nothing reads earlier snapshots (the event log is the run's record).
          ctx.started[node] = true;
          const copies =
            entry.replicas === undefined ? [undefined] : [...Array(entry.replicas).keys()];
          for (const replica of copies) {
            if (entry.run === 'task') {
              work.tasks.push((report) => hooks.startTask(node, ctx, replica, report));
            } else {
              work.children.push({
                src: entry.run,
                id: replica === undefined ? node : `${node}#${replica}`,
                input: childContext(ctx, {
                  scope: node,
                  members: scopeMembers(plan, node),
                  replica,
                }),
              });
            }
          }
        }
        return work;
      },
      complete: (context, event) => {
        const done = readCompletion(event);
        const entry = table[done.node];
        if (!entry) return {};
        const isTask = entry.run === 'task';
        if (entry.replicas !== undefined) {
          const list = [...(context.replicas[done.node] ?? [])];
          list[done.replica ?? 0] = done.output;
          const replicas = { ...context.replicas, [done.node]: list };
          if (list.filter((r) => r !== undefined).length < entry.replicas) return { replicas };
          return { replicas, values: gathered(context, done.node, list, !isTask) };
        }
        if (isTask) {
          const { outputs, instance } = done.output as { outputs: NodeOutputs; instance: string };
          context.values[done.node] = { ...outputs, $instances: [instance] };
          return {};
        }
        const output = done.output as ScopeContext;
        const isLoop = plan.nodes.get(done.node)?.container === 'loop';
        return {
          values: {
            ...context.values,
            ...innerValues(output, done.node),
            [done.node]: isLoop
              ? (output.values[done.node] ?? {})
              : { $instances: [instanceOf(context, done.node)] },
          },
          loops: { ...context.loops, ...output.loops },
        };
      },
    };
  };

  const actors = {
    loopStep: fromPromise<LoopStepResult, { loop: string; step: string; context: ScopeContext }>(
      ({ input, signal }) => hooks.step(input.loop, input.step, input.context, signal),
    ),
  };

  const built = new Map<string, AnyActorLogic>();
  /** A child machine's logic by actor name, built once per run and shared by its actors. */
  const logicOf = (src: string): AnyActorLogic => {
    let logic = built.get(src);
    if (!logic) {
      const config = machines.children[src];
      if (!config) throw new Error(`compiled machines lack child "${src}"`);
      logic = build(config, false);
      built.set(src, logic);
    }
    return logic;
  };
  const build = (config: StateConfig, isRoot: boolean): AnyActorLogic => {
    // A scheduler (the graph, a group, a stage) runs as actor logic of its own; a loop's machine,
    // whose states its node type's spec builds, runs on XState.
    if (config.states?.running?.meta?.nodes) {
      const own = scheduler(scheduledNodes(config));
      // At the top a failure ends the run; inside, it is raised again so that it reaches the top
      // through every actor in between.
      const fail = (event: { [key: string]: unknown }) =>
        hooks.fail(typeof event.node === 'string' ? event.node : '', event.error);
      return schedulerLogic(isRoot ? { ...own, fail } : own, logicOf, isRoot);
    }
    const childActors: Record<string, AnyActorLogic> = {};
    for (const src of childMachines(config)) childActors[src] = logicOf(src);
    return setup({
      types: {} as { context: ScopeContext; input: ScopeContext },
      guards: common.guards,
      actions: common.actions as never,
      actors: { ...actors, ...childActors },
    }).createMachine({
      ...(hydrate(config, childContext) as object),
      context: ({ input }: { input: ScopeContext }) => input,
      output: ({ context }: { context: ScopeContext }) => context,
    } as never) as unknown as AnyActorLogic;
  };
  return build(machines.root, true);
}

/**
 * One port's values from every copy, as a list; an output no copy took (every copy was on a
 * branch not taken) stays not taken, so what reads it is skipped as well.
 */
function gatheredPort(values: unknown[]): unknown {
  return values.length > 0 && values.every(isNotTaken) ? values[0] : values;
}

/** Names of the child machines a config invokes (loop stages) or spawns (its table's containers). */
function childMachines(config: StateConfig, found = new Set<string>()): Set<string> {
  for (const entry of Object.values(scheduledNodes(config))) {
    if (entry.run !== 'task') found.add(entry.run);
  }
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        const src = (inner as { src?: unknown } | undefined)?.src;
        if (key === 'invoke' && typeof src === 'string' && src.startsWith('scope:')) found.add(src);
        walk(inner);
      }
    }
  };
  walk(config);
  return found;
}

/** Which node (and replica) a `task.done` or child-machine done event is about. */
function readCompletion(event: { type: string; [key: string]: unknown }): {
  node: string;
  replica?: number;
  output: unknown;
} {
  if (event.type === 'task.done') {
    return {
      node: event.node as string,
      replica: event.replica as number | undefined,
      output: event.output,
    };
  }
  // Child machines are spawned with the node's id, or `id#replica` for the copies of a group.
  const id = event.type.slice('xstate.done.actor.'.length);
  const hash = id.lastIndexOf('#');
  return hash === -1
    ? { node: id, output: event.output }
    : { node: id.slice(0, hash), replica: Number(id.slice(hash + 1)), output: event.output };
}

/** Replaces each static `invoke.input` with a function that adds the live scope context. */
function hydrate(
  config: StateConfig,
  childContext: (parent: ScopeContext, input: ScopeInput) => ScopeContext,
): StateConfig {
  if (Array.isArray(config)) return config.map((c) => hydrate(c, childContext));
  if (!config || typeof config !== 'object') return config;
  const out: StateConfig = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'invoke' && value && typeof value === 'object' && !Array.isArray(value)) {
      const input = value.input as Record<string, unknown>;
      const isScope = typeof value.src === 'string' && value.src.startsWith('scope:');
      out.invoke = {
        ...hydrate(value, childContext),
        input: isScope
          ? ({ context }: { context: ScopeContext }) =>
              childContext(context, input as unknown as ScopeInput)
          : ({ context }: { context: ScopeContext }) => ({ ...input, context }),
      };
    } else {
      out[key] = hydrate(value as StateConfig, childContext);
    }
  }
  return out;
}
