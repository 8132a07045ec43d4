/**
 * The document on the canvas. React Flow nodes are the document's own nodes plus a few
 * view-only fields (selection, measured size), so converting is mostly a matter of stripping
 * those; every other field, known or not, goes back to the file untouched.
 */
import type { Edge, Node } from '@xyflow/react';
import {
  DOCUMENT_VERSION,
  type GraphDocument,
  type GraphEdge,
  type GraphNode,
} from '../../app/schema/document.ts';
import { type ParseResult, parseDocument } from '../../app/schema/parse.ts';
import type { Library, LibraryStep } from './library.ts';
import { specPorts } from './ports.ts';
import { SPECS, specOf } from './registry.ts';

/**
 * Reads a document (JSON text or a value) as the editor opens it: checked, and each node's data
 * brought up to its type's version by the same code the CLI and the studio use.
 */
export function readDocument(input: string | unknown): ParseResult {
  return parseDocument(input, { nodes: SPECS });
}

export type FlowNode = Node<Record<string, unknown>>;
export type FlowEdge = Edge<Record<string, unknown>>;

/**
 * Everything in the document except its nodes and edges (which live on the canvas). Spelled out
 * because `Omit` over the document's open index signature would lose the named fields.
 */
export interface DocMeta {
  version: GraphDocument['version'];
  name: GraphDocument['name'];
  description?: GraphDocument['description'];
  models?: GraphDocument['models'];
  settings?: GraphDocument['settings'];
  params?: GraphDocument['params'];
  graphs?: GraphDocument['graphs'];
  [key: string]: unknown;
}

/**
 * Marks a container whose size the editor worked out from its members (the document gave
 * none): it is not written back until someone resizes it, so opening and saving a document
 * without changes gives back the same text.
 */
export const AUTO_SIZE = 'sizeFromMembers';

/** Fields React Flow adds or reads that are view state, not part of the document. */
const VIEW_NODE_FIELDS = [
  'selected',
  'dragging',
  'measured',
  'resizing',
  'draggable',
  'selectable',
  'connectable',
  'deletable',
  'focusable',
  'hidden',
  'zIndex',
  'extent',
  'expandParent',
  'sourcePosition',
  'targetPosition',
  'dragHandle',
  'className',
  'style',
  'origin',
  'handles',
  'ariaLabel',
  'initialWidth',
  'initialHeight',
  AUTO_SIZE,
] as const;

const VIEW_EDGE_FIELDS = [
  'selected',
  'animated',
  'className',
  'style',
  'markerStart',
  'markerEnd',
  'zIndex',
  'hidden',
  'deletable',
  'focusable',
  'selectable',
  'reconnectable',
  'interactionWidth',
  'label',
  'type',
  'ariaLabel',
] as const;

/** Default size of a new container, and the room left around its children when none is saved. */
export const CONTAINER_SIZE = { width: 520, height: 320 };
const CHILD_ESTIMATE = { width: 230, height: 150 };
const PADDING = 30;
const FOOTER = 34;

/**
 * Whether the canvas draws the type as a container holding other nodes. A node standing for a
 * library graph (a sub-society) is drawn as one card and opened to edit what it holds.
 */
export function isContainer(type: string | undefined): boolean {
  const spec = specOf(type);
  return spec?.container !== undefined && !spec.subgraph;
}

export interface Canvas {
  meta: DocMeta;
  nodes: FlowNode[];
  edges: FlowEdge[];
  /** The library graphs opened, outermost first; empty when the document's own graph is shown. */
  path: LibraryStep[];
  /** The document's own nodes and edges while a library graph is on the canvas. */
  root: { nodes: GraphNode[]; edges: GraphEdge[] } | null;
}

/**
 * The canvas for a document, showing the library graph at the end of `path` (the longest part
 * of it whose graphs exist), else the document's own graph.
 */
