/**
 * The editor's state: the document on the canvas (as React Flow nodes and edges plus the rest of
 * the document), an undo history of whole documents, the open file, dialogs, and the current run.
 * Components read slices with selectors so a drag re-renders only what moved.
 */
import {
  applyEdgeChanges,
  applyNodeChanges,
  type Connection,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { create } from 'zustand';
import type { ApiResult } from '../app/api/contract.ts';
import type { GraphDocument } from '../app/schema/document.ts';
import type { Problem } from '../app/schema/problems.ts';
import {
  AUTO_SIZE,
  absolutePosition,
  type Canvas,
  type Clip,
  CONTAINER_SIZE,
  copySelection,
  type DocMeta,
  dataVersionOf,
  type FlowEdge,
  type FlowNode,
  fromDocument,
  initialData,
  isContainer,
  newDocument,
  nextNodeId,
  parentsFirst,
  pasteClip,
  toDocument,
  uniqueEdgeId,
} from './model/document.ts';
import type { Library } from './model/library.ts';
import { setDocumentParams } from './model/params.ts';
import { checkConnection, retargetSubgraph, setCanvasLibrary, subgraphOf } from './model/ports.ts';
import { idleRun, type RunView } from './model/run.ts';
import { modelDefaults, profileForNewNode } from './settings/defaults.ts';

const HISTORY_LIMIT = 100;

export type Modal =
  | { kind: 'save'; saveAs: boolean }
  /** `pick`: the file chosen is handed on (insert as a sub-society) rather than opened. */
  | { kind: 'open'; pick?: (name: string) => void; title?: string }
  | { kind: 'gallery' }
  | { kind: 'keys' }
  | { kind: 'settings' }
  | {
      kind: 'confirm';
      message: string;
      confirm: string;
      onConfirm: () => void;
      /** The dialog's title; "Unsaved changes" when not given. */
      title?: string;
    }
  | {
      kind: 'live-estimate';
      estimate: ApiResult<'run.estimate'>;
      onConfirm: () => void;
      onCancel?: () => void;
      /** What sends live calls from a stored run (a fork, a retry): its estimate is an upper bound. */
      upperBound?: string;
    };

export interface Notice {
  kind: 'info' | 'error';
  text: string;
  /** Buttons offering what to do instead; a notice with them stays until one is chosen. */
  actions?: NoticeAction[];
  /** Told when the notice is dismissed without a choice (or replaced by another). */
  onDismiss?: () => void;
}

/** A button in a notice. */
export interface NoticeAction {
  label: string;
  testId: string;
  run: () => void;
}

/** Where the document came from, when it was a template: its file and whether it can replay. */
export interface TemplateOrigin {
  file: string;
  hasCassette: boolean;
}

export type RunTab =
  | 'inputs'
  | 'transcript'
  | 'context'
  | 'timeline'
  | 'usage'
  | 'outputs'
  | 'events'
  | 'problems'
  | 'runs'
  | 'diff'
  | 'credit'
  /** A run view's tab (a node type's `run-view.tsx`, or the shared analytics), by its key. */
  | `report:${string}`;

export interface EditorState {
  meta: DocMeta;
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** The library graphs opened on the canvas, outermost first (breadcrumbs); empty at the root. */
  path: Canvas['path'];
  /** The document's own nodes and edges while a library graph is on the canvas. */
  root: Canvas['root'];
  /** The workspace file the document was opened from or saved to. */
  fileName: string | null;
  template: TemplateOrigin | null;
  dirty: boolean;
  past: GraphDocument[];
  future: GraphDocument[];
  /** Consecutive edits with the same key (typing in one field) make one undo step. */
  historyKey: string | null;

  modal: Modal | null;
  /**
   * A file that was not opened, and why. `openAnyway` is offered when the file is a well-formed
   * document whose graph has problems (a work in progress), never for one that does not parse.
   */
  importProblems: { source: string; problems: Problem[]; openAnyway?: () => void } | null;
  notice: Notice | null;
  inspectorTab: 'node' | 'document';
  runTab: RunTab;
  /** Problems the backend found in the document (document.validate), refreshed as it changes. */
  problems: Problem[] | null;

  run: RunView;
  /**
   * Nodes to pause before, and a round to pause at: once per round for every copy of a
   * replicated loop, or only in `roundLoop` (a copy's loop, `artists#3/talk`) when set;
   * `tools`: pause before every tool call; `toolResults`: after every tool call returned.
   */
  breakpoints: {
    nodes: string[];
    round: number | null;
    roundLoop?: string | null;
    tools?: boolean;
    toolResults?: boolean;
  };
  /** Run inputs by input name: text as typed; images as 'example' or a data URL. */
  inputValues: Record<string, string>;
  /** Template parameter values the person set in the Inputs panel (text as typed, or a tick). */
  paramValues: Record<string, string | boolean>;
  /** Counts documents loaded, so the canvas can frame each new one. */
  epoch: number;
}

const initial = fromDocument(newDocument());

export const useEditor = create<EditorState>()(() => ({
  meta: initial.meta,
  nodes: initial.nodes,
  edges: initial.edges,
  path: [],
  root: null,
  fileName: null,
  template: null,
  dirty: false,
  past: [],
  future: [],
  historyKey: null,
  modal: null,
  importProblems: null,
  notice: null,
  inspectorTab: 'node',
  runTab: 'inputs',
  problems: null,
  run: idleRun(),
  breakpoints: { nodes: [], round: null },
  inputValues: {},
  paramValues: {},
  epoch: 0,
}));

const get = useEditor.getState;
const set = useEditor.setState;

// The canvas reads `$param` references with the document's defaults: kept in step with the
// document's `params` before any component reads the new state.
setDocumentParams(initial.meta.params);
useEditor.subscribe((state, previous) => {
  if (state.meta.params !== previous.meta.params) setDocumentParams(state.meta.params);
  if (state.meta.graphs !== previous.meta.graphs) setCanvasLibrary(state.meta.graphs as Library);
});

/**
 * The document's own nodes, what a run's inputs and states are read from, even while a library
 * graph is on the canvas.
 */
export function documentNodes(state: EditorState = get()): FlowNode[] {
  return state.root ? (state.root.nodes as FlowNode[]) : state.nodes;
}

export function currentDocument(state: EditorState = get()): GraphDocument {
  return toDocument(state);
}

/** Records the document as it is now, so the next change can be undone. */
export function pushHistory(key: string | null = null): void {
  const state = get();
  if (key !== null && key === state.historyKey) return;
  set({
    past: [...state.past, toDocument(state)].slice(-HISTORY_LIMIT),
    future: [],
    historyKey: key,
  });
}

let gestureOpen = false;
let gesture = 0;

/**
 * A history key shared by every change made in the same turn of the event loop. React Flow
 * deletes a node in two calls (its edges, then the node): with one key they are one undo step.
 */
function gestureKey(): string {
  if (!gestureOpen) {
    gestureOpen = true;
    gesture++;
    queueMicrotask(() => {
      gestureOpen = false;
    });
  }
  return `gesture:${gesture}`;
}

/** Applies a change to the canvas as one undo step. */
function change(update: (state: EditorState) => Partial<Canvas>, key: string | null = null): void {
  pushHistory(key);
  set((state) => ({ ...update(state), dirty: true }));
}

/** Replaces the whole document (New, Open, a template, an import); history starts over. */
export function loadDocument(
  doc: GraphDocument,
  origin: { fileName?: string | null; template?: TemplateOrigin | null; dirty?: boolean } = {},
): void {
  const canvas = fromDocument(doc);
  set({
    ...canvas,
    fileName: origin.fileName ?? null,
    template: origin.template ?? null,
    dirty: origin.dirty ?? false,
    past: [],
    future: [],
    historyKey: null,
    importProblems: null,
    problems: null,
    run: idleRun(),
    breakpoints: { nodes: [], round: null },
    inputValues: {},
    paramValues: {},
    inspectorTab: 'node',
    epoch: get().epoch + 1,
  });
}

/**
 * Puts a remembered document back, keeping sizes React Flow already measured and the library
 * graph that is open (or as much of the way to it as still exists).
 */
function restore(doc: GraphDocument, path: Canvas['path'] = get().path): Canvas {
  const canvas = fromDocument(doc, path);
  const measured = new Map(get().nodes.map((n) => [n.id, n.measured]));
  for (const node of canvas.nodes) {
    const m = measured.get(node.id);
    if (m) node.measured = m;
  }
  return canvas;
}

export function undo(): void {
  const state = get();
  const previous = state.past.at(-1);
  if (!previous) return;
  set({
    ...restore(previous),
    past: state.past.slice(0, -1),
    future: [toDocument(state), ...state.future],
    historyKey: null,
    dirty: true,
  });
}

export function redo(): void {
  const state = get();
  const next = state.future[0];
  if (!next) return;
  set({
    ...restore(next),
    past: [...state.past, toDocument(state)],
    future: state.future.slice(1),
    historyKey: null,
    dirty: true,
  });
}

export function onNodesChange(changes: NodeChange<FlowNode>[]): void {
  const structural = changes.some(
    (c) => c.type === 'remove' || c.type === 'add' || c.type === 'replace',
  );
  // Drags and resizes record history when they start (see the canvas), not on every frame.
  const edits =
    structural ||
    changes.some(
      (c) =>
        (c.type === 'position' && c.position !== undefined) ||
        (c.type === 'dimensions' && c.setAttributes === true),
    );
  const key = structural ? gestureKey() : null;
  if (key) pushHistory(key);
  set((state) => {
    let nodes = applyNodeChanges(changes, state.nodes);
    // A container someone resized keeps that size in the document from now on.
    const resized = new Set(
      changes.flatMap((c) => (c.type === 'dimensions' && c.setAttributes ? [c.id] : [])),
    );
    if (resized.size) {
      nodes = nodes.map((n) => {
        if (!resized.has(n.id) || !(AUTO_SIZE in n)) return n;
        const { [AUTO_SIZE]: _auto, ...rest } = n as FlowNode & Record<string, unknown>;
        return rest as FlowNode;
      });
    }
    let edges = state.edges;
    if (structural) {
      // Removing a container removes what is inside it, and edges never dangle.
      const removed = new Set(changes.flatMap((c) => (c.type === 'remove' ? [c.id] : [])));
      let grew = removed.size > 0;
      while (grew) {
        grew = false;
        for (const n of nodes) {
          if (n.parentId && removed.has(n.parentId) && !removed.has(n.id)) {
            removed.add(n.id);
            grew = true;
          }
        }
      }
      nodes = nodes.filter((n) => !removed.has(n.id));
      edges = edges.filter((e) => !removed.has(e.source) && !removed.has(e.target));
    }
    return {
      nodes,
      edges,
      dirty: state.dirty || edits,
      // A structural change keeps its gesture's key, so the edges removed with it join its step.
      historyKey: key ?? (edits ? null : state.historyKey),
    };
  });
}

export function onEdgesChange(changes: EdgeChange<FlowEdge>[]): void {
  const structural = changes.some((c) => c.type !== 'select');
  if (structural) pushHistory(gestureKey());
  set((state) => ({
    edges: applyEdgeChanges(changes, state.edges),
    dirty: state.dirty || structural,
  }));
}

/** Adds an edge if the rules allow it; returns why not otherwise. */
export function connect(connection: Connection): string | null {
  const state = get();
  const byId = new Map(state.nodes.map((n) => [n.id, n]));
  const check = checkConnection(connection, byId, state.edges);
  if (!check.ok) return check.reason;
  change((s) => {
    const id = uniqueEdgeId(
      `${connection.source}-${connection.target}`,
      new Set(s.edges.map((e) => e.id)),
    );
    const edge: FlowEdge = {
      id,
      source: connection.source,
      sourceHandle: connection.sourceHandle ?? '',
      target: connection.target,
      targetHandle: connection.targetHandle ?? '',
    };
    return { edges: [...s.edges, edge] };
  });
  return null;
}

/** Adds a node of `type` at a canvas position, inside the container there if there is one. */
export function addNode(
  type: string,
  position: { x: number; y: number },
  parent?: FlowNode,
): string {
  const state = get();
  const ids = new Set(state.nodes.map((n) => n.id));
  const id = nextNodeId(type, ids);
  const profile = profileForNewNode(state.meta.models, modelDefaults());
  const version = dataVersionOf(type);
  const node: FlowNode = {
    id,
    type,
    ...(version ? { version } : {}),
    position,
    data: initialData(type, id, state.meta, profile, ids),
    selected: true,
  };
  if (parent) {
    const at = absolutePosition(parent.id, new Map(state.nodes.map((n) => [n.id, n])));
    node.parentId = parent.id;
    node.position = { x: position.x - at.x, y: position.y - at.y };
  }
  if (isContainer(type)) Object.assign(node, CONTAINER_SIZE);
  const library = subsocietyLibrary(node, toDocument(state).graphs);
  change((s) => ({
    ...(library ? { meta: { ...s.meta, graphs: library.graphs } } : {}),
    nodes: parentsFirst([
      ...s.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)),
      library ? retargetSubgraph(node, library.rename) : node,
    ]),
    edges: s.edges.map((e) => (e.selected ? { ...e, selected: false } : e)),
  }));
  set({ inspectorTab: 'node' });
  return id;
}

