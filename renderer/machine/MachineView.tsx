import {
  Background,
  BackgroundVariant,
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStoreApi,
} from '@xyflow/react';
import { useEffect, useMemo, useState } from 'react';
import { create } from 'zustand';
import type { ApiProblem } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { currentDocument, useEditor } from '../store.ts';
import { readableStart } from './fit.ts';
import { type MachineGraph, machineGraph } from './graph.ts';
import { machineHighlight } from './highlight.ts';
import { layoutMachineGraph, type MachineLayout } from './layout.ts';
import { type BoxNode, boxTypes, type RouteEdge, routeTypes } from './MachineBoxes.tsx';
import './machine.css';
import { revealNode } from '../editor/library-actions.ts';
import { useTheme } from '../theme.ts';

/** Whether the machine view is open (it covers the canvas while it is). */
export const useMachineView = create<{ open: boolean }>()(() => ({ open: false }));

export function toggleMachineView(): void {
  useMachineView.setState((s) => ({ open: !s.open }));
}

type Compiled =
  | { status: 'compiling' }
  | { status: 'ok'; machines: unknown; key: string; compilerVersion?: number }
  | { status: 'problems'; problems: ApiProblem[] }
  | { status: 'error'; message: string };

/**
 * Compiles the document on the backend (document.compile) while the view is open, again a
 * moment after each change. The answer is keyed by its JSON, so moving a node (which recompiles
 * to the same machines) does not lay the drawing out again.
 */
function useCompiled(): Compiled {
  const [compiled, setCompiled] = useState<Compiled>({ status: 'compiling' });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ticket = 0;
    const compile = (delay: number) => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const mine = ++ticket;
        try {
          const result = await api().call('document.compile', {
            document: currentDocument() as unknown as Record<string, unknown>,
          });
          if (mine !== ticket) return;
          if (!result.ok) {
            setCompiled({ status: 'problems', problems: result.problems });
            return;
          }
          const key = JSON.stringify(result.machines);
          const version = (result.machines as { compilerVersion?: unknown } | undefined)
            ?.compilerVersion;
          setCompiled((previous) =>
            previous.status === 'ok' && previous.key === key
              ? previous
              : {
                  status: 'ok',
                  machines: result.machines,
                  key,
                  ...(typeof version === 'number' ? { compilerVersion: version } : {}),
                },
          );
        } catch (error) {
          if (mine === ticket) setCompiled({ status: 'error', message: (error as Error).message });
        }
      }, delay);
    };
    compile(0);
    const unsubscribe = useEditor.subscribe((state, previous) => {
      if (
        state.nodes !== previous.nodes ||
        state.edges !== previous.edges ||
        state.meta !== previous.meta
      ) {
        compile(400);
      }
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, []);
  return compiled;
}

const ARROW = { type: MarkerType.ArrowClosed, width: 14, height: 14 } as const;

function Drawing({ graph, layout }: { graph: MachineGraph; layout: MachineLayout }) {
  const theme = useTheme();
  const run = useEditor((s) => s.run);
  const highlight = useMemo(() => machineHighlight(graph, run), [graph, run]);
  const { fitView, getNodesBounds, setViewport } = useReactFlow<BoxNode, RouteEdge>();
  const store = useStoreApi<BoxNode, RouteEdge>();

  const nodes = useMemo<BoxNode[]>(
    () =>
      graph.nodes.flatMap((n) => {
        const box = layout.boxes[n.id];
        if (!box) return [];
        const h = highlight.boxes[n.id];
        const note = highlight.notes[n.id];
        const node: BoxNode = {
          id: n.id,
          type: n.group ? 'group' : 'leaf',
          position: { x: box.x, y: box.y },
          width: box.width,
          height: box.height,
          data: { box: n, ...(h ? { highlight: h } : {}), ...(note ? { note } : {}) },
          draggable: false,
          connectable: false,
          selectable: false,
          ...(n.parent ? { parentId: n.parent } : {}),
        };
        return [node];
      }),
    [graph, layout, highlight],
  );

  const edges = useMemo<RouteEdge[]>(
    () =>
      graph.edges.flatMap((e) => {
        const route = layout.routes[e.id];
        if (!route) return [];
        const edge: RouteEdge = {
          id: e.id,
          source: e.source,
          target: e.target,
          type: 'route',
          markerEnd: ARROW,
          className: `mv-arrow mv-arrow-${e.kind}`,
          data: {
            points: route.points,
            ...(route.label ? { label: route.label } : {}),
            text: e.label,
            kind: e.kind,
          },
          selectable: false,
          focusable: false,
        };
        return [edge];
      }),
    [graph, layout],
  );

  // Framed once it is on screen (a new layout mounts a new drawing: see its key in Body): all
  // of it if it can be read so, else its start at a readable zoom (the fit button shows all).
  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      const { width, height, nodes: shown } = store.getState();
      const machines = shown
        .filter((n) => !n.parentId)
        .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
      if (machines.length === 0) return;
      const start = readableStart(
        getNodesBounds(machines),
        { width, height },
        getNodesBounds(machines.slice(0, 1)),
      );
      if (start) void setViewport(start);
      else void fitView({ padding: 0.08, duration: 0 });
    });
    return () => cancelAnimationFrame(frame);
  }, [fitView, getNodesBounds, setViewport, store]);

  return (
    <ReactFlow<BoxNode, RouteEdge>
      nodes={nodes}
      edges={edges}
      nodeTypes={boxTypes}
      edgeTypes={routeTypes}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      edgesFocusable={false}
      nodesFocusable={false}
      minZoom={0.05}
      maxZoom={2}
      colorMode={theme}
      proOptions={{ hideAttribution: true }}
      onNodeClick={(_, node) => {
        // A scheduled node is a node of the document: select it there (the inspector shows it).
        if (node.data.box.kind === 'task' && node.data.box.node) revealNode(node.data.box.node);
      }}
    >
      <Background variant={BackgroundVariant.Dots} gap={24} size={1} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}

