/**
 * Which boxes of the machine drawing a run is in, derived from the run view the event stream
 * folds into (renderer/model/run.ts). The engine does not send its XState snapshots to the page,
 * so this is what the events honestly tell:
 *
 * - per document node, not per replica: a scheduler's task is running, held, done or failed as
 *   `node.started` / `node.finished` / `node.failed` / `paused` say, or skipped (`node.skipped`: on a
 *   branch not taken, it never started) (replicas are counted in a
 *   note, e.g. "2 of 3 running");
 * - a scheduler's `running` state, a state that invokes a child machine, and a machine's box are
 *   lit while anything inside is running or held;
 * - a mindstorm's stage (init, round, revise, gather, decide) is the stage whose scheduler has a
 *   node running, and its round is `round.started`'s (noted on the `round` state); a run held
 *   before a round starts lights that `round` state as held;
 * - final states: the root's `succeeded` / `failed` when the run ends, a stage scheduler's
 *   `done` once all its nodes are done.
 *
 * Transient states (a loop's `between`) and which transition just fired are not observable from
 * the events, so they are never lit.
 */
import type { NodeRun, RunView } from '../model/run.ts';
import { type MachineGraph, ROOT_MACHINE, stateNodeId } from './graph.ts';

export type Highlight = 'active' | 'paused' | 'done' | 'failed' | 'skipped';

export interface MachineHighlight {
  /** By box id (graph.ts ids). */
  boxes: Record<string, Highlight>;
  /** Short notes by box id: "round 2 of 3", "2 of 3 running". */
  notes: Record<string, string>;
}

/** What of a run the highlight reads. */
export type RunState = Pick<RunView, 'status' | 'nodes'>;

const LOOP_PREFIX = 'loop:';

function ofNode(n: NodeRun | undefined): Highlight | undefined {
  const state = n?.state;
  switch (state) {
    case 'running':
      return 'active';
    case 'paused':
      return 'paused';
    case 'done':
      return 'done';
    case 'failed':
      return 'failed';
    case 'skipped':
      return 'skipped';
    case 'waiting':
    case undefined:
      return undefined;
    default:
      return state satisfies never;
  }
}

/** A held run is what people look for first, then what runs. */
function stronger(a: Highlight | undefined, b: Highlight | undefined): Highlight | undefined {
  const rank = (h: Highlight | undefined) => (h === 'paused' ? 2 : h === 'active' ? 1 : 0);
  return rank(b) > rank(a) ? b : a;
}

export function machineHighlight(graph: MachineGraph, run: RunState): MachineHighlight {
  const boxes: Record<string, Highlight> = {};
  const notes: Record<string, string> = {};
  if (run.status === 'idle') return { boxes, notes };

  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const children = new Map<string, string[]>();
  for (const n of graph.nodes) {
    if (n.parent) children.set(n.parent, [...(children.get(n.parent) ?? []), n.id]);
  }

  // Tasks: straight from the node's run state.
  for (const n of graph.nodes) {
    if (n.kind !== 'task' || !n.node) continue;
    const state = run.nodes[n.node];
    const h = ofNode(state);
    if (h) boxes[n.id] = h;
    if (state && n.replicas !== undefined && state.active > 0) {
      notes[n.id] = `${state.active} of ${n.replicas} running`;
    }
  }

  // Loops: the round on the `round` state; a run held before a round lights that state.
  for (const key of graph.machines) {
    if (!key.startsWith(LOOP_PREFIX)) continue;
    const loop = run.nodes[key.slice(LOOP_PREFIX.length)];
    const roundState = stateNodeId(key, ['round']);
    if (!loop || !byId.has(roundState)) continue;
    if (loop.round !== undefined) {
      notes[roundState] =
        loop.maxRounds !== undefined
          ? `round ${loop.round} of ${loop.maxRounds}`
          : `round ${loop.round}`;
    }
    if (loop.state === 'paused') boxes[roundState] = 'paused';
    const done = stateNodeId(key, ['done']);
    if (loop.state === 'done' && byId.has(done)) boxes[done] = 'done';
  }

  // Containers and invoking states take the strongest of what is inside, until nothing changes.
  // A state that invokes a machine, and a task that spawns one, are as busy as that machine.
  const invokes = graph.edges.filter((e) => e.kind === 'invoke');
  for (let changed = true, guard = 0; changed && guard < 50; guard++) {
    changed = false;
    const lift = (id: string, h: Highlight | undefined) => {
      const next = stronger(boxes[id], h);
      if (next && next !== boxes[id]) {
        boxes[id] = next;
        changed = true;
      }
    };
    for (const [parent, kids] of children) {
      for (const kid of kids) {
        const h = boxes[kid];
        if (h === 'active' || h === 'paused') lift(parent, h);
      }
    }
    for (const e of invokes) {
      const h = boxes[e.target];
      if (h === 'active' || h === 'paused') lift(e.source, h);
    }
  }

  // Final states.
  const rootOk = stateNodeId(ROOT_MACHINE, ['succeeded']);
  const rootFailed = stateNodeId(ROOT_MACHINE, ['failed']);
  if (run.status === 'succeeded' && byId.has(rootOk)) boxes[rootOk] = 'done';
  if (run.status === 'failed' && byId.has(rootFailed)) boxes[rootFailed] = 'failed';
  for (const key of graph.machines) {
    if (key === ROOT_MACHINE) continue;
    const running = stateNodeId(key, ['running']);
    const done = stateNodeId(key, ['done']);
    const tasks = (children.get(running) ?? []).filter((id) => byId.get(id)?.kind === 'task');
    if (
      byId.has(done) &&
      tasks.length > 0 &&
      !boxes[running] &&
      tasks.every((id) => boxes[id] === 'done' || boxes[id] === 'skipped')
    ) {
      boxes[done] = 'done';
    }
  }
  return { boxes, notes };
}
