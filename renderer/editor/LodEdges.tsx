/**
 * The canvas zoomed out (below the titles band, lod.ts): cards are titled boxes without ports
 * or handles, and the edges are drawn here as one SVG with one path per look (modality,
 * previous round, broken, tool), instead of one React Flow edge component each. React Flow
 * then keeps only the selected edges, so a selection is still shown and can be deleted.
 */
import {
  type InternalNode,
  type NodeProps,
  useStoreApi,
  useUpdateNodeInternals,
  ViewportPortal,
} from '@xyflow/react';
import { createContext, memo, useEffect, useMemo, useRef } from 'react';
import { absolutePosition, type FlowEdge, type FlowNode, nodeSize } from '../model/document.ts';
import { cardEstimate } from './estimate.ts';

/** True while the canvas is zoomed out: cards render as titled boxes (SocietyNode, ContainerNode). */
export const ZoomedOut = createContext(false);

/** Props a card's drawing does not read: where it sits, and the size React Flow measured. */
const PLACEMENT = new Set(['width', 'height', 'positionAbsoluteX', 'positionAbsoluteY', 'zIndex']);

/**
 * Whether a card draws the same for these props: its measured size and its place are left out,
 * so measuring a newly opened document, or dragging a card, does not draw its card again.
 */
export function sameCard(a: NodeProps<FlowNode>, b: NodeProps<FlowNode>): boolean {
  for (const key of Object.keys(b) as Array<keyof NodeProps<FlowNode>>) {
    if (!PLACEMENT.has(key) && a[key] !== b[key]) return false;
  }
  return Object.keys(a).length === Object.keys(b).length;
}

const sized = new WeakMap<FlowNode, FlowNode>();

/**
 * The node as React Flow gets it zoomed out: with its measured size as its own, so its box
 * keeps the size its card had (nothing is measured again, edges stay where they were). One
 * copy per node object, so a drag re-adopts only the dragged node.
 */
export function sizedNode(node: FlowNode): FlowNode {
  // Not measured yet: the size estimated from its ports (estimate.ts).
  const width = node.measured?.width ?? node.initialWidth;
  const height = node.measured?.height ?? node.initialHeight;
  if (!width || !height || (node.width && node.height)) return node;
  let copy = sized.get(node);
  if (!copy) {
    copy = { ...node, width, height };
    sized.set(node, copy);
  }
  return copy;
}

/**
 * Each edge as a curve from the right middle of its source card to the left middle of its
 * target's, grouped by class: a few paths for every edge of a 1,000-node society.
 */
export function lodPaths(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
): Array<{ className: string; d: string }> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const boxes = new Map<string, { x: number; y: number; width: number; height: number }>();
  const box = (id: string) => {
    let b = boxes.get(id);
    const node = byId.get(id);
    if (!b && node && !node.hidden) {
      b = { ...absolutePosition(id, byId), ...nodeSize(node) };
      boxes.set(id, b);
    }
    return b;
  };
  const paths = new Map<string, string[]>();
  for (const e of edges) {
    if (e.hidden || e.selected) continue;
    const s = box(e.source);
    const t = box(e.target);
    if (!s || !t) continue;
    const x1 = s.x + s.width;
    const y1 = s.y + s.height / 2;
    const x2 = t.x;
    const y2 = t.y + t.height / 2;
    const dx = Math.max(Math.abs(x2 - x1) / 2, 25);
    const d = `M${x1} ${y1}C${x1 + dx} ${y1} ${x2 - dx} ${y2} ${x2} ${y2}`;
    const key = e.className ?? '';
    const list = paths.get(key);
    if (list) list.push(d);
    else paths.set(key, [d]);
  }
  return [...paths].map(([className, ds]) => ({ className, d: ds.join('') }));
}

/** The zoomed-out edges, in the viewport (so panning moves them without a render), under the cards. */
function LodEdgesView({
  nodes,
  edges,
}: {
  nodes: readonly FlowNode[];
  edges: readonly FlowEdge[];
}) {
  const paths = useMemo(() => lodPaths(nodes, edges), [nodes, edges]);
  return (
    <ViewportPortal>
      <svg className="lod-edges" data-testid="lod-edges" aria-hidden="true">
        {paths.map((p) => (
          <g key={p.className} className={`react-flow__edge lod-edge ${p.className}`}>
            <path className="react-flow__edge-path" d={p.d} />
          </g>
        ))}
      </svg>
    </ViewportPortal>
  );
}

export const LodEdges = memo(LodEdgesView);

type HandleBounds = InternalNode<FlowNode>['internals']['handleBounds'];

/**
 * Keeps edges on their ports across a zoom out and back. A card drawn as a box has no handles,
 * so React Flow measures none for a box it mounts (one scrolled into view). Back at detail, the
 * cards in the page are measured again in one pass, and those out of view (not rendered) get
 * back the handles they had before zooming out (or, never drawn as cards, estimated ones), so
 * their edges into the view are drawn.
 */
export function useHandlesAcrossZoom(zoomedOut: boolean): void {
  const store = useStoreApi<FlowNode>();
  const updateNodeInternals = useUpdateNodeInternals();
  const saved = useRef(new Map<string, HandleBounds>());
  const was = useRef(zoomedOut);
  useEffect(() => {
    const { nodeLookup } = store.getState();
    if (!was.current && zoomedOut) {
      saved.current = new Map();
      for (const [id, n] of nodeLookup) {
        const bounds = n.internals.handleBounds;
        if (bounds?.source || bounds?.target) saved.current.set(id, bounds);
      }
    } else if (was.current && !zoomedOut) {
      for (const [id, n] of nodeLookup) {
        const now = n.internals.handleBounds;
        if (now?.source || now?.target) continue;
        // Boxes first drawn zoomed out never had handles: theirs are estimated (estimate.ts).
        const bounds = saved.current.get(id) ?? estimatedHandleBounds(n.internals.userNode);
        if (bounds) {
          nodeLookup.set(id, { ...n, internals: { ...n.internals, handleBounds: bounds } });
        }
      }
      // As React Flow does after changing its node lookup in place: its subscribers read it again.
      store.setState({});
      updateNodeInternals([...nodeLookup.keys()]);
    }
    was.current = zoomedOut;
  }, [zoomedOut, store, updateNodeInternals]);
}

/** A card's estimated handles as React Flow keeps measured ones, or undefined. */
function estimatedHandleBounds(node: FlowNode): HandleBounds | undefined {
  const estimate = cardEstimate(node);
  if (!estimate) return undefined;
  const bounds = estimate.handles.map((h) => ({
    ...h,
    id: h.id ?? null,
    width: h.width ?? 1,
    height: h.height ?? 1,
    nodeId: node.id,
  }));
  return {
    source: bounds.filter((h) => h.type === 'source'),
    target: bounds.filter((h) => h.type === 'target'),
  };
}