function Legend() {
  return (
    <span className="mv-legend small" title="How the run's current state is shown">
      <span className="mv-swatch mv-hl-active">running</span>
      <span className="mv-swatch mv-hl-paused">held</span>
      <span className="mv-swatch mv-hl-done">done</span>
      <span className="mv-swatch mv-hl-failed">failed</span>
      <span className="mv-swatch mv-hl-skipped" title="on a branch not taken: never started">
        skipped
      </span>
    </span>
  );
}

function Body() {
  const compiled = useCompiled();
  const [drawn, setDrawn] = useState<{ key: string; graph: MachineGraph; layout: MachineLayout }>();
  const [layoutError, setLayoutError] = useState<string | null>(null);

  useEffect(() => {
    if (compiled.status !== 'ok') return;
    let current = true;
    const graph = machineGraph(compiled.machines);
    layoutMachineGraph(graph)
      .then((layout) => {
        if (current) {
          setDrawn({ key: compiled.key, graph, layout });
          setLayoutError(null);
        }
      })
      .catch((error: Error) => {
        if (current) setLayoutError(`cannot lay the machines out: ${error.message}`);
      });
    return () => {
      current = false;
    };
  }, [compiled]);

  const machines = drawn?.graph.machines.length ?? 0;
  return (
    <>
      <div className="mv-status small" data-testid="machine-status">
        {compiled.status === 'compiling' ? <span className="muted">Compiling…</span> : null}
        {compiled.status === 'ok' && drawn ? (
          <span className="muted">
            {machines} machine{machines === 1 ? '' : 's'}
            {compiled.compilerVersion !== undefined
              ? ` · compiler v${compiled.compilerVersion}`
              : ''}{' '}
            · lit from the run's events: per node, mindstorm stage and round · drag to pan; the fit
            button shows it all
          </span>
        ) : null}
        {compiled.status === 'ok' && !drawn && !layoutError ? (
          <span className="muted">Laying out…</span>
        ) : null}
        {layoutError ? <span className="errors">{layoutError}</span> : null}
        {compiled.status === 'error' ? <span className="errors">{compiled.message}</span> : null}
        {compiled.status === 'problems' ? (
          <span className="errors" data-testid="machine-problems">
            The document does not compile ({compiled.problems.length} problem
            {compiled.problems.length === 1 ? '' : 's'}; see the Problems tab):{' '}
            {compiled.problems[0]?.message}
          </span>
        ) : null}
      </div>
      <div className="mv-canvas">
        {drawn ? <Drawing key={drawn.key} graph={drawn.graph} layout={drawn.layout} /> : null}
      </div>
    </>
  );
}

/**
 * The compiled state machine: every XState machine `document.compile` returns (the graph's
 * scheduler, groups, each mindstorm and its stages) drawn read-only with the run's current
 * state lit. Its own ReactFlowProvider keeps its viewport apart from the editor's canvas.
 */
export function MachineView() {
  const open = useMachineView((s) => s.open);
  if (!open) return null;
  return (
    <section
      className="machine-view"
      data-testid="machine-view"
      aria-label="Compiled state machine"
    >
      <header className="mv-header">
        <h2>Compiled state machine</h2>
        <Legend />
        <span className="spacer" />
        <button
          type="button"
          className="icon"
          aria-label="Close the machine view"
          data-testid="machine-view-close"
          onClick={() => useMachineView.setState({ open: false })}
        >
          ×
        </button>
      </header>
      <ReactFlowProvider>
        <Body />
      </ReactFlowProvider>
    </section>
  );
}
