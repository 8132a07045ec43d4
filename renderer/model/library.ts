/**
 * The document's library of graphs (`graphs`, sub-societies by reference) as the editor uses it:
 * the ports a society node shows (its graph's input and output nodes), which graph the canvas
 * has open, the statuses a run gives a society node and the nodes inside it, and the two ways a
 * library graph is made in the editor (from a selection, from another document).
 */
import type { NodePorts, PortsContext } from '../../app/node-sdk/define.ts';
import { graphPorts, type LibraryHooks } from '../../app/node-sdk/library-ports.ts';
import type {
  GraphDocument,
  GraphEdge,
  GraphNode,
  LibraryGraph,
} from '../../app/schema/document.ts';
import type { NodeRun } from './run.ts';

export type Library = NonNullable<GraphDocument['graphs']>;

/** A PortsContext over a library, each graph's ports worked out once per library object. */
export function libraryContext(library: Library | undefined, hooks: LibraryHooks): PortsContext {
  const cache = new Map<string, NodePorts>();
  const visiting = new Set<string>();
  return {
    subgraphPorts(name) {
      const graph = library && Object.hasOwn(library, name) ? library[name] : undefined;
      if (!graph) return undefined;
      const known = cache.get(name);
      if (known) return known;
      // A graph whose output is fed by a society node naming it again would recurse forever.
      if (visiting.has(name)) return { inputs: [], outputs: [] };
      visiting.add(name);
      const ports = graphPorts(graph, hooks);
      visiting.delete(name);
      cache.set(name, ports);
      return ports;
    },
  };
}

/** One level of the canvas's way into the library: the graph shown and the node opened. */
export interface LibraryStep {
  graph: string;
  /** The society node it was opened from: the run's instance ids of its members start with it. */
  via?: string;
}

/** The instance-id prefix of the nodes shown at `path` (`artists/` inside artists), or ''. */
export function runPrefix(path: readonly LibraryStep[]): string | null {
  if (path.length === 0) return '';
  if (path.some((s) => !s.via)) return null;
  return `${path.map((s) => s.via).join('/')}/`;
}

/** The id a run knows a canvas node by: `panel/voice` for `voice` shown inside `panel`. */
export function runNodeId(path: readonly LibraryStep[], id: string): string {
  return `${runPrefix(path) ?? ''}${id}`;
}

/**
 * A node's state in a run as the canvas shows it: its own, or for a society node the roll-up of
 * its members' (`artists/questioner`…): running while any runs, failed if any failed, skipped
 * when all were, done when all finished.
 */
export function rolledUpRun(
  nodes: Readonly<Record<string, NodeRun>>,
  id: string,
  society: boolean,
): NodeRun | undefined {
  const own = nodes[id];
  if (!society) return own;
  const prefix = `${id}/`;
  const members = Object.entries(nodes)
    .filter(([key]) => key.startsWith(prefix))
    .map(([, run]) => run);
  if (members.length === 0) return own;
  const states = members.map((m) => m.state);
  const active = members.reduce((sum, m) => sum + m.active, 0);
  const finished = members.reduce((sum, m) => sum + m.finished, 0);
  const failed = members.find((m) => m.state === 'failed');
  let state: NodeRun['state'];
  if (states.includes('paused')) state = 'paused';
  else if (states.includes('running')) state = 'running';
  else if (failed) state = 'failed';
  else if (states.every((s) => s === 'skipped')) state = 'skipped';
  else if (states.every((s) => s === 'done' || s === 'skipped')) state = 'done';
  else state = states.some((s) => s === 'done') ? 'running' : 'waiting';
  return {
    state,
    active,
    finished,
    ...(failed?.error ? { error: failed.error } : {}),
  };
}

/** A library name not yet taken: `stem`, `stem2`, `stem3`… */
export function uniqueGraphName(stem: string, library: Library | undefined): string {
  const clean = stem.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([^A-Za-z_])/, '_$1') || 'society';
  const taken = (name: string) => library !== undefined && Object.hasOwn(library, name);
  if (!taken(clean)) return clean;
  for (let n = 2; ; n++) if (!taken(`${clean}${n}`)) return `${clean}${n}`;
}

/** Node ids not yet taken: `stem`, `stem2`… */
function uniqueId(stem: string, taken: Set<string>): string {
  let id = stem;
  for (let n = 2; taken.has(id); n++) id = `${stem}${n}`;
  taken.add(id);
  return id;
}

export interface Extraction {
  /** The graph's nodes and edges after the change. */
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** The new library graph. */
  graph: LibraryGraph;
  /** The society node standing for it, in the selection's place. */
  society: GraphNode;
}

/**
 * "Make sub-society from selection": the selected nodes (and what their containers hold) move
 * into a new library graph `name`; a society node takes their place. An edge from outside into
 * the selection becomes an input node in the graph (one per distinct outside source port) and an
 * edge into the society node; an edge from inside out, an output node (one per inner source
 * port) and an edge from the society node.
 */
