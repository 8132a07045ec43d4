/**
 * Automatic layout with elkjs: data flows left to right in layers, and containers (mindstorms,
 * groups) are laid out as compound nodes, their members inside them, so one pass arranges the
 * whole society, and edges that cross a container's border are routed with everything else.
 * Used for the Layout command, and for graphs that arrive without positions (plans made at run
 * time, imported files with every node at the origin).
 *
 * ELK is given as a parameter so this module stays pure and testable under Node; the editor
 * passes `elkjs/lib/elk.bundled.js`, which runs in the page (no worker, no eval).
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import { collapsedOwners, isCollapsedData } from './collapse-rule.ts';
import { type FlowEdge, type FlowNode, isContainer, nodeSize } from './document.ts';

/** Layout options: ELK's layered algorithm, roomy enough for port labels. */
const LAYOUT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'RIGHT',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.layered.spacing.nodeNodeBetweenLayers': '80',
  'elk.spacing.nodeNode': '40',
  'elk.spacing.edgeNode': '30',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.layered.crossingMinimization.strategy': 'LAYER_SWEEP',
};

/** A collapsed card's size before React Flow has measured it. */
const CARD_ESTIMATE = { width: 260, height: 120 };

/** Room inside a container: its title bar on top, its footer (rounds badge) below. */
const CONTAINER_PADDING = '[top=56,left=30,bottom=50,right=30]';

/** Where each node goes: positions relative to its parent, and sizes for containers. */
export interface LayoutResult {
  positions: Map<string, { x: number; y: number }>;
  sizes: Map<string, { width: number; height: number }>;
}

/**
 * Lays out `nodes` (React Flow nodes, parents before children) and `edges`. With `only`, the
 * nodes outside that set keep their place (and their size), so a layout of a selection or of a
 * new plan does not disturb the rest; the laid-out part is placed where it was. A collapsed
 * container is laid out as the card it is drawn as; what it hides keeps its place inside it.
 */
export async function layoutGraph(
  elk: ELK,
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
  only?: ReadonlySet<string>,
): Promise<LayoutResult> {
  const hiddenIn = collapsedOwners(nodes, isContainer);
  const inScope = (id: string) => (!only || only.has(id)) && !hiddenIn.has(id);
  const elkNodes = new Map<string, ElkNode>();
  const root: ElkNode = { id: '__root__', layoutOptions: LAYOUT_OPTIONS, children: [] };
  for (const node of nodes) {
    if (!inScope(node.id)) continue;
    const card = isContainer(node.type) && isCollapsedData(node.data);
    const container = isContainer(node.type) && !card;
    const size = card
      ? {
          width: node.measured?.width ?? CARD_ESTIMATE.width,
          height: node.measured?.height ?? CARD_ESTIMATE.height,
        }
      : nodeSize(node);
    const elkNode: ElkNode = {
      id: node.id,
      // Containers are sized by ELK from their members; leaves by what React Flow measured.
      ...(container ? {} : { width: size.width, height: size.height }),
      layoutOptions: container
        ? { 'elk.padding': CONTAINER_PADDING, ...LAYOUT_OPTIONS }
        : { 'elk.portConstraints': 'FREE' },
      children: [],
    };
    elkNodes.set(node.id, elkNode);
  }
  for (const node of nodes) {
    const elkNode = elkNodes.get(node.id);
    if (!elkNode) continue;
    const parent = node.parentId ? elkNodes.get(node.parentId) : undefined;
    (parent ?? root).children!.push(elkNode);
  }
  // An empty container still needs a size.
  for (const node of nodes) {
    const elkNode = elkNodes.get(node.id);
    if (
      elkNode &&
      isContainer(node.type) &&
      !isCollapsedData(node.data) &&
      elkNode.children!.length === 0
    ) {
      const size = nodeSize(node);
      elkNode.width = size.width;
      elkNode.height = size.height;
    }
  }
  const elkEdges: ElkExtendedEdge[] = [];
  for (const edge of edges) {
    // An edge to a hidden member is laid out as the edge to its card.
    const source = hiddenIn.get(edge.source) ?? edge.source;
    const target = hiddenIn.get(edge.target) ?? edge.target;
    if (source === target || !elkNodes.has(source) || !elkNodes.has(target)) continue;
    // An edge into the previous round (a loop's back edge) would turn the layers around.
    if ((edge.data as { previousRound?: boolean } | undefined)?.previousRound) continue;
    if (isAncestor(source, target, nodes) || isAncestor(target, source, nodes)) continue;
    elkEdges.push({ id: edge.id, sources: [source], targets: [target] });
  }
  root.edges = elkEdges;

  const laid = await elk.layout(root);

  const positions = new Map<string, { x: number; y: number }>();
  const sizes = new Map<string, { width: number; height: number }>();
  const visit = (n: ElkNode) => {
    for (const child of n.children ?? []) {
      positions.set(child.id, { x: Math.round(child.x ?? 0), y: Math.round(child.y ?? 0) });
      if (child.children && child.children.length > 0) {
        sizes.set(child.id, {
          width: Math.round(child.width ?? 0),
          height: Math.round(child.height ?? 0),
        });
      }
      visit(child);
    }
  };
  visit(laid);

  if (only) {
    // Keep the laid-out part where it was: shift each top-level piece by the old top-left corner.
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const tops = [...positions.keys()].filter((id) => {
      const parent = byId.get(id)?.parentId;
      return !parent || !only.has(parent);
    });
    if (tops.length > 0) {
      const minOld = corner(tops.map((id) => byId.get(id)!.position));
      const minNew = corner(tops.map((id) => positions.get(id)!));
      for (const id of tops) {
        const p = positions.get(id)!;
        positions.set(id, { x: p.x - minNew.x + minOld.x, y: p.y - minNew.y + minOld.y });
      }
    }
  }
  return { positions, sizes };
}

/** Whether a node has no useful positions: every one of them at the same point. */
export function needsLayout(nodes: readonly FlowNode[]): boolean {
  if (nodes.length < 2) return false;
  const first = nodes[0]!.position;
  return nodes.every((n) => n.position.x === first.x && n.position.y === first.y);
}

function isAncestor(maybeAncestor: string, id: string, nodes: readonly FlowNode[]): boolean {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const seen = new Set<string>();
  for (let p = byId.get(id)?.parentId; p && !seen.has(p); p = byId.get(p)?.parentId) {
    if (p === maybeAncestor) return true;
    seen.add(p);
  }
  return false;
}

function corner(points: ReadonlyArray<{ x: number; y: number }>): { x: number; y: number } {
  return {
    x: Math.min(...points.map((p) => p.x)),
    y: Math.min(...points.map((p) => p.y)),
  };
}
