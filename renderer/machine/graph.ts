/**
 * The compiled XState machines (what `document.compile` returns as `machines`, and `society
 * inspect` prints) as a graph to draw: each machine is a box, its states are nodes inside it,
 * nested states sit inside their parent state, and transitions are labelled edges. A scheduler
 * state's table of nodes (`meta.nodes`, see app/compiler/machine.ts) is drawn too, as the tasks
 * inside the `running` state with an edge from each node to the ones that read it, because that
 * table is what the scheduler actually steps through. Invoked and spawned child machines are
 * joined to what starts them.
 *
 * Pure: plain data in, plain data out, so it is tested without a browser. The configs are read
 * defensively (the page may not import the compiler): anything unexpected is skipped, not thrown.
 */

/** What a box in the drawing is. */
export type MachineNodeKind = 'machine' | 'state' | 'task';

export interface MachineNode {
  /** Unique in the graph: `machine`, `machine/state/child`, `machine/running/#node`. */
  id: string;
  /** The box it sits in (a machine or a state with children). */
  parent?: string;
  kind: MachineNodeKind;
  label: string;
  /** The machine's key in the set: `root`, or a child's actor name (`loop:storm`). */
  machine: string;
  /** The state's path inside its machine (empty for the machine itself). */
  path: string[];
  /** Extra lines: entry actions, what it invokes, transitions that stay in the state. */
  details: string[];
  initial?: boolean;
  final?: boolean;
  /** Boxes that hold others are drawn as groups. */
  group?: boolean;
  /** A task's document node id. */
  node?: string;
  /** A task's replica count, when it runs once per item. */
  replicas?: number;
}

export type MachineEdgeKind = 'event' | 'always' | 'done' | 'error' | 'after' | 'invoke' | 'needs';

export interface MachineEdge {
  id: string;
  source: string;
  target: string;
  label: string;
  kind: MachineEdgeKind;
}