/**
 * A new sub-society node runs the library's first graph; in a document with no library yet, a new
 * empty graph under the name the node came with, to open and fill. Undefined for other nodes.
 */
function subsocietyLibrary(
  node: FlowNode,
  graphs: GraphDocument['graphs'],
): { graphs: GraphDocument['graphs']; rename: Map<string, string> } | undefined {
  const named = subgraphOf(node);
  if (named === undefined || (graphs && Object.hasOwn(graphs, named))) return undefined;
  const first = Object.keys(graphs ?? {})[0];
  if (first) return { graphs, rename: new Map([[named, first]]) };
  return { graphs: { ...graphs, [named]: { nodes: [], edges: [] } }, rename: new Map() };
}

/** Moves a node into a container (or out to the top level), keeping where it is on screen. */
export function reparent(id: string, parent: FlowNode | undefined): void {
  const state = get();
  const byId = new Map(state.nodes.map((n) => [n.id, n]));
  const node = byId.get(id);
  if (!node || node.parentId === parent?.id) return;
  const at = absolutePosition(id, byId);
  const origin = parent ? absolutePosition(parent.id, byId) : { x: 0, y: 0 };
  // The drag that led here already recorded history; this is part of the same step.
  set((s) => ({
    dirty: true,
    nodes: parentsFirst(
      s.nodes.map((n) => {
        if (n.id !== id) return n;
        const moved: FlowNode = { ...n, position: { x: at.x - origin.x, y: at.y - origin.y } };
        if (parent) moved.parentId = parent.id;
        else delete moved.parentId;
        return moved;
      }),
    ),
  }));
}

