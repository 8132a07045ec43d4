/**
 * Wires into `tool` ports as the editor sees them: a node's output wired into an agent's `tools`
 * offers that node as a tool (app/compiler/wired-tools.ts), so no value flows on it and the
 * offered node takes no other wires. Mirrors the compiler's refusals while an edge is drawn.
 */
import { TOOL_MODALITY } from '../../app/schema/modality.ts';
import type { EdgeLike, NodeLike } from './ports.ts';
import { specPorts } from './ports.ts';
import { specOf } from './registry.ts';

/** Whether an edge ends on a `tool` port of its target. */
export function isToolWire(edge: EdgeLike, byId: ReadonlyMap<string, NodeLike>): boolean {
  const target = byId.get(edge.target);
  if (!target) return false;
  const port = specPorts(target).inputs.find((p) => p.name === edge.targetHandle);
  return port?.modality === TOOL_MODALITY;
}

/** Who each node is offered to as a tool, worked out once per version of the canvas's edges. */
const owned = new WeakMap<
  readonly EdgeLike[],
  { nodes: object; owners: ReadonlyMap<string, readonly string[]> }
>();

/**
 * The nodes `id` is offered to as a tool, by a wire into their tool ports. Takes the nodes as a
 * map or a list. Every card asks on every change of the editor's state (a run's events too), so
 * the answer for all nodes is kept while the nodes and the edges stay the same objects.
 */
export function toolOwners(
  id: string,
  nodes: ReadonlyMap<string, NodeLike> | readonly NodeLike[],
  edges: readonly EdgeLike[],
): readonly string[] {
  let known = owned.get(edges);
  if (known?.nodes !== nodes) {
    const byId = 'get' in nodes ? nodes : new Map(nodes.map((n) => [n.id, n]));
    const owners = new Map<string, string[]>();
    for (const e of edges) {
      if (!isToolWire(e, byId)) continue;
      const list = owners.get(e.source) ?? [];
      if (!list.includes(e.target)) list.push(e.target);
      owners.set(e.source, list);
    }
    known = { nodes, owners };
    owned.set(edges, known);
  }
  return known.owners.get(id) ?? [];
}

/**
 * Why an edge from `source` into `target` may not be drawn because of tool wires, if it may
 * not: a run input or output, a group or a loop offered as a tool; a node offered as a tool fed
 * or feeding the flow; a node already in the flow offered as a tool.
 */
export function toolWireRefusal(
  source: NodeLike,
  target: NodeLike,
  intoTool: boolean,
  byId: ReadonlyMap<string, NodeLike>,
  edges: readonly EdgeLike[],
): string | undefined {
  if (intoTool) {
    const spec = specOf(source.type);
    if (spec?.runInput || spec?.runOutput) {
      return `a run ${spec.runInput ? 'input' : 'output'} cannot be offered as a tool (${target.id}.tools)`;
    }
    if (spec?.container && !spec.subgraph) {
      return `a ${spec.title.toLowerCase()} cannot be offered as a tool: make it a sub-society`;
    }
    const flow = edges.find(
      (e) => (e.target === source.id || e.source === source.id) && !isToolWire(e, byId),
    );
    if (flow) {
      return `${source.id} is wired into the flow (${flow.source} → ${flow.target}): a node offered as a tool runs only when called`;
    }
    return undefined;
  }
  for (const id of [source.id, target.id]) {
    const owners = toolOwners(id, byId, edges);
    if (owners.length > 0) {
      return `${id} is offered as a tool to ${owners.join(', ')}: its inputs come from the calls and its result goes back to the caller`;
    }
  }
  return undefined;
}
