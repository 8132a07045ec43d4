import {
  Background,
  BackgroundVariant,
  type Connection,
  ControlButton,
  Controls,
  type Edge,
  getViewportForBounds,
  MiniMap,
  type OnNodeDrag,
  Panel,
  ReactFlow,
  useConnection,
  useReactFlow,
  useStore,
} from '@xyflow/react';
import { type DragEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { BOX_SELECT_KEY, DELETE_KEYS, MULTI_SELECT_KEYS } from '../help/shortcuts.ts';
import { collapsedView, drawnEdges, drawnNodes } from '../model/collapse.ts';
import { isToolWire } from '../model/tool-wires.ts';
import './wired-tools.css';
import {
  absolutePosition,
  containerAt,
  type FlowEdge,
  type FlowNode,
  freeSpot,
  nodeSize,
} from '../model/document.ts';
import { needsLayout } from '../model/layout.ts';
import { checkConnection, modalityLook, specPorts, subgraphOf } from '../model/ports.ts';
import {
  addNode,
  connect,
  notify,
  onEdgesChange,
  onNodesChange,
  pushHistory,
  reparent,
  useEditor,
} from '../store.ts';
import { useTheme } from '../theme.ts';
import { autoLayout } from './autoLayout.ts';
import { Breadcrumbs } from './Breadcrumbs.tsx';
import { estimatedNode, hasSize } from './estimate.ts';
import { framePadding, MINIMAP, minimapFits, openingViewport, type Rect } from './framing.ts';
import { lodBand } from './lod.ts';
import './lod.css';
import { LodEdges, sizedNode, useHandlesAcrossZoom, ZoomedOut } from './LodEdges.tsx';
import { openGraph } from './library-actions.ts';
import { nodeTypes } from './nodeTypes.ts';

export const PALETTE_MIME = 'application/x-society-node';

/** Whether React Flow has measured the node, or it has a size of its own. */
const isMeasured = (n: FlowNode): boolean =>
  Boolean((n.measured?.width ?? n.width) && (n.measured?.height ?? n.height));

const byIdOf = (nodes: readonly FlowNode[]) => new Map(nodes.map((n) => [n.id, n]));

function isValidConnection(c: Edge | Connection): boolean {
  const { nodes, edges } = useEditor.getState();
  return checkConnection(c, byIdOf(nodes), edges).ok;
}

/**
 * While an edge is being drawn over a handle it may not reach, says why ("image does not fit
 * text (agent2.topic)"); React Flow only colours the handle.
 */
function ConnectionBanner() {
  const connection = useConnection();
  const nodes = useEditor((s) => s.nodes);
  const edges = useEditor((s) => s.edges);
  if (!connection.inProgress) return null;
  const to = connection.toHandle;
  if (!to) {
    return (
      <div className="connection-hint" data-testid="connection-hint">
        Drop on {connection.fromHandle.type === 'source' ? 'an input' : 'an output'} of the same
        kind
      </div>
    );
  }
  const fromIsSource = connection.fromHandle.type === 'source';
  const attempt = fromIsSource
    ? {
        source: connection.fromHandle.nodeId,
        sourceHandle: connection.fromHandle.id,
        target: to.nodeId,
        targetHandle: to.id,
      }
    : {
        source: to.nodeId,
        sourceHandle: to.id,
        target: connection.fromHandle.nodeId,
        targetHandle: connection.fromHandle.id,
      };
  if (to.type === connection.fromHandle.type) {
    return (
      <div className="connection-reason" data-testid="connection-reason" role="alert">
        Connect an output to an input
      </div>
    );
  }
  const check = checkConnection(attempt, byIdOf(nodes), edges);
  if (check.ok) {
    return (
      <div className="connection-ok" data-testid="connection-ok">
        {check.modality} fits {attempt.target}.{attempt.targetHandle}
      </div>
    );
  }
  return (
    <div className="connection-reason" data-testid="connection-reason" role="alert">
      {check.reason}
    </div>
  );
}

// Styled copies are cached per edge and per source-data object, so dragging one node does not
// restyle every edge.
const edgeStyleCache = new WeakMap<FlowEdge, { source: unknown; styled: FlowEdge }>();

function styledEdge(edge: FlowEdge, byId: ReadonlyMap<string, FlowNode>): FlowEdge {
  const source = byId.get(edge.source);
  const cached = edgeStyleCache.get(edge);
  if (cached && cached.source === source?.data) return cached.styled;
  // A wire offering its source as a tool carries no value: drawn apart, labelled.
  if (isToolWire(edge, byId)) {
    const styled: FlowEdge = { ...edge, className: 'edge-tool', label: 'tool' };
    edgeStyleCache.set(edge, { source: source?.data, styled });
    return styled;
  }
  const port = source
    ? specPorts(source).outputs.find((p) => p.name === edge.sourceHandle)
    : undefined;
  const look = modalityLook(port?.modality ?? 'any');
  const classes = [`edge-mod-${look.base}`];
  if (edge.data?.previousRound === true) classes.push('edge-previous-round');
  if (!port) classes.push('edge-broken');
  const styled: FlowEdge = {
    ...edge,
    className: classes.join(' '),
    label: edge.data?.previousRound === true ? 'previous round' : undefined,
  };
  edgeStyleCache.set(edge, { source: source?.data, styled });
  return styled;
}

const minimapColor = (node: FlowNode): string => {
  const state = useEditor.getState().run.nodes[node.id]?.state;
  // Theme colours (styles.css): the minimap draws them as SVG fills, which resolve var().
  if (state === 'running') return 'var(--warn)';
  if (state === 'done') return 'var(--ok)';
  if (state === 'failed') return 'var(--danger)';
  if (state === 'paused') return 'var(--paused)';
  return node.parentId ? 'var(--line-strong)' : 'var(--muted)';
};

const MINIMAP_KEY = 'society-studio.minimap';

/** Whether the user wants the minimap (remembered; shown only where the canvas has room). */
function useMinimapWanted(): [boolean, () => void] {
  const [wanted, setWanted] = useState(() => {
    try {
      return localStorage.getItem(MINIMAP_KEY) !== 'hidden';
    } catch {
      return true;
    }
  });
  const toggle = useCallback(() => {
    setWanted((was) => {
      try {
        localStorage.setItem(MINIMAP_KEY, was ? 'hidden' : 'shown');
      } catch {
        // Storage may be disabled; the choice then lasts until the page is reloaded.
      }
      return !was;
    });
  }, []);
  return [wanted, toggle];
}

/** The least zoom: a 1,000-node society fits whole. */
const MIN_ZOOM = 0.1;

/** The most a fit zooms in: a document of two nodes is not blown up to fill the screen. */
const FIT_MAX_ZOOM = 1.25;

/** Societies larger than this render only the nodes in view when zoomed in. */
const CULL_ABOVE = 300;

export function Canvas() {
  const theme = useTheme();
  const nodes = useEditor((s) => s.nodes);
  const edges = useEditor((s) => s.edges);
  const epoch = useEditor((s) => s.epoch);
  const { screenToFlowPosition, getNodes, getEdges, getNodesBounds, setViewport } = useReactFlow<
    FlowNode,
    FlowEdge
  >();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const [minimapWanted, toggleMinimap] = useMinimapWanted();
  const minimap = minimapWanted && minimapFits({ width, height });
  // Frames the document with the controls' and the minimap's corners kept free. An empty
  // document is never framed: React Flow would keep the fit queued and zoom right in on the
  // first node dropped.
  const frame = useCallback(
    (duration: number) => {
      const all = getNodes().filter((n) => !n.hidden);
      if (all.length === 0) return Promise.resolve(false);
      // The bounds of every node, measured or estimated (estimate.ts): React Flow's fitView
      // would frame only the measured ones, the cards drawn so far.
      const bounds = getNodesBounds(all);
      const padding = framePadding(bounds, { width, height }, minimap);
      const viewport = getViewportForBounds(bounds, width, height, MIN_ZOOM, FIT_MAX_ZOOM, padding);
      return setViewport(viewport, { duration });
    },
    [getNodes, getNodesBounds, setViewport, width, height, minimap],
  );
  // A document opens fitted whole when that draws its cards readably, else on its entry point
  // at a readable zoom (framing.ts).
  const open = useCallback(() => {
    const all = getNodes().filter((n) => !n.hidden);
    if (all.length === 0) return;
    const bounds: Rect = getNodesBounds(all);
    const viewport = openingViewport(bounds, entryBounds(), { width, height }, minimap);
    if (viewport) void setViewport(viewport);
    else void frame(0);
    function entryBounds(): Rect {
      // Nothing flows into the entry (a round's feedback aside); open containers stand for
      // their members. The nodes it feeds come into view with it.
      const edges = getEdges().filter((e) => !e.hidden && e.data?.previousRound !== true);
      const fed = new Set(edges.map((e) => e.target));
      const parents = new Set(all.map((n) => n.parentId));
      const entry = new Set(
        all.filter((n) => !fed.has(n.id) && !parents.has(n.id)).map((n) => n.id),
      );
      for (const e of edges) if (entry.has(e.source) && !parents.has(e.target)) entry.add(e.target);
      const focus = all.filter((n) => entry.has(n.id));
      return getNodesBounds(focus.length ? focus : all);
    }
  }, [frame, getNodes, getEdges, getNodesBounds, setViewport, width, height, minimap]);
  // The level of detail (lod.ts) as the canvas's data-lod: the selector's result changes only
  // when the zoom crosses a band's edge, so panning and zooming within a band re-render nothing.
  const lod = useStore((s) => lodBand(s.transform[2]));
  // Zoomed far out, cards are titled boxes without ports or handles and the edges one drawing
  // (LodEdges.tsx): port rows and edge components are most of what the browser lays out and
  // paints on every pan frame.
  const zoomedOut = lod === 'far' || lod === 'shapes';

  // Collapsed containers are drawn as cards: their members hidden, edges ending on the card.
  const collapsed = collapsedView(nodes, edges);
  const shownNodes = useMemo(() => drawnNodes(nodes, collapsed), [nodes, collapsed]);
  // Cards not yet measured come with an estimated size and handles (estimate.ts), so React Flow
  // draws only those in view from the first render; zoomed out, boxes of that size.
  // Only a document big enough to be culled needs them: a small one draws every card at once,
  // each shown once measured, so no card moves under the pointer when its real size comes.
  const flowNodes = useMemo(() => {
    const estimate = shownNodes.length > CULL_ABOVE ? estimatedNode : (n: FlowNode) => n;
    return zoomedOut ? shownNodes.map((n) => sizedNode(estimate(n))) : shownNodes.map(estimate);
  }, [zoomedOut, shownNodes]);
  const shownEdges = useMemo(() => {
    const byId = byIdOf(nodes);
    return drawnEdges(
      edges.map((e) => styledEdge(e, byId)),
      collapsed,
    );
  }, [nodes, edges, collapsed]);
  // Zoomed out, React Flow draws only the selected edges (still shown, still deletable).
  const flowEdges = useMemo(
    () => (zoomedOut ? shownEdges.filter((e) => e.selected) : shownEdges),
    [zoomedOut, shownEdges],
  );
  // Back from a zoomed-out view, the cards have their handles again (LodEdges.tsx).
  useHandlesAcrossZoom(zoomedOut);

  // A new document is framed once every node of it has a size: measured, or estimated from its
  // ports (estimate.ts), so a big document is framed at once, without drawing every card first.
  // React Flow's own queued fitView fires on the first measurements, before the rest of a big
  // document is measured, and then zooms right in on a few nodes. Hidden members are never
  // measured.
  const measured = useEditor((s) => {
    // A document laid out first (below) waits for its cards' real sizes: the layout reads them.
    // So does one small enough to draw whole, framed on the sizes its cards really have; only a
    // big one, whose cards out of view are never drawn, is framed on the estimates.
    const sized = needsLayout(s.nodes) || s.nodes.length <= CULL_ABOVE ? isMeasured : hasSize;
    const { owners, cards } = collapsedView(s.nodes, s.edges);
    if (cards.size === 0) return s.nodes.every(sized);
    return s.nodes.every(
      (n) =>
        owners.has(n.id) || (cards.has(n.id) ? n.measured?.width && n.measured.height : sized(n)),
    );
  });
  const framed = useRef(0);
  useEffect(() => {
    if (measured && framed.current !== epoch) {
      framed.current = epoch;
      // A document whose nodes all sit at one point (a generated plan, a hand-written file)
      // is laid out first.
      // A new, empty document starts at the natural size, wherever the last one was zoomed.
      if (useEditor.getState().nodes.length === 0) void setViewport({ x: 0, y: 0, zoom: 1 });
      else if (needsLayout(useEditor.getState().nodes)) {
        void autoLayout().then(open);
      } else open();
    }
  }, [epoch, measured, open, setViewport]);

  const onLayout = useCallback(() => {
    const selected = useEditor.getState().nodes.filter((n) => n.selected);
    void autoLayout(selected.length > 1 ? new Set(selected.map((n) => n.id)) : undefined).then(
      () => {
        if (selected.length <= 1) void frame(200);
      },
    );
  }, [frame]);

  const onConnect = useCallback((c: Connection) => {
    const reason = connect(c);
    if (reason) notify('error', reason);
  }, []);

  const onDragOver = useCallback((event: DragEvent) => {
    if (!event.dataTransfer.types.includes(PALETTE_MIME)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const type = event.dataTransfer.getData(PALETTE_MIME);
      if (!type) return;
      event.preventDefault();
      // The node lands where it is dropped, at the zoom there is; on another node it moves to
      // the nearest free place.
      const at = screenToFlowPosition({ x: event.clientX, y: event.clientY });
      const { nodes, edges } = useEditor.getState();
      addNode(
        type,
        freeSpot(at, nodes),
        containerAt(at, nodes, undefined, collapsedView(nodes, edges)),
      );
    },
    [screenToFlowPosition],
  );

  const onNodeDragStart = useCallback<OnNodeDrag<FlowNode>>(() => pushHistory(), []);

  // Dropping a node over a container puts it inside; dragging it out takes it out.
  const onNodeDragStop = useCallback<OnNodeDrag<FlowNode>>((_event, _node, dragged) => {
    const moved = new Set(dragged.map((n) => n.id));
    for (const node of dragged) {
      if (node.parentId && moved.has(node.parentId)) continue;
      const all = useEditor.getState().nodes;
      const byId = byIdOf(all);
      const current = byId.get(node.id);
      if (!current) continue;
      const at = absolutePosition(node.id, byId);
      const size = nodeSize(current);
      const center = { x: at.x + size.width / 2, y: at.y + size.height / 2 };
      const target = containerAt(
        center,
        all,
        node.id,
        collapsedView(all, useEditor.getState().edges),
      );
      if (target?.id !== current.parentId) reparent(node.id, target);
    }
  }, []);

  // A sub-society node opens its library graph on the canvas.
  const onNodeDoubleClick = useCallback((_event: unknown, node: FlowNode) => {
    const graph = subgraphOf(node);
    if (graph) openGraph(graph, node.id);
  }, []);

  return (
    <div className="canvas" data-lod={lod} data-testid="canvas">
      <ZoomedOut.Provider value={zoomedOut}>
        <ReactFlow<FlowNode, FlowEdge>
          nodes={flowNodes}
          edges={flowEdges}
          nodeTypes={nodeTypes}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onConnect={onConnect}
          isValidConnection={isValidConnection}
          onDragOver={onDragOver}
          onDrop={onDrop}
          onNodeDragStart={onNodeDragStart}
          onNodeDragStop={onNodeDragStop}
          onNodeDoubleClick={onNodeDoubleClick}
          deleteKeyCode={DELETE_KEYS}
          multiSelectionKeyCode={MULTI_SELECT_KEYS}
          selectionKeyCode={BOX_SELECT_KEY}
          // Zoomed in on a big society, most nodes are off screen: skip rendering them. Zoomed out
          // they are all in view, and culling would only add work to every pan frame.
          onlyRenderVisibleElements={!zoomedOut && nodes.length > CULL_ABOVE}
          colorMode={theme}
          minZoom={MIN_ZOOM}
        >
          <Background variant={BackgroundVariant.Dots} gap={20} size={1} />
          <Controls showFitView={false}>
            <ControlButton
              onClick={() => void frame(200)}
              title="Fit the whole society in view"
              aria-label="Fit view"
              data-testid="fit-view"
            >
              ⤢
            </ControlButton>
            <ControlButton
              onClick={onLayout}
              title="Arrange automatically (the selection, or everything)"
              aria-label="Arrange automatically"
              data-testid="auto-layout"
            >
              ⇶
            </ControlButton>
            <ControlButton
              onClick={toggleMinimap}
              title={
                minimapFits({ width, height })
                  ? minimapWanted
                    ? 'Hide the minimap'
                    : 'Show the minimap'
                  : 'The canvas is too small for the minimap; enlarge the window or the canvas'
              }
              aria-label="Show or hide the minimap"
              aria-pressed={minimap}
              data-testid="toggle-minimap"
            >
              ▣
            </ControlButton>
          </Controls>
          {minimap ? (
            <MiniMap<FlowNode>
              pannable
              zoomable
              nodeColor={minimapColor}
              style={{ width: MINIMAP.width, height: MINIMAP.height }}
            />
          ) : null}
          {zoomedOut ? <LodEdges nodes={flowNodes} edges={shownEdges} /> : null}
          <ConnectionBanner />
          <Panel position="top-left">
            <Breadcrumbs />
          </Panel>
        </ReactFlow>
      </ZoomedOut.Provider>
    </div>
  );
}
