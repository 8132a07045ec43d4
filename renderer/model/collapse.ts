/**
 * A collapsed container on the canvas: its members are hidden (React Flow's view-only `hidden`,
 * never saved), and the edges that cross its border attach to its card instead, one handle per
 * member port they reach (`questioner.object`), so what flows in and out stays visible. Edges
 * between its own members are not drawn until it is opened again. See collapse-rule.ts for when
 * a container is collapsed.
 */
import type { NodePorts, PortSpec } from '../../app/node-sdk/define.ts';
import { collapsedOwners, isCollapsedData } from './collapse-rule.ts';
import { type FlowEdge, type FlowNode, isContainer } from './document.ts';
import { deliveredModality, specPorts } from './ports.ts';

export interface CollapsedView {
  /** Each hidden node → the collapsed card that stands for it. */
  owners: ReadonlyMap<string, string>;
  /** Collapsed containers drawn as cards (not themselves inside another collapsed one). */
  cards: ReadonlySet<string>;
  /** The handles of each collapsed card: the member ports edges from outside reach. */
  boundary: ReadonlyMap<string, NodePorts>;
}

const NONE: CollapsedView = { owners: new Map(), cards: new Set(), boundary: new Map() };

/** The handle id on a collapsed card that stands for `member`'s port. */
export const boundaryHandle = (member: string, port: string | null | undefined) =>
  `${member}.${port ?? ''}`;

let last: { nodes: readonly FlowNode[]; edges: readonly FlowEdge[]; view: CollapsedView } | null =
  null;

/**
 * What is collapsed, for the canvas as it is now. Every node card and the canvas ask for it on a
 * store change: it is worked out once per (nodes, edges) pair, in one pass over each.
 */
export function collapsedView(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
): CollapsedView {
  if (last && last.nodes === nodes && last.edges === edges) return last.view;
  // Most canvases collapse nothing: found out without building anything, as this runs on every
  // change (each step of a drag).
  if (!nodes.some((n) => isContainer(n.type) && isCollapsedData(n.data))) {
    last = { nodes, edges, view: NONE };
    return NONE;
  }
  const owners = collapsedOwners(nodes, isContainer);
  const cards = new Set(
    nodes
      .filter((n) => !owners.has(n.id) && isContainer(n.type) && isCollapsedData(n.data))
      .map((n) => n.id),
  );
  const view =
    cards.size === 0 ? NONE : { owners, cards, boundary: boundaryPorts(nodes, edges, owners) };
  last = { nodes, edges, view };
  return view;
}

function boundaryPorts(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
  owners: ReadonlyMap<string, string>,
): Map<string, NodePorts> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const boundary = new Map<
    string,
    { inputs: Map<string, PortSpec>; outputs: Map<string, PortSpec> }
  >();
  const portsOfCard = (card: string) => {
    let ports = boundary.get(card);
    if (!ports) {
      ports = { inputs: new Map(), outputs: new Map() };
      boundary.set(card, ports);
    }
    return ports;
  };
  for (const edge of edges) {
    const from = owners.get(edge.source) ?? edge.source;
    const to = owners.get(edge.target) ?? edge.target;
    if (from === to) continue;
    if (from !== edge.source) {
      const name = boundaryHandle(edge.source, edge.sourceHandle);
      const outputs = portsOfCard(from).outputs;
      if (!outputs.has(name)) {
        const source = byId.get(edge.source);
        const port = source && specPorts(source).outputs.find((p) => p.name === edge.sourceHandle);
        // What leaves the card: a list per replicated container it leaves.
        const modality = port
          ? deliveredModality(edge.source, edge.target, port.modality, byId)
          : 'any';
        outputs.set(name, { name, modality });
      }
    }
    if (to !== edge.target) {
      const name = boundaryHandle(edge.target, edge.targetHandle);
      const inputs = portsOfCard(to).inputs;
      if (!inputs.has(name)) {
        const target = byId.get(edge.target);
        const port = target && specPorts(target).inputs.find((p) => p.name === edge.targetHandle);
        inputs.set(name, {
          name,
          modality: port?.modality ?? 'any',
          ...(port?.multiple ? { multiple: true } : {}),
        });
      }
    }
  }
  return new Map(
    [...boundary].map(([card, p]) => [
      card,
      { inputs: [...p.inputs.values()], outputs: [...p.outputs.values()] },
    ]),
  );
}

