/**
 * Ports and connection rules as the editor sees them. They mirror the compiler's analysis
 * (app/compiler/analyze.ts) closely enough to refuse a bad edge while it is being drawn; the
 * backend's validation stays the authority.
 */
import type { z } from 'zod';
import type { NodePorts, NodeSpec, PortSpec, PortsContext } from '../../app/node-sdk/define.ts';
import { lenientData } from '../../app/node-sdk/lenient-data.ts';
import {
  listOf,
  type Modality,
  modalityFits,
  type ParsedModality,
  parseModality,
  TOOL_MODALITY,
} from '../../app/schema/modality.ts';
import { bindData } from '../../app/schema/params.ts';
import type { Library } from './library.ts';
import { libraryContext } from './library.ts';
import { boundValue, canvasParams } from './params.ts';
import { specOf } from './registry.ts';
import { toolWireRefusal } from './tool-wires.ts';

/** The parts of a canvas node the rules read; both document nodes and React Flow nodes fit. */
export interface NodeLike {
  id: string;
  type?: string;
  data: Record<string, unknown>;
  parentId?: string;
}

export interface ParsedData {
  ok: boolean;
  /** The version of the document's parameter defaults the data was bound with, if it refers to any. */
  boundWith?: number;
  /** The data with defaults filled; when invalid, each bad field falls back to its default. */
  data: Record<string, unknown>;
  issues: z.core.$ZodIssue[];
}

// Node data objects are replaced, never mutated, so parsing can be cached on their identity:
// a canvas of a hundred nodes re-renders without re-parsing the ones that did not change.
const parsedCache = new WeakMap<object, Map<string, ParsedData>>();

/**
 * A node's data as its spec reads it, its `{ "$param": NAME }` references bound with the
 * document's defaults (as the compiler binds them before analysis). Invalid data is read field
 * by field (lenientData), so a node whose prompt is half typed still shows the ports its other
 * fields give it (and keeps its edges attached) instead of losing all of them.
 */
export function parseNodeData(type: string | undefined, data: Record<string, unknown>): ParsedData {
  const spec = specOf(type);
  if (!spec) return { ok: false, data, issues: [] };
  let byType = parsedCache.get(data);
  const cached = byType?.get(spec.type);
  const params = canvasParams();
  // Cached per version of the document's parameters: a reference read before the parameters
  // were known (the first render of a document being opened) is read again once they are.
  if (cached && cached.boundWith === params.version) return cached;
  const bound = bindData(data, params.values);
  const result = spec.data.safeParse(bound);
  const parsed: ParsedData = result.success
    ? { ok: true, data: result.data as Record<string, unknown>, issues: [] }
    : { ok: false, data: lenientData(spec, bound), issues: result.error.issues };
  parsed.boundWith = params.version;
  if (!byType) {
    byType = new Map();
    parsedCache.set(data, byType);
  }
  byType.set(spec.type, parsed);
  return parsed;
}

const NO_PORTS: NodePorts = { inputs: [], outputs: [] };

let library: Library | undefined;
let context: PortsContext = libraryContext(undefined, libraryHooks());

/**
 * Sets the document's library of graphs (the store calls it when it changes): a society node's
 * ports are those of the library graph it names.
 */
export function setCanvasLibrary(graphs: Library | undefined): void {
  if (graphs === library) return;
  library = graphs;
  context = libraryContext(graphs, libraryHooks());
}

/** The library the canvas reads society nodes' ports from. */
export function canvasLibrary(): Library | undefined {
  return library;
}

function libraryHooks() {
  const asNode = (n: { id: string; type?: string; data?: unknown }): NodeLike => ({
    id: n.id,
    type: n.type,
    data: (n.data ?? {}) as Record<string, unknown>,
  });
  return {
    runInput: (n: { id: string; type?: string; data?: unknown }) => specHook(asNode(n), 'runInput'),
    runOutput: (n: { id: string; type?: string; data?: unknown }) =>
      specHook(asNode(n), 'runOutput'),
    outputModality: (n: { id: string; type?: string; data?: unknown }, port: string) =>
      specPorts(asNode(n)).outputs.find((p) => p.name === port)?.modality,
  };
}