export function fromDocument(doc: GraphDocument, path: readonly LibraryStep[] = []): Canvas {
  const { nodes: rootNodes, edges: rootEdges, ...meta } = doc;
  const open: LibraryStep[] = [];
  for (const step of path) {
    if (!doc.graphs || !Object.hasOwn(doc.graphs, step.graph)) break;
    open.push(step);
  }
  const shown = open.length ? doc.graphs![open.at(-1)!.graph]! : undefined;
  const nodes = shown ? shown.nodes : rootNodes;
  const edges = shown ? shown.edges : rootEdges;
  const flowNodes = parentsFirst(nodes.map((n) => ({ ...n }) as FlowNode));
  for (const node of flowNodes) {
    if (!isContainer(node.type)) continue;
    if (typeof node.width !== 'number' || typeof node.height !== 'number') {
      Object.assign(node, containerSizeFor(node, flowNodes), { [AUTO_SIZE]: true });
    }
  }
  return {
    meta,
    nodes: flowNodes,
    edges: edges.map((e) => ({ ...e }) as FlowEdge),
    path: open,
    root: shown ? { nodes: rootNodes, edges: rootEdges } : null,
  };
}

/**
 * React Flow needs a parent before its children in the node array. Document order is kept
 * otherwise (saving an unchanged document must give back the same text): a node is only moved
 * when it comes before its container, to just after it.
 */
export function parentsFirst<T extends { id: string; parentId?: string }>(nodes: T[]): T[] {
  const ids = new Set(nodes.map((n) => n.id));
  const placed = new Set<string>();
  const waiting = new Map<string, T[]>();
  const out: T[] = [];
  const place = (node: T) => {
    out.push(node);
    placed.add(node.id);
    const children = waiting.get(node.id) ?? [];
    waiting.delete(node.id);
    for (const child of children) place(child);
  };
  for (const node of nodes) {
    const parent = node.parentId;
    if (!parent || !ids.has(parent) || placed.has(parent)) place(node);
    else waiting.set(parent, [...(waiting.get(parent) ?? []), node]);
  }
  // Parents that form a cycle never get placed; their nodes still belong on the canvas.
  for (const children of waiting.values())
    for (const child of children) if (!placed.has(child.id)) out.push(child);
  return out;
}

function containerSizeFor(node: FlowNode, nodes: FlowNode[]): { width: number; height: number } {
  const children = nodes.filter((n) => n.parentId === node.id);
  if (children.length === 0) return { ...CONTAINER_SIZE };
  const right = Math.max(...children.map((c) => c.position.x + (c.width ?? CHILD_ESTIMATE.width)));
  const bottom = Math.max(
    ...children.map((c) => c.position.y + (c.height ?? CHILD_ESTIMATE.height)),
  );
  // Room for the strip of output ports along the bottom edge.
  const footer = specPorts(node).outputs.length > 0 ? FOOTER : 0;
  return { width: Math.round(right + PADDING), height: Math.round(bottom + PADDING + footer) };
}

export function toDocument(
  canvas: Pick<Canvas, 'meta' | 'nodes' | 'edges'> & Partial<Canvas>,
): GraphDocument {
  const nodes = canvas.nodes.map((node) => {
    const out: Record<string, unknown> = { ...node };
    for (const field of VIEW_NODE_FIELDS) delete out[field];
    out.position = { x: Math.round(node.position.x), y: Math.round(node.position.y) };
    if (isContainer(node.type) && !(node as Record<string, unknown>)[AUTO_SIZE]) {
      // A container's size is part of the drawing people made, so it is saved (as React
      // Flow's toObject() does); other nodes size themselves to their content.
      out.width = Math.round(node.width ?? node.measured?.width ?? CONTAINER_SIZE.width);
      out.height = Math.round(node.height ?? node.measured?.height ?? CONTAINER_SIZE.height);
    } else {
      delete out.width;
      delete out.height;
    }
    if (out.parentId === undefined) delete out.parentId;
    return out;
  });
  const edges = canvas.edges.map((edge) => {
    const out: Record<string, unknown> = { ...edge };
    for (const field of VIEW_EDGE_FIELDS) delete out[field];
    if (out.data === undefined) delete out.data;
    return out;
  });
  const step = canvas.path?.at(-1);
  if (step && canvas.root) {
    // A library graph is on the canvas: it goes back into the library, in its place.
    const graphs = { ...(canvas.meta.graphs as Library) };
    graphs[step.graph] = { ...graphs[step.graph], nodes, edges } as Library[string];
    return { ...canvas.meta, ...canvas.root, graphs } as GraphDocument;
  }
  // Meta keeps the document's own key order; nodes and edges go where they were (or last).
  return { ...canvas.meta, nodes, edges } as GraphDocument;
}