export function extractSubsociety(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  selected: ReadonlySet<string>,
  name: string,
  modalityOf: (node: GraphNode, port: string) => string,
): Extraction {
  const inside = new Set(selected);
  for (let grew = true; grew; ) {
    grew = false;
    for (const n of nodes) {
      if (n.parentId && inside.has(n.parentId) && !inside.has(n.id)) {
        inside.add(n.id);
        grew = true;
      }
    }
  }
  const moved = nodes.filter((n) => inside.has(n.id));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const left = Math.min(
    ...moved.map((n) => (n.parentId && inside.has(n.parentId) ? Infinity : n.position.x)),
  );
  const top = Math.min(
    ...moved.map((n) => (n.parentId && inside.has(n.parentId) ? Infinity : n.position.y)),
  );
  const innerIds = new Set(moved.map((n) => n.id));
  const innerNodes: GraphNode[] = moved.map((n) => {
    const copy = structuredClone(n);
    if (!(copy.parentId && inside.has(copy.parentId))) {
      // A member of a container left outside is taken out of it.
      delete copy.parentId;
      copy.position = { x: n.position.x - left + 260, y: n.position.y - top };
    }
    return copy;
  });
  const innerEdges = edges.filter((e) => inside.has(e.source) && inside.has(e.target));
  const outerIds = new Set(nodes.filter((n) => !inside.has(n.id)).map((n) => n.id));
  const societyId = uniqueId(name, new Set([...outerIds, ...innerIds]));
  const usedNames = new Set<string>();
  const portName = (stem: string) => uniqueId(stem.replace(/[^A-Za-z0-9_]/g, '_'), usedNames);
  const outerEdges: GraphEdge[] = [];
  const inputs = new Map<string, { id: string; name: string }>();
  const outputs = new Map<string, { id: string; name: string }>();
  const edgeIds = new Set(innerEdges.map((e) => e.id));
  let inY = 0;
  let outY = 0;
  for (const edge of edges) {
    const from = inside.has(edge.source);
    const to = inside.has(edge.target);
    if (from === to) {
      if (!from) outerEdges.push(edge);
      continue;
    }
    if (to) {
      const key = `${edge.source}.${edge.sourceHandle ?? ''}`;
      let input = inputs.get(key);
      if (!input) {
        const portLabel = portName(edge.source);
        const id = uniqueId(`in_${portLabel}`, innerIds);
        const source = byId.get(edge.source);
        const modality = source ? modalityOf(source, edge.sourceHandle ?? '') : 'any';
        innerNodes.push({
          id,
          type: 'input',
          position: { x: 0, y: inY },
          data: { name: portLabel, modality: modality === 'any' ? 'text' : modality },
        } as GraphNode);
        inY += 120;
        input = { id, name: portLabel };
        inputs.set(key, input);
        outerEdges.push({
          id: uniqueId(`${edge.source}-${societyId}`, new Set(outerEdges.map((e) => e.id))),
          source: edge.source,
          sourceHandle: edge.sourceHandle,
          target: societyId,
          targetHandle: portLabel,
        } as GraphEdge);
      }
      innerEdges.push({
        ...edge,
        id: uniqueId(`${input.id}-${edge.target}`, edgeIds),
        source: input.id,
        sourceHandle: 'value',
      });
    } else {
      const key = `${edge.source}.${edge.sourceHandle ?? ''}`;
      let output = outputs.get(key);
      if (!output) {
        const portLabel = portName(edge.source);
        const id = uniqueId(`out_${portLabel}`, innerIds);
        const right = Math.max(...innerNodes.map((n) => n.position.x)) + 300;
        innerNodes.push({
          id,
          type: 'output',
          position: { x: right, y: outY },
          data: { name: portLabel },
        } as GraphNode);
        outY += 120;
        innerEdges.push({
          id: uniqueId(`${edge.source}-${id}`, edgeIds),
          source: edge.source,
          sourceHandle: edge.sourceHandle,
          target: id,
          targetHandle: 'value',
        } as GraphEdge);
        output = { id, name: portLabel };
        outputs.set(key, output);
      }
      outerEdges.push({
        ...edge,
        id: uniqueId(`${societyId}-${edge.target}`, new Set(outerEdges.map((e) => e.id))),
        source: societyId,
        sourceHandle: output.name,
      });
    }
  }
  // Nodes taken from one container leave the society node in that container.
  const parents = new Set(
    moved.filter((n) => !(n.parentId && inside.has(n.parentId))).map((n) => n.parentId),
  );
  const [parent] = parents;
  const society = {
    id: societyId,
    type: 'society',
    position: { x: left, y: top },
    ...(parents.size === 1 && parent ? { parentId: parent } : {}),
    data: { graph: name },
  } as GraphNode;
  return {
    nodes: [...nodes.filter((n) => !inside.has(n.id)), society],
    edges: outerEdges,
    graph: { nodes: innerNodes, edges: innerEdges },
    society,
  };
}

/** JSON with object keys sorted and no spacing: the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The SHA-256 (hex) of a document's canonical content (`canonicalJson`): how it is indented or
 * its keys ordered in the file does not change it; any change to what it holds does.
 */
