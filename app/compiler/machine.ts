/**
 * Builds XState v5 machine configs from a GraphPlan. The configs are plain JSON: actors, guards
 * and actions are referenced by name with params, and `invoke.input` holds static data, so
 * `society inspect` prints exactly what runs. The runtime supplies the implementations through
 * `setup()` and attaches the scope context to each invoke (see app/runtime/machine-runtime.ts).
 *
 * Shape: every scope (the graph, a group, a stage of a mindstorm) is a machine whose `running`
 * state is parallel with one region per direct child. A region waits until the siblings it reads
 * from are done (dataflow), then invokes the node (`runNode`), one region per replica, or a child
 * machine for a group. A mindstorm region steps through init → round (repeated) → revise →
 * gather → decide, each stage a child machine.
 */

import { effectiveRights, type MindstormData } from '../../nodes/mindstorm/spec.ts';
import type { Stage } from '../schema/document.ts';
import { type GraphPlan, type PlannedNode, ROOT, scopeDependencies } from './analyze.ts';

/** Bumped when the machine shape changes, so stored runs can refuse an incompatible resume. */
export const COMPILER_VERSION = 1;

// biome-ignore lint/suspicious/noExplicitAny: XState configs are open-ended JSON.
export type StateConfig = Record<string, any>;

export interface MachineSet {
  compilerVersion: number;
  /** The machine that runs the whole graph. */
  root: StateConfig;
  /** Child machines by actor name: `scope:<group>` and `scope:<mindstorm>:<stage>`. */
  children: Record<string, StateConfig>;
}

export function buildMachines(plan: GraphPlan): MachineSet {
  const children: Record<string, StateConfig> = {};
  const root = scopeMachine(plan, ROOT, undefined, children, 'society');
  root.states.failed = { type: 'final' };
  root.states.running.onDone = 'succeeded';
  root.states.succeeded = { type: 'final' };
  delete root.states.done;
  catchFailures(root);
  return { compilerVersion: COMPILER_VERSION, root, children };
}

/**
 * At the top level, any failed invocation ends the run in `failed`; leaving the parallel state
 * stops every other invocation, which aborts their calls. Child machines leave errors unhandled
 * so they rise to the invocation that started them.
 */
function catchFailures(config: StateConfig): void {
  if (!config || typeof config !== 'object') return;
  for (const [key, value] of Object.entries(config)) {
    if (key === 'invoke') value.onError = { target: '#society.failed', actions: { type: 'fail' } };
    else catchFailures(value as StateConfig);
  }
}

/** The actor name of a scope's child machine. */
export function scopeActor(scope: string, stage?: Stage): string {
  return stage ? `scope:${scope}:${stage}` : `scope:${scope}`;
}

