/**
 * Builds XState v5 machine configs from a GraphPlan. The configs are plain JSON: actors, guards
 * and actions are referenced by name with params, so `society inspect` prints exactly what runs.
 * The runtime supplies the implementations (app/runtime/machine-runtime.ts): a loop's machine
 * through XState's `setup()`, a scheduler as actor logic that interprets its `running` state
 * (app/runtime/scheduler-actor.ts).
 *
 * Every scope (the graph, a group, one stage of a mindstorm) is a scheduler machine. Its
 * `running` state lists the scope's nodes in `meta.nodes` with the siblings each one reads from.
 * `schedule` starts every node whose inputs are ready — all replicas at once — as a task (the
 * engine runs it and answers with `task.done` or `task.failed`) or, for a group or mindstorm, as
 * a spawned child machine. Each completion stores the node's values and schedules again, so a
 * node starts the moment its inputs exist and independent branches run side by side. A loop
 * container's machine is built by its spec (`spec.loop.states`, e.g. the mindstorm's
 * init → round (repeated) → revise → gather → decide), each stage a scheduler of its own.
 *
 * Why not one parallel region per node: XState's transition selection over a flat parallel state
 * grows with the cube of its regions, so a 1,000-node graph took over a minute to start
 * (bench/engine-overhead.ts); a scheduler costs the same per event whatever the graph's size.
 */

import type { LoopStatesBuilder, StateConfig } from '../node-sdk/loop.ts';
import type { Stage } from '../schema/document.ts';
import { type GraphPlan, type PlannedNode, ROOT, scopeDependencies } from './analyze.ts';

/** Bumped when the machine shape changes, so stored runs can refuse an incompatible resume. */
export const COMPILER_VERSION = 3;

export type { StateConfig };

export interface MachineSet {
  compilerVersion: number;
  /** The machine that runs the whole graph. */
  root: StateConfig;
  /**
   * Child machines by actor name: `scope:<group>`, `loop:<loop>` and
   * `scope:<loop>:<stage>`.
   */
  children: Record<string, StateConfig>;
}

/** How a scheduler runs one of its nodes. */
export interface ScheduledNode {
  /** `task` for a node the engine executes; otherwise the child machine's actor name. */
  run: string;
  /** Siblings whose values must exist before it starts. */
  needs: string[];
  /** Present when the node or group runs once per item. */
  replicas?: number;
}

export function buildMachines(plan: GraphPlan): MachineSet {
  const children: Record<string, StateConfig> = {};
  const root = schedulerMachine(plan, ROOT, undefined, children, 'society', true);
  return { compilerVersion: COMPILER_VERSION, root, children };
}

/** The actor name of a scope's child machine. */
export function scopeActor(scope: string, stage?: Stage): string {
  return stage ? `scope:${scope}:${stage}` : `scope:${scope}`;
}

/** The direct children of a scope that run in a given stage (all of them outside loops). */
export function scopeMembers(
  plan: GraphPlan,
  scope: string,
  stage?: Stage,
  exclude?: string,
): string[] {
  let members = plan.children.get(scope) ?? [];
  if (stage) members = members.filter((m) => plan.nodes.get(m)!.stage === stage);
  return exclude ? members.filter((m) => m !== exclude) : members;
}

/** The scheduler table of a running scope machine (its `running` state's `meta.nodes`). */
export function scheduledNodes(config: StateConfig): Record<string, ScheduledNode> {
  return config.states?.running?.meta?.nodes ?? {};
}

function schedulerMachine(
  plan: GraphPlan,
  scope: string,
  stage: Stage | undefined,
  out: Record<string, StateConfig>,
  id: string,
  isRoot: boolean,
  exclude?: string,
): StateConfig {
  const members = scopeMembers(plan, scope, stage, exclude);
  const deps = scopeDependencies(plan.nodes, scope, members);
  const nodes: Record<string, ScheduledNode> = {};
  for (const member of members) {
    const node = plan.nodes.get(member)!;
    let run = 'task';
    if (node.container === 'loop') {
      run = `loop:${member}`;
      out[run] = loopMachine(plan, node, out);
    } else if (node.container === 'group') {
      run = scopeActor(member);
      out[run] = schedulerMachine(plan, member, undefined, out, run, false);
    }
    nodes[member] = {
      run,
      needs: [...(deps.get(member) ?? [])],
      ...(node.replicate ? { replicas: node.replicate.items.length } : {}),
    };
  }
  // At the top a failure ends the run; in a child machine it is raised again so that it reaches
  // the top through every machine in between.
  const onFailure = isRoot
    ? { target: 'failed', actions: { type: 'fail' } }
    : { actions: { type: 'escalate' } };
  return {
    id,
    initial: 'running',
    states: {
      running: {
        meta: { nodes },
        entry: { type: 'schedule' },
        on: {
          'task.done': { actions: [{ type: 'complete' }, { type: 'schedule' }] },
          'xstate.done.actor.*': { actions: [{ type: 'complete' }, { type: 'schedule' }] },
          'task.failed': onFailure,
          'xstate.error.actor.*': onFailure,
        },
        always: { guard: { type: 'allDone' }, target: isRoot ? 'succeeded' : 'done' },
      },
      ...(isRoot
        ? { succeeded: { type: 'final' }, failed: { type: 'final' } }
        : { done: { type: 'final' } }),
    },
  };
}

/**
 * A loop container's machine: its own states (`spec.loop.states`), built from the pieces the
 * compiler offers, with an entry that starts the rounds afresh each time the loop is entered.
 */
function loopMachine(
  plan: GraphPlan,
  node: PlannedNode,
  out: Record<string, StateConfig>,
): StateConfig {
  const loop = node.id;
  const spec = node.spec.loop;
  if (!spec) throw new Error(`node type "${node.type}" is a loop but its spec has no \`loop\``);
  const inner = plan.children.get(loop) ?? [];
  const params = { loop };
  const build: LoopStatesBuilder = {
    loop,
    has: (stage) => inner.some((m) => plan.nodes.get(m)!.stage === stage),
    members: (stage, exclude) => scopeMembers(plan, loop, stage, exclude),
    runStage(stage, exclude) {
      const actor = exclude
        ? `${scopeActor(loop, stage)}:without-${exclude}`
        : scopeActor(loop, stage);
      out[actor] = schedulerMachine(plan, loop, stage, out, actor, false, exclude);
      return {
        src: actor,
        input: { scope: loop, stage, members: scopeMembers(plan, loop, stage, exclude) },
      };
    },
    runStep: (step) => ({ src: 'loopStep', input: { loop, step } }),
    actions: {
      begin: { type: 'loopBegin', params },
      end: { type: 'loopEnd', params },
      stage: { type: 'loopStage', params },
      step: { type: 'loopStepDone', params },
      finish: { type: 'loopFinish', params },
    },
    continues: (maxRounds) => ({ type: 'loopContinues', params: { loop, maxRounds } }),
  };
  const { initial, states } = spec.states(node.data, build);
  // Entered again (inside another loop), a loop starts from round 1 with an empty history.
  return { id: `loop:${loop}`, initial, entry: { type: 'loopEnter', params }, states };
}