export async function sourceHash(doc: GraphDocument): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(doc));
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A node naming library graphs, with the names `rename` gives them (a sub-society node whose
 * graph was renamed on the way in); other nodes as they are.
 */
export type Retarget = (node: GraphNode, rename: ReadonlyMap<string, string>) => GraphNode;

/**
 * The library graphs a document brings when inserted as a sub-society: its own graph under a
 * name from its document name, and its library's graphs, each renamed when the name is taken
 * (society nodes inside follow the renames). `main` is the name its own graph got.
 */
export function importedGraphs(
  doc: GraphDocument,
  library: Library | undefined,
  hash: string,
  retarget: Retarget,
): { main: string; graphs: Library } {
  const taken: Library = { ...library };
  const rename = new Map<string, string>();
  for (const name of Object.keys(doc.graphs ?? {})) {
    const next = uniqueGraphName(name, taken);
    rename.set(name, next);
    taken[next] = { nodes: [], edges: [] };
  }
  const main = uniqueGraphName(doc.name.toLowerCase().replace(/\s+/g, '_'), taken);
  const follow = (nodes: GraphNode[]): GraphNode[] => nodes.map((n) => retarget(n, rename));
  const graphs: Library = {};
  for (const [name, graph] of Object.entries(doc.graphs ?? {})) {
    graphs[rename.get(name)!] = {
      ...structuredClone(graph),
      nodes: follow(structuredClone(graph.nodes)),
    };
  }
  graphs[main] = {
    ...(doc.description ? { description: doc.description } : {}),
    nodes: follow(structuredClone(doc.nodes)),
    edges: structuredClone(doc.edges),
    source: { name: doc.name, hash },
  };
  return { main, graphs };
}

/** Where a society node names a library graph: `graph` null for the document's own graph. */
export interface GraphUse {
  graph: string | null;
  node: string;
}

/** Every society node naming library graph `name`, in the document's graph and in the library. */
export function graphUses(
  doc: GraphDocument,
  name: string,
  subgraphOf: (node: GraphNode) => string | undefined,
): GraphUse[] {
  const uses: GraphUse[] = [];
  const scan = (graph: string | null, nodes: readonly GraphNode[]) => {
    for (const node of nodes) if (subgraphOf(node) === name) uses.push({ graph, node: node.id });
  };
  scan(null, doc.nodes);
  for (const [graph, entry] of Object.entries(doc.graphs ?? {})) scan(graph, entry.nodes);
  return uses;
}

/** How a use reads in a message: `judge`, or `check (in panel)`. */
export function describeUse(use: GraphUse): string {
  return use.graph === null ? use.node : `${use.node} (in ${use.graph})`;
}

/** A library graph's name as the schema takes it: a letter or _, then letters, digits, _ or -. */
const GRAPH_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * The document with library graph `from` renamed `to`, and every society node naming it (in the
 * document's graph and in every library graph) naming `to`; the graph keeps its place in the
 * library's order. A string says why not (no such graph, a name taken or not an identifier).
 */
export function renameGraph(
  doc: GraphDocument,
  from: string,
  to: string,
  retarget: Retarget,
): GraphDocument | string {
  const library = doc.graphs ?? {};
  if (!Object.hasOwn(library, from)) return `The library has no graph "${from}".`;
  if (to === from) return `"${from}" already has that name.`;
  if (!GRAPH_NAME.test(to) || to in {}) {
    return `"${to}" is not a graph name: start with a letter or _, then letters, digits, _ or -.`;
  }
  if (Object.hasOwn(library, to)) return `The library already has a graph "${to}".`;
  const rename = new Map([[from, to]]);
  const follow = (nodes: GraphNode[]) => nodes.map((n) => retarget(n, rename));
  const graphs: Library = {};
  for (const [name, graph] of Object.entries(library)) {
    graphs[name === from ? to : name] = { ...graph, nodes: follow(graph.nodes) };
  }
  return { ...doc, nodes: follow(doc.nodes), graphs };
}

/**
 * The document without library graph `name`; a string says why not: no such graph, or the
 * society nodes that still use it (named, so the user can find them).
 */
export function deleteGraph(
  doc: GraphDocument,
  name: string,
  subgraphOf: (node: GraphNode) => string | undefined,
): GraphDocument | string {
  const library = doc.graphs ?? {};
  if (!Object.hasOwn(library, name)) return `The library has no graph "${name}".`;
  const uses = graphUses(doc, name, subgraphOf).filter((u) => u.graph !== name);
  if (uses.length > 0) {
    return `"${name}" is used by ${uses.map(describeUse).join(', ')}: point ${uses.length === 1 ? 'it' : 'them'} at another graph or delete ${uses.length === 1 ? 'it' : 'them'} first.`;
  }
  const graphs: Library = { ...library };
  delete graphs[name];
  const { graphs: _, ...rest } = doc;
  return Object.keys(graphs).length > 0 ? { ...rest, graphs } : rest;
}