/** A node's ports for its current data, as the spec declares them. */
export function specPorts(node: NodeLike): NodePorts {
  const spec = specOf(node.type);
  if (!spec) return NO_PORTS;
  try {
    return spec.ports(parseNodeData(node.type, node.data).data, context);
  } catch {
    // A spec may assume valid data; an invalid node simply shows no ports until fixed.
    return NO_PORTS;
  }
}

/** The library graph a node stands for (a sub-society), by its spec's `subgraph` hook. */
export function subgraphOf(node: NodeLike): string | undefined {
  const spec = specOf(node.type);
  if (!spec?.subgraph) return undefined;
  try {
    return spec.subgraph(parseNodeData(node.type, node.data).data);
  } catch {
    return undefined;
  }
}

/**
 * A node with the library graph it names renamed (`rename`), for a document's graphs copied
 * under new names; other nodes unchanged.
 */
export function retargetSubgraph<N extends NodeLike>(
  node: N,
  rename: ReadonlyMap<string, string>,
): N {
  const graph = subgraphOf(node);
  const next = graph === undefined ? undefined : rename.get(graph);
  // The node's own field that names the graph is the one holding that name.
  const key = Object.keys(node.data).find((k) => node.data[k] === graph);
  return next === undefined || key === undefined
    ? node
    : { ...node, data: { ...node.data, [key]: next } };
}

/** Spec hooks that read a node's data alone; the editor calls them through `specHook`. */
type DataHook = 'runInput' | 'exampleInput' | 'runOutput' | 'answers' | 'badges' | 'summary';

/**
 * What a node's spec says through one of its data hooks, from its data as the spec reads it
 * (parseNodeData); undefined when the type has no such hook, or the hook fails on data it did
 * not expect (an invalid node then says nothing until fixed).
 */
export function specHook<K extends DataHook>(
  node: NodeLike,
  hook: K,
): ReturnType<NonNullable<NodeSpec<unknown>[K]>> | undefined {
  const spec = specOf(node.type);
  const fn = spec?.[hook] as ((data: unknown) => unknown) | undefined;
  if (!fn) return undefined;
  try {
    return fn.call(spec, parseNodeData(node.type, node.data).data) as ReturnType<
      NonNullable<NodeSpec<unknown>[K]>
    >;
  } catch {
    return undefined;
  }
}

/**
 * The node's ports on the canvas: the spec's, minus slots that an enclosing replicated group
 * binds (`{{ style }}` in each copy of a group replicated over styles is not an input).
 */
export function portsOf(node: NodeLike, byId: ReadonlyMap<string, NodeLike>): NodePorts {
  const ports = specPorts(node);
  const bound = new Set<string>();
  for (const id of ancestors(node.id, byId)) {
    const replicate = replicateOf(byId.get(id));
    if (replicate) bound.add(replicate.as);
  }
  if (bound.size === 0) return ports;
  return {
    ...ports,
    inputs: ports.inputs.filter((p) => !(p.required && bound.has(p.name))),
  };
}

/** Containers from the node outwards, not including the node; stops at a cycle. */
export function ancestors(id: string, byId: ReadonlyMap<string, NodeLike>): string[] {
  const out: string[] = [];
  const seen = new Set([id]);
  for (
    let p = byId.get(id)?.parentId;
    p && !seen.has(p) && byId.has(p);
    p = byId.get(p)?.parentId
  ) {
    out.push(p);
    seen.add(p);
  }
  return out;
}

export function replicateOf(
  node: NodeLike | undefined,
): { items: unknown[]; as: string } | undefined {
  // The list is often a parameter (`"items": { "$param": "styles" }`): read with its default.
  const r = boundValue(node?.data.replicate) as { items?: unknown; as?: unknown } | undefined;
  const items = boundValue(r?.items);
  if (!r || !Array.isArray(items)) return undefined;
  return { items, as: typeof r.as === 'string' ? r.as : 'item' };
}

/**
 * What the target receives from a source port: each replicated node or group between the source
 * and the nearest container they share turns the value into a list.
 */
export function deliveredModality(
  sourceId: string,
  targetId: string,
  modality: Modality,
  byId: ReadonlyMap<string, NodeLike>,
): Modality {
  const shared = new Set([targetId, ...ancestors(targetId, byId)]);
  let result = modality;
  for (const id of [sourceId, ...ancestors(sourceId, byId)]) {
    if (shared.has(id)) break;
    if (replicateOf(byId.get(id))) result = listOf(result);
  }
  return result;
}