export const DEFAULT_MODELS = {
  default: { provider: 'openai', model: 'gpt-4o-mini' },
};

/** A new, empty document; `models` are its model profiles (settings' default models). */
export function newDocument(models: GraphDocument['models'] = DEFAULT_MODELS): GraphDocument {
  return {
    version: DOCUMENT_VERSION,
    name: 'Untitled society',
    models: structuredClone(models),
    nodes: [],
    edges: [],
  };
}

/** `agent1`, `agent2`…: the type and the smallest number not taken. */
export function nextNodeId(type: string, taken: ReadonlySet<string>): string {
  const stem = /^[A-Za-z_]/.test(type) ? type.replace(/[^A-Za-z0-9_-]/g, '') : `n${type}`;
  for (let n = 1; ; n++) if (!taken.has(`${stem}${n}`)) return `${stem}${n}`;
}

/**
 * Starting data for a new node: what its spec's `initialData` gives (a prompt, the model profile
 * `profile` or else the document's first, its id as a name), with the schema's defaults filled.
 */
export function initialData(
  type: string,
  id: string,
  meta: DocMeta,
  profile?: string,
  ids: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const spec = specOf(type);
  if (!spec) return {};
  const profiles = Object.keys(meta.models ?? {});
  const start = spec.initialData?.({
    id,
    profile: profile ?? profiles[0] ?? 'default',
    profiles,
    ids,
  });
  const data = { ...(start as Record<string, unknown> | undefined) };
  const result = spec.data.safeParse(data);
  return result.success ? { ...(result.data as Record<string, unknown>) } : data;
}

/**
 * The data version a new node of `type` is written with: absent at version 1, so documents
 * that never met a versioned type do not change.
 */
export function dataVersionOf(type: string): number | undefined {
  const version = specOf(type)?.version ?? 1;
  return version > 1 ? version : undefined;
}

/** Where a node is on the canvas, adding up its containers' positions. */
export function absolutePosition(
  id: string,
  byId: ReadonlyMap<string, FlowNode>,
): { x: number; y: number } {
  let x = 0;
  let y = 0;
  const seen = new Set<string>();
  for (
    let n = byId.get(id);
    n && !seen.has(n.id);
    n = n.parentId ? byId.get(n.parentId) : undefined
  ) {
    seen.add(n.id);
    x += n.position.x;
    y += n.position.y;
  }
  return { x, y };
}

export function nodeSize(node: FlowNode): { width: number; height: number } {
  return {
    width: node.width ?? node.measured?.width ?? CHILD_ESTIMATE.width,
    height: node.height ?? node.measured?.height ?? CHILD_ESTIMATE.height,
  };
}

/**
 * The innermost container under a canvas point, skipping `exclude` and everything inside it
 * (a container cannot be dropped into itself), and containers drawn collapsed (`collapsed`:
 * cards and what they hide), which are opened before anything is dropped in them.
 */
export function containerAt(
  point: { x: number; y: number },
  nodes: readonly FlowNode[],
  exclude?: string,
  collapsed?: { owners: ReadonlyMap<string, string>; cards: ReadonlySet<string> },
): FlowNode | undefined {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const insideExcluded = (id: string): boolean => {
    const seen = new Set<string>();
    for (
      let n = byId.get(id);
      n && !seen.has(n.id);
      n = n.parentId ? byId.get(n.parentId) : undefined
    ) {
      if (n.id === exclude) return true;
      seen.add(n.id);
    }
    return false;
  };
  let best: { node: FlowNode; depth: number } | undefined;
  for (const node of nodes) {
    if (!isContainer(node.type) || (exclude && insideExcluded(node.id))) continue;
    if (collapsed?.cards.has(node.id) || collapsed?.owners.has(node.id)) continue;
    const at = absolutePosition(node.id, byId);
    const size = nodeSize(node);
    if (
      point.x < at.x ||
      point.y < at.y ||
      point.x > at.x + size.width ||
      point.y > at.y + size.height
    )
      continue;
    let depth = 0;
    for (let p = node.parentId; p; p = byId.get(p)?.parentId) if (++depth > 100) break;
    if (!best || depth > best.depth) best = { node, depth };
  }
  return best?.node;
}