export function updateNodeData(id: string, data: Record<string, unknown>, key?: string): void {
  change((s) => ({ nodes: s.nodes.map((n) => (n.id === id ? { ...n, data } : n)) }), key ?? null);
}

/**
 * Opens or collapses a container. The choice is the document's editor-only `ui` data (saved
 * with it, ignored by the engine), so a big group stays as its author left it.
 */
export function setCollapsed(id: string, collapsed: boolean): void {
  change((s) => ({
    nodes: s.nodes.map((n) => {
      if (n.id !== id) return n;
      const ui = n.data.ui && typeof n.data.ui === 'object' ? n.data.ui : {};
      return { ...n, data: { ...n.data, ui: { ...ui, collapsed } } };
    }),
  }));
}

/** Replaces a node from its raw JSON (the id and type stay). */
export function replaceNode(id: string, next: Omit<FlowNode, 'id'>): void {
  change((s) => ({
    nodes: parentsFirst(
      s.nodes.map((n) =>
        n.id === id ? { ...next, id, selected: n.selected, measured: n.measured } : n,
      ),
    ),
  }));
}

export function updateMeta(patch: Partial<DocMeta>, key?: string): void {
  change((s) => ({ meta: { ...s.meta, ...patch } }), key ?? null);
}

/** Replaces the document from its raw JSON, as one undo step; the file stays the same. */
export function replaceDocument(doc: GraphDocument): void {
  change(() => restore(doc));
}