// Drawn copies are cached per edge and per pair of ends, so a drag re-renders no edge it did
// not move.
const drawnCache = new WeakMap<FlowEdge, { key: string; drawn: FlowEdge | null }>();

/**
 * The edges as drawn with some containers collapsed: an edge that reaches a hidden member ends
 * on the card standing for it, at the handle for that member's port; an edge between two
 * members of the same card is not drawn. `edges` keep their ids, so selecting and deleting a
 * drawn edge acts on the document's edge.
 */
export function drawnEdges(edges: readonly FlowEdge[], view: CollapsedView): FlowEdge[] {
  if (view.cards.size === 0) return edges as FlowEdge[];
  const out: FlowEdge[] = [];
  for (const edge of edges) {
    const from = view.owners.get(edge.source);
    const to = view.owners.get(edge.target);
    if (!from && !to) {
      out.push(edge);
      continue;
    }
    const key = `${from ?? ''}|${to ?? ''}`;
    let cached = drawnCache.get(edge);
    if (!cached || cached.key !== key) {
      const source = from ?? edge.source;
      const target = to ?? edge.target;
      const drawn: FlowEdge | null =
        source === target
          ? null
          : {
              ...edge,
              source,
              target,
              sourceHandle: from
                ? boundaryHandle(edge.source, edge.sourceHandle)
                : edge.sourceHandle,
              targetHandle: to ? boundaryHandle(edge.target, edge.targetHandle) : edge.targetHandle,
            };
      cached = { key, drawn };
      drawnCache.set(edge, cached);
    }
    if (cached.drawn) out.push(cached.drawn);
  }
  return out;
}

// A node copy per (node, hidden) so React Flow sees the same object until the node changes.
const hiddenCache = new WeakMap<FlowNode, FlowNode>();
const cardCache = new WeakMap<FlowNode, FlowNode>();

/**
 * The nodes as handed to React Flow: members of a collapsed container hidden, and a collapsed
 * container sized by its card (its saved size is kept in the document for when it opens).
 */
export function drawnNodes(nodes: readonly FlowNode[], view: CollapsedView): FlowNode[] {
  if (view.cards.size === 0) return nodes as FlowNode[];
  return nodes.map((node) => {
    if (view.owners.has(node.id)) {
      let hidden = hiddenCache.get(node);
      if (!hidden) {
        hidden = { ...node, hidden: true };
        hiddenCache.set(node, hidden);
      }
      return hidden;
    }
    if (view.cards.has(node.id)) {
      let card = cardCache.get(node);
      if (!card) {
        card = { ...node };
        delete card.width;
        delete card.height;
        cardCache.set(node, card);
      }
      return card;
    }
    return node;
  });
}

const childIndex = new WeakMap<readonly FlowNode[], Map<string, FlowNode[]>>();

/**
 * The nodes inside a container, however deep, in document order: what its collapsed card
 * names. The parent → children index is built once per nodes array.
 */
export function membersOf(nodes: readonly FlowNode[], id: string): FlowNode[] {
  let index = childIndex.get(nodes);
  if (!index) {
    index = new Map();
    for (const n of nodes) {
      if (!n.parentId) continue;
      const list = index.get(n.parentId);
      if (list) list.push(n);
      else index.set(n.parentId, [n]);
    }
    childIndex.set(nodes, index);
  }
  const out: FlowNode[] = [];
  const seen = new Set([id]);
  const visit = (parent: string) => {
    for (const child of index.get(parent) ?? []) {
      if (seen.has(child.id)) continue;
      seen.add(child.id);
      out.push(child);
      visit(child.id);
    }
  };
  visit(id);
  return out;
}