function scopeMachine(
  plan: GraphPlan,
  scope: string,
  stage: Stage | undefined,
  out: Record<string, StateConfig>,
  id: string,
  exclude?: string,
): StateConfig {
  const members = scopeMembers(plan, scope, stage, exclude);
  const deps = scopeDependencies(plan.nodes, scope, members);
  const regions: StateConfig = {};
  for (const member of members) {
    regions[member] = region(plan, plan.nodes.get(member)!, [...(deps.get(member) ?? [])], out);
  }
  return {
    id,
    initial: 'running',
    states: {
      running: { type: 'parallel', states: regions, onDone: 'done' },
      done: { type: 'final' },
    },
  };
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

function waiting(needs: string[], target: string): StateConfig {
  return needs.length === 0
    ? { always: { target } }
    : { always: { guard: { type: 'ready', params: { needs } }, target } };
}

function region(
  plan: GraphPlan,
  node: PlannedNode,
  needs: string[],
  out: Record<string, StateConfig>,
): StateConfig {
  if (node.container === 'loop') return loopRegion(plan, node, needs, out);
  if (node.container === 'group') {
    const actor = scopeActor(node.id);
    out[actor] = scopeMachine(plan, node.id, undefined, out, actor);
    return invokeRegion(
      node,
      needs,
      (replica) => ({
        src: actor,
        input: {
          scope: node.id,
          members: scopeMembers(plan, node.id),
          ...(replica === undefined ? {} : { replica }),
        },
      }),
      'mergeScope',
    );
  }
  return invokeRegion(
    node,
    needs,
    (replica) => ({
      src: 'runNode',
      input: replica === undefined ? { node: node.id } : { node: node.id, replica },
    }),
    'store',
  );
}

/**
 * waiting → running → done. A replicated node or group runs one parallel sub-region per item and
 * gathers the results into lists when all are done.
 */
function invokeRegion(
  node: PlannedNode,
  needs: string[],
  invoke: (replica?: number) => { src: string; input: Record<string, unknown> },
  storeAction: 'store' | 'mergeScope',
): StateConfig {
  const states: StateConfig = { waiting: waiting(needs, 'running'), done: { type: 'final' } };
  if (!node.replicate) {
    states.running = {
      invoke: {
        ...invoke(),
        onDone: { target: 'done', actions: { type: storeAction, params: { node: node.id } } },
      },
    };
  } else {
    const count = node.replicate.items.length;
    const replicas: StateConfig = {};
    for (let i = 0; i < count; i++) {
      replicas[`r${i}`] = {
        initial: 'running',
        states: {
          running: {
            invoke: {
              ...invoke(i),
              onDone: {
                target: 'done',
                actions: { type: 'storeReplica', params: { node: node.id, replica: i } },
              },
            },
          },
          done: { type: 'final' },
        },
      };
    }
    states.running = {
      type: 'parallel',
      states: replicas,
      onDone: {
        target: 'done',
        actions: {
          type: 'gatherReplicas',
          params: { node: node.id, count, group: node.container === 'group' },
        },
      },
    };
  }
  return { initial: 'waiting', states };
}

function loopRegion(
  plan: GraphPlan,
  node: PlannedNode,
  needs: string[],
  out: Record<string, StateConfig>,
): StateConfig {
  const data = node.data as unknown as MindstormData;
  const rights = effectiveRights(data);
  const inner = plan.children.get(node.id) ?? [];
  const has = (stage: Stage) => inner.some((m) => plan.nodes.get(m)!.stage === stage);
  const loop = node.id;
  /** Invokes the child machine of one stage; `exclude` leaves out the leader after a vote. */
  const stageInvoke = (stage: Stage, exclude?: string) => {
    const actor = exclude ? `${scopeActor(loop, stage)}:after-vote` : scopeActor(loop, stage);
    out[actor] = scopeMachine(plan, loop, stage, out, actor, exclude);
    return {
      src: actor,
      input: { scope: loop, stage, members: scopeMembers(plan, loop, stage, exclude) },
    };
  };

  const after: string[] = [];
  if (rights.rtc && data.members.length > 0) after.push('revise');
  if (has('gather')) after.push('gather');
  if (has('decide') || (rights.rte && data.leader)) after.push('decide');
  after.push('done');

  const states: StateConfig = {};
  const first = has('init') ? 'init' : 'round';
  states.waiting = waiting(needs, first);
  if (has('init')) {
    states.init = {
      invoke: {
        ...stageInvoke('init'),
        onDone: { target: 'round', actions: { type: 'loopStage', params: { loop } } },
      },
    };
  }
  states.round = {
    entry: { type: 'loopBegin', params: { loop } },
    invoke: {
      ...stageInvoke('round'),
      onDone: { target: 'between', actions: { type: 'loopEnd', params: { loop } } },
    },
  };
  states.between = {
    always: [
      {
        guard: { type: 'loopContinues', params: { loop, maxRounds: data.maxRounds } },
        target: 'round',
      },
      { target: after[0] },
    ],
  };
  after.forEach((stage, i) => {
    const next = after[i + 1];
    if (stage === 'revise') {
      states.revise = {
        invoke: {
          src: 'loopRevise',
          input: { loop },
          onDone: { target: next, actions: { type: 'loopRevised', params: { loop } } },
        },
      };
    } else if (stage === 'gather') {
      states.gather = {
        invoke: {
          ...stageInvoke('gather'),
          onDone: { target: next, actions: { type: 'loopStage', params: { loop } } },
        },
      };
    } else if (stage === 'decide') {
      // Under the right to execute, members vote on the leader's question instead of the leader
      // answering it; other decide-stage nodes still run afterwards as usual.
      const voting = rights.rte && data.leader;
      states.decide = voting
        ? {
            invoke: {
              src: 'loopVote',
              input: { loop },
              onDone: {
                target:
                  scopeMembers(plan, loop, 'decide', data.leader).length > 0 ? 'decideRest' : next,
                actions: { type: 'loopVoted', params: { loop } },
              },
            },
          }
        : {
            invoke: {
              ...stageInvoke('decide'),
              onDone: { target: next, actions: { type: 'loopStage', params: { loop } } },
            },
          };
      const others = scopeMembers(plan, loop, 'decide', data.leader);
      if (voting && others.length > 0) {
        states.decideRest = {
          invoke: {
            ...stageInvoke('decide', data.leader),
            onDone: { target: next, actions: { type: 'loopStage', params: { loop } } },
          },
        };
      }
    } else {
      states.done = { type: 'final', entry: { type: 'loopFinish', params: { loop } } };
    }
  });
  return { initial: 'waiting', states };
}