export interface Clip {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** The selected nodes with everything inside them, and the edges among them. */
export function copySelection(nodes: readonly FlowNode[], edges: readonly FlowEdge[]): Clip {
  const ids = new Set(nodes.filter((n) => n.selected).map((n) => n.id));
  // Containers take their contents along, however deep.
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes) {
      if (n.parentId && ids.has(n.parentId) && !ids.has(n.id)) {
        ids.add(n.id);
        grew = true;
      }
    }
  }
  return {
    nodes: structuredClone(nodes.filter((n) => ids.has(n.id))),
    edges: structuredClone(edges.filter((e) => ids.has(e.source) && ids.has(e.target))),
  };
}

/** Copies of the clip with fresh ids, shifted so they do not cover the originals. */
export function pasteClip(
  clip: Clip,
  existing: readonly FlowNode[],
  existingEdges: readonly FlowEdge[],
  offset: number,
): Clip {
  const taken = new Set(existing.map((n) => n.id));
  const rename = new Map<string, string>();
  for (const node of clip.nodes) {
    const id = nextNodeId(node.type ?? 'node', taken);
    taken.add(id);
    rename.set(node.id, id);
  }
  const present = new Set(existing.map((n) => n.id));
  const nodes = clip.nodes.map((node): FlowNode => {
    const copiedParent = node.parentId ? rename.get(node.parentId) : undefined;
    // A node copied without its container goes back into that container if it still exists.
    const parentId =
      copiedParent ?? (node.parentId && present.has(node.parentId) ? node.parentId : undefined);
    const shifted = copiedParent === undefined;
    const out: FlowNode = {
      ...structuredClone(node),
      id: rename.get(node.id)!,
      position: shifted
        ? { x: node.position.x + offset, y: node.position.y + offset }
        : { ...node.position },
      selected: true,
    };
    if (parentId) out.parentId = parentId;
    else delete out.parentId;
    // Data that names other nodes (a mindstorm's leader and members) names their copies when
    // those are pasted with it; its type's `renameIds` says where such ids are.
    renameReferences(out, rename);
    return out;
  });
  const edgeIds = new Set(existingEdges.map((e) => e.id));
  const edges = clip.edges.map((edge): FlowEdge => {
    const source = rename.get(edge.source)!;
    const target = rename.get(edge.target)!;
    const id = uniqueEdgeId(`${source}-${target}`, edgeIds);
    edgeIds.add(id);
    return { ...structuredClone(edge), id, source, target, selected: true };
  });
  return { nodes, edges };
}

function renameReferences(node: FlowNode, rename: ReadonlyMap<string, string>) {
  const spec = specOf(node.type);
  if (spec?.renameIds) node.data = spec.renameIds(node.data, (id) => rename.get(id) ?? id);
}

export function uniqueEdgeId(stem: string, taken: ReadonlySet<string>): string {
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) if (!taken.has(`${stem}-${n}`)) return `${stem}-${n}`;
}

/** A file name for a document: its name in lower case, dashes for spaces, `.society.json`. */
export function fileNameFor(name: string): string {
  const stem = name
    .toLowerCase()
    .replace(/\(copy\)/g, 'copy')
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return `${stem || 'society'}.society.json`;
}

/**
 * The free place nearest to `at` for a new node (top-left corner), so nodes added by clicking
 * the palette never land on top of each other.
 */
export function freeSpot(
  at: { x: number; y: number },
  nodes: readonly FlowNode[],
): { x: number; y: number } {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // Containers are places to drop into, not obstacles.
  const taken = nodes
    .filter((n) => !isContainer(n.type))
    .map((n) => ({ ...absolutePosition(n.id, byId), ...nodeSize(n) }));
  const gap = 20;
  const free = (x: number, y: number) =>
    taken.every(
      (r) =>
        x + CHILD_ESTIMATE.width + gap <= r.x ||
        r.x + r.width + gap <= x ||
        y + CHILD_ESTIMATE.height + gap <= r.y ||
        r.y + r.height + gap <= y,
    );
  const step = 60;
  for (let ring = 0; ring < 30; ring++) {
    for (let dx = -ring; dx <= ring; dx++) {
      for (let dy = -ring; dy <= ring; dy++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        const x = at.x + dx * step;
        const y = at.y + dy * step;
        if (free(x, y)) return { x, y };
      }
    }
  }
  return at;
}