let clipboard: Clip | null = null;
let pastes = 0;

export function copy(): number {
  const state = get();
  const clip = copySelection(state.nodes, state.edges);
  if (clip.nodes.length === 0) return 0;
  clipboard = clip;
  pastes = 0;
  return clip.nodes.length;
}

export function paste(): number {
  if (!clipboard) return 0;
  const state = get();
  pastes++;
  const pasted = pasteClip(clipboard, state.nodes, state.edges, 40 * pastes);
  change((s) => ({
    nodes: parentsFirst([
      ...s.nodes.map((n) => (n.selected ? { ...n, selected: false } : n)),
      ...pasted.nodes,
    ]),
    edges: [...s.edges.map((e) => (e.selected ? { ...e, selected: false } : e)), ...pasted.edges],
  }));
  return pasted.nodes.length;
}

export function deleteSelected(): void {
  const state = get();
  const ids = state.nodes.filter((n) => n.selected).map((n) => n.id);
  const edgeIds = state.edges.filter((e) => e.selected).map((e) => e.id);
  if (ids.length) onNodesChange(ids.map((id) => ({ type: 'remove', id })));
  if (edgeIds.length) onEdgesChange(edgeIds.map((id) => ({ type: 'remove', id })));
}

export function selectNode(id: string): void {
  set((s) => ({
    nodes: s.nodes.map((n) =>
      n.id === id
        ? n.selected
          ? n
          : { ...n, selected: true }
        : n.selected
          ? { ...n, selected: false }
          : n,
    ),
    edges: s.edges.map((e) => (e.selected ? { ...e, selected: false } : e)),
    inspectorTab: 'node',
  }));
}

export function notify(
  kind: Notice['kind'],
  text: string,
  actions?: NoticeAction[],
  onDismiss?: () => void,
): void {
  // A notice waiting for a choice that another replaces is dismissed.
  get().notice?.onDismiss?.();
  set({
    notice: {
      kind,
      text,
      ...(actions?.length ? { actions } : {}),
      ...(onDismiss ? { onDismiss } : {}),
    },
  });
}

/** Runs `action` now, or after the user agrees to drop unsaved changes. */
export function unlessUnsaved(message: string, action: () => void): void {
  if (!get().dirty) {
    action();
    return;
  }
  set({
    modal: {
      kind: 'confirm',
      message: `${message} Unsaved changes to "${get().meta.name}" will be lost.`,
      confirm: 'Discard changes',
      onConfirm: action,
    },
  });
}