export interface ConnectionLike {
  source: string | null;
  target: string | null;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

export interface EdgeLike {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

export type ConnectionCheck = { ok: true; modality: Modality } | { ok: false; reason: string };

/** Whether an edge may be drawn, and if not, a sentence saying why. */
export function checkConnection(
  c: ConnectionLike,
  byId: ReadonlyMap<string, NodeLike>,
  edges: readonly EdgeLike[],
): ConnectionCheck {
  const source = c.source ? byId.get(c.source) : undefined;
  const target = c.target ? byId.get(c.target) : undefined;
  if (!source || !target) return { ok: false, reason: 'connect an output to an input' };
  if (source.id === target.id) return { ok: false, reason: `${source.id} cannot feed itself` };
  const out = portsOf(source, byId).outputs.find((p) => p.name === c.sourceHandle);
  const inp = portsOf(target, byId).inputs.find((p) => p.name === c.targetHandle);
  if (!out) return { ok: false, reason: `${source.id} has no output "${c.sourceHandle ?? ''}"` };
  if (!inp) return { ok: false, reason: `${target.id} has no input "${c.targetHandle ?? ''}"` };
  const modality = deliveredModality(source.id, target.id, out.modality, byId);
  if (!portAccepts(inp, modality)) {
    const takes = inp.multiple ? `${inp.modality} or ${listOf(inp.modality)}` : inp.modality;
    return { ok: false, reason: `${modality} does not fit ${takes} (${target.id}.${inp.name})` };
  }
  const refusal = toolWireRefusal(source, target, inp.modality === TOOL_MODALITY, byId, edges);
  if (refusal) return { ok: false, reason: refusal };
  const into = edges.filter((e) => e.target === target.id && e.targetHandle === inp.name);
  if (into.some((e) => e.source === source.id && e.sourceHandle === out.name)) {
    return {
      ok: false,
      reason: `${source.id}.${out.name} is already connected to ${target.id}.${inp.name}`,
    };
  }
  if (!inp.multiple && into.length > 0) {
    return {
      ok: false,
      reason: `${target.id}.${inp.name} takes one edge and already has one (from ${into[0]!.source})`,
    };
  }
  return { ok: true, modality };
}

/** A multiple port takes single values (one per edge) or lists of them. */
export function portAccepts(port: PortSpec, modality: Modality): boolean {
  return (
    modalityFits(modality, port.modality) ||
    (port.multiple === true && modalityFits(modality, listOf(port.modality)))
  );
}

/** The scalar at the bottom of a modality (the colour) and how many lists wrap it. */
export function modalityLook(m: string): { base: string; depth: number } {
  if (m === TOOL_MODALITY) return { base: 'tool', depth: 0 };
  let parsed: ParsedModality | undefined = parseModality(m);
  let depth = 0;
  while (parsed?.kind === 'list') {
    depth++;
    parsed = parsed.of;
  }
  return { base: parsed?.name ?? 'any', depth };
}

/**
 * What a node's templates can name, for completion in the prompt editor: its own input slots,
 * what is wired into it, the society's run inputs, and the item names replication binds.
 */
export function slotSourcesOf(
  id: string,
  nodes: readonly NodeLike[],
  edges: readonly EdgeLike[],
): {
  slots: string[];
  upstream: Array<{ node: string; port: string }>;
  documentInputs: string[];
  replicaNames: string[];
} {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const node = byId.get(id);
  if (!node) return { slots: [], upstream: [], documentInputs: [], replicaNames: [] };
  const replicaNames: string[] = [];
  for (const owner of [id, ...ancestors(id, byId)]) {
    const replicate = replicateOf(byId.get(owner));
    if (replicate && !replicaNames.includes(replicate.as)) replicaNames.push(replicate.as);
  }
  return {
    slots: portsOf(node, byId)
      .inputs.filter((p) => p.modality !== TOOL_MODALITY)
      .map((p) => p.name)
      .filter((name) => !(name === 'image' && node.data.vision === true)),
    upstream: edges
      .filter((e) => e.target === id)
      .map((e) => ({ node: e.source, port: e.targetHandle ?? '' })),
    documentInputs: nodes.flatMap((n) => {
      const name = specHook(n, 'runInput')?.name;
      return typeof name === 'string' ? [name] : [];
    }),
    replicaNames,
  };
}