export interface MachineGraph {
  nodes: MachineNode[];
  edges: MachineEdge[];
  /** Machine keys in drawing order: the root first, then its children as the set lists them. */
  machines: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The key of the machine that runs the whole graph. */
export const ROOT_MACHINE = 'root';

/** The id of a machine's box. */
export function machineNodeId(machine: string): string {
  return machine;
}

/** The id of a state's box. */
export function stateNodeId(machine: string, path: readonly string[]): string {
  return [machine, ...path].join('/');
}

/** The id of a scheduled node's box inside a scheduler state. */
export function taskNodeId(machine: string, statePath: readonly string[], node: string): string {
  return `${stateNodeId(machine, statePath)}/#${node}`;
}

/** Actions (`{ type, params }`, a string, or a list of them) as their names on one line. */
export function describeActions(value: unknown): string {
  return asArray(value)
    .map((a) =>
      typeof a === 'string' ? a : isObject(a) && typeof a.type === 'string' ? a.type : '',
    )
    .filter(Boolean)
    .join(', ');
}

/** A named guard, action or actor with its params: `loopContinues maxRounds=3`. */
function describeRef(ref: Json): string {
  const type = typeof ref.type === 'string' ? ref.type : '?';
  const params = isObject(ref.params)
    ? Object.entries(ref.params)
        .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
        .map(([k, v]) => `${k}=${String(v)}`)
    : [];
  return [type, ...params].join(' ');
}

function describeGuard(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  if (isObject(guard)) return describeRef(guard);
  return '';
}

/** The child machines a set holds, by key, with the root under ROOT_MACHINE. */
function machinesOf(set: unknown): Array<[string, Json]> {
  if (!isObject(set)) return [];
  const list: Array<[string, Json]> = [];
  if (isObject(set.root)) list.push([ROOT_MACHINE, set.root]);
  if (isObject(set.children)) {
    for (const [key, config] of Object.entries(set.children)) {
      if (isObject(config)) list.push([key, config]);
    }
  }
  return list;
}

/** Converts a compiled machine set into boxes and arrows. */
export function machineGraph(set: unknown): MachineGraph {
  const nodes: MachineNode[] = [];
  const edges: MachineEdge[] = [];
  const machines = machinesOf(set);
  const keys = new Set(machines.map(([k]) => k));
  /** State box ids by their XState `id` (`#id` targets), machine ids included. */
  const byXStateId = new Map<string, { machine: string; path: string[] }>();
  const edgeIds = new Set<string>();

  const addEdge = (edge: Omit<MachineEdge, 'id'>) => {
    let id = `${edge.source}->${edge.target}:${edge.kind}:${edge.label}`;
    for (let n = 2; edgeIds.has(id); n++)
      id = `${edge.source}->${edge.target}:${edge.kind}:${edge.label}#${n}`;
    edgeIds.add(id);
    edges.push({ id, ...edge });
  };

  // First pass: every box, so transitions can point at states defined later.
  const statesOf = (config: Json): Array<[string, Json]> =>
    isObject(config.states)
      ? Object.entries(config.states).filter((e): e is [string, Json] => isObject(e[1]))
      : [];

  const visit = (machine: string, config: Json, path: string[], parent: string | undefined) => {
    const initial = typeof config.initial === 'string' ? config.initial : undefined;
    for (const [name, state] of statesOf(config)) {
      const statePath = [...path, name];
      const id = stateNodeId(machine, statePath);
      const tasks = scheduledOf(state);
      const children = statesOf(state);
      nodes.push({
        id,
        ...(parent ? { parent } : {}),
        kind: 'state',
        label: name,
        machine,
        path: statePath,
        details: stateDetails(state),
        ...(initial === name ? { initial: true } : {}),
        ...(state.type === 'final' ? { final: true } : {}),
        ...(children.length > 0 || tasks.length > 0 ? { group: true } : {}),
      });
      if (typeof state.id === 'string') byXStateId.set(state.id, { machine, path: statePath });
      for (const [node, task] of tasks) {
        nodes.push({
          id: taskNodeId(machine, statePath, node),
          parent: id,
          kind: 'task',
          label: node,
          machine,
          path: statePath,
          node,
          details: task.run === 'task' ? [] : [`runs ${task.run}`],
          ...(typeof task.replicas === 'number' ? { replicas: task.replicas } : {}),
        });
      }
      visit(machine, state, statePath, id);
    }
  };

  for (const [key, config] of machines) {
    const id = machineNodeId(key);
    nodes.push({
      id,
      kind: 'machine',
      label: typeof config.id === 'string' ? config.id : key,
      machine: key,
      path: [],
      details: [],
      group: true,
    });
    if (typeof config.id === 'string') byXStateId.set(config.id, { machine: key, path: [] });
    visit(key, config, [], id);
  }

  const ids = new Set(nodes.map((n) => n.id));
  const exists = (id: string) => ids.has(id);

  /** The box a transition's target names, seen from the state at `from` (XState v5 rules). */
  const resolve = (machine: string, from: string[], target: string): string | undefined => {
    if (target.startsWith('#')) {
      const [ref = '', ...rest] = target.slice(1).split('.');
      const at = byXStateId.get(ref);
      if (!at) return undefined;
      const id = stateNodeId(at.machine, [...at.path, ...rest]);
      return exists(id) ? id : undefined;
    }
    const steps = target.split('.');
    // `.child` is a child of the source; anything else is a sibling's (or a sibling's child).
    const base = target.startsWith('.') ? from : from.slice(0, -1);
    const id = stateNodeId(machine, [...base, ...steps.filter(Boolean)]);
    return exists(id) ? id : undefined;
  };

  const transitions = (
    machine: string,
    path: string[],
    kind: MachineEdgeKind,
    event: string,
    value: unknown,
  ) => {
    const source = stateNodeId(machine, path);
    for (const t of asArray(value)) {
      const transition = typeof t === 'string' ? { target: t } : isObject(t) ? t : undefined;
      if (!transition) continue;
      const guard = describeGuard(transition.guard);
      const actions = describeActions(transition.actions);
      const label = `${event}${guard ? ` [${guard}]` : ''}${actions ? ` / ${actions}` : ''}`;
      for (const target of asArray(transition.target)) {
        if (typeof target !== 'string') continue;
        const to = resolve(machine, path, target);
        if (to) addEdge({ source, target: to, label, kind });
      }
    }
  };

  // Second pass: the arrows.
  const link = (machine: string, config: Json, path: string[]) => {
    for (const [name, state] of statesOf(config)) {
      const statePath = [...path, name];
      const id = stateNodeId(machine, statePath);
      if (isObject(state.on)) {
        for (const [event, t] of Object.entries(state.on)) {
          transitions(machine, statePath, 'event', event, t);
        }
      }
      transitions(machine, statePath, 'always', 'always', state.always);
      if (isObject(state.after)) {
        for (const [delay, t] of Object.entries(state.after)) {
          transitions(machine, statePath, 'after', `after ${delay}ms`, t);
        }
      }
      for (const invoke of asArray(state.invoke)) {
        if (!isObject(invoke)) continue;
        transitions(machine, statePath, 'done', 'done', invoke.onDone);
        transitions(machine, statePath, 'error', 'error', invoke.onError);
        if (typeof invoke.src === 'string' && keys.has(invoke.src)) {
          addEdge({
            source: id,
            target: machineNodeId(invoke.src),
            label: `${name} invokes`,
            kind: 'invoke',
          });
        }
      }
      const scheduled = scheduledOf(state);
      const siblings = new Set(scheduled.map(([n]) => n));
      for (const [node, task] of scheduled) {
        const taskId = taskNodeId(machine, statePath, node);
        for (const need of task.needs) {
          if (siblings.has(need)) {
            addEdge({
              source: taskNodeId(machine, statePath, need),
              target: taskId,
              label: '',
              kind: 'needs',
            });
          }
        }
        if (task.run !== 'task' && keys.has(task.run)) {
          addEdge({
            source: taskId,
            target: machineNodeId(task.run),
            label: `${node} spawns`,
            kind: 'invoke',
          });
        }
      }
      link(machine, state, statePath);
    }
  };
  for (const [key, config] of machines) link(key, config, []);

  return { nodes, edges, machines: machines.map(([k]) => k) };
}

interface Scheduled {
  run: string;
  needs: string[];
  replicas?: number;
}

/** A scheduler state's table of nodes (`meta.nodes`), in the compiler's order. */
function scheduledOf(state: Json): Array<[string, Scheduled]> {
  const table = isObject(state.meta) && isObject(state.meta.nodes) ? state.meta.nodes : undefined;
  if (!table) return [];
  const list: Array<[string, Scheduled]> = [];
  for (const [node, entry] of Object.entries(table)) {
    if (!isObject(entry)) continue;
    list.push([
      node,
      {
        run: typeof entry.run === 'string' ? entry.run : 'task',
        needs: Array.isArray(entry.needs)
          ? entry.needs.filter((n): n is string => typeof n === 'string')
          : [],
        ...(typeof entry.replicas === 'number' ? { replicas: entry.replicas } : {}),
      },
    ]);
  }
  return list;
}

/** The lines a state shows besides its name. */
function stateDetails(state: Json): string[] {
  const lines: string[] = [];
  const entry = describeActions(state.entry);
  if (entry) lines.push(`entry: ${entry}`);
  const exit = describeActions(state.exit);
  if (exit) lines.push(`exit: ${exit}`);
  for (const invoke of asArray(state.invoke)) {
    if (isObject(invoke) && typeof invoke.src === 'string') lines.push(`invoke: ${invoke.src}`);
  }
  // Transitions without a target stay in the state: listed, since they draw no arrow.
  if (isObject(state.on)) {
    for (const [event, value] of Object.entries(state.on)) {
      for (const t of asArray(value)) {
        if (!isObject(t) || t.target !== undefined) continue;
        const actions = describeActions(t.actions);
        lines.push(`${event}${actions ? ` / ${actions}` : ''}`);
      }
    }
  }
  return lines;
}
