/**
 * The editor's actions on the document's library of graphs: make a sub-society from the
 * selection, insert another document as one, update such a copy from its source, rename and
 * delete a graph. Each is one
 * undo step on the document; nothing is read from another file at run time.
 */
import type { GraphDocument } from '../../app/schema/document.ts';
import { api } from '../api.ts';
import { type FlowNode, fromDocument, readDocument, toDocument } from '../model/document.ts';
import {
  deleteGraph,
  extractSubsociety,
  importedGraphs,
  type Library,
  renameGraph,
  sourceHash,
  uniqueGraphName,
} from '../model/library.ts';
import { retargetSubgraph, specPorts, subgraphOf } from '../model/ports.ts';
import {
  documentNodes,
  type EditorState,
  notify,
  replaceDocument,
  selectNode,
  useEditor,
} from '../store.ts';

const get = useEditor.getState;
const set = useEditor.setState;

/**
 * Shows a library graph on the canvas (`via`: the society node it was opened from, whose run
 * statuses its nodes then show), one level in from what is shown now; the document is the same,
 * so history, dirty state and saving carry on.
 */
export function openGraph(graph: string, via?: string): void {
  const state = get();
  if (!state.meta.graphs || !Object.hasOwn(state.meta.graphs as object, graph)) {
    notify('error', `The document has no library graph "${graph}".`);
    return;
  }
  if (state.path.some((step) => step.graph === graph)) {
    notify('error', `"${graph}" is already open (${state.path.map((s) => s.graph).join(' › ')}).`);
    return;
  }
  const doc = toDocument(state);
  set({
    ...fromDocument(doc, [...state.path, { graph, ...(via ? { via } : {}) }]),
    historyKey: null,
    epoch: state.epoch + 1,
  });
}

/** Goes back out to the first `depth` library graphs of the way in (0: the document's graph). */
export function closeGraphs(depth: number): void {
  const state = get();
  if (depth >= state.path.length) return;
  set({
    ...fromDocument(toDocument(state), state.path.slice(0, depth)),
    historyKey: null,
    epoch: state.epoch + 1,
  });
}

/**
 * Shows a node the run or the backend names by its laid-out id (`panel/voice`, nested
 * `outer/inner/agent`): the sub-societies on the way are opened from the document's graph, and
 * the node is selected. A plain id selects the node on the document's graph.
 */
export function revealNode(id: string): void {
  const steps = id.split('/');
  const last = steps.pop()!;
  if (steps.length > 0 || get().path.length > 0) closeGraphs(0);
  for (const via of steps) {
    const node = get().nodes.find((n) => n.id === via.replace(/#\d+$/, ''));
    const graph = node && subgraphOf(node);
    if (!node || !graph) return;
    openGraph(graph, node.id);
  }
  selectNode(last);
}

/**
 * The node a run names by its laid-out id (`panel/voice`: `voice` of the graph `panel` runs),
 * found through the document's library wherever the canvas is; undefined when there is none.
 */
export function nodeOfRunId(state: EditorState, id: string): FlowNode | undefined {
  const shown = state.path.at(-1)?.graph;
  const graphNodes = (graph: string): FlowNode[] | undefined =>
    graph === shown ? state.nodes : (state.meta.graphs?.[graph]?.nodes as FlowNode[] | undefined);
  let nodes: FlowNode[] | undefined = documentNodes(state);
  const steps = id.split('/');
  const last = steps.pop()!;
  for (const via of steps) {
    const node: FlowNode | undefined = nodes?.find((n) => n.id === via.replace(/#\d+$/, ''));
    const graph: string | undefined = node && subgraphOf(node);
    nodes = graph === undefined ? undefined : graphNodes(graph);
  }
  return nodes?.find((n) => n.id === last);
}

/** The library as it is now (the graph on the canvas included). */
function currentLibrary(): Library | undefined {
  return toDocument(get()).graphs;
}

/** A name for a new library graph that is not taken yet. */
export function suggestedGraphName(stem = 'subsociety'): string {
  return uniqueGraphName(stem, currentLibrary());
}

/**
 * Moves the selected nodes into a new library graph `name` and puts a society node in their
 * place (see `extractSubsociety`); returns why not, or null when done.
 */
export function makeSubsociety(name: string): string | null {
  const state = get();
  const selected = new Set(state.nodes.filter((n) => n.selected).map((n) => n.id));
  if (selected.size === 0) return 'Select the nodes to move into the sub-society first.';
  const doc = toDocument(state);
  const library = doc.graphs ?? {};
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) {
    return `"${name}" is not a graph name: start with a letter or _, then letters, digits, _ or -.`;
  }
  if (Object.hasOwn(library, name)) return `The library already has a graph "${name}".`;
  const shown = state.path.at(-1)?.graph;
  const from = shown ? library[shown]! : doc;
  const result = extractSubsociety(
    from.nodes,
    from.edges,
    selected,
    name,
    (node, port) =>
      specPorts({
        id: node.id,
        type: node.type,
        data: node.data as Record<string, unknown>,
      }).outputs.find((p) => p.name === port)?.modality ?? 'any',
  );
  const graphs: Library = { ...library, [name]: result.graph };
  const next: GraphDocument = shown
    ? {
        ...doc,
        graphs: {
          ...graphs,
          [shown]: { ...library[shown]!, nodes: result.nodes, edges: result.edges },
        },
      }
    : { ...doc, nodes: result.nodes, edges: result.edges, graphs };
  replaceDocument(next);
  notify(
    'info',
    `Made sub-society "${name}" from ${selected.size} node${selected.size === 1 ? '' : 's'}.`,
  );
  return null;
}

/** Reads a workspace document as a sub-society's source; null (after saying why) when it cannot. */
async function readSource(name: string): Promise<{ doc: GraphDocument; hash: string } | null> {
  try {
    const { text } = await api().call('files.read', { name });
    const result = readDocument(text);
    if (!result.ok) {
      notify(
        'error',
        `${name} is not a document the studio can read (${result.problems.length} problems).`,
      );
      return null;
    }
    return { doc: result.doc, hash: await sourceHash(result.doc) };
  } catch (error) {
    notify('error', `Could not read ${name}: ${(error as Error).message}`);
    return null;
  }
}

/** Asks for a workspace document and inserts it as a sub-society (copied into the library). */
export function pickDocumentToInsert(): void {
  set({
    modal: {
      kind: 'open',
      title: 'Insert a document as a sub-society',
      pick: (name) => {
        set({ modal: null });
        void insertDocument(name);
      },
    },
  });
}

/**
 * Copies the workspace document `name` (its graph and its own library, renamed where names
 * clash) into this document's library with its source name and hash, and adds a society node
 * running it.
 */
export async function insertDocument(name: string): Promise<void> {
  const source = await readSource(name);
  if (!source) return;
  const doc = toDocument(get());
  const { main, graphs } = importedGraphs(source.doc, doc.graphs, source.hash, retargetSubgraph);
  const state = get();
  const shown = state.path.at(-1)?.graph;
  const library: Library = { ...doc.graphs, ...graphs };
  const taken = new Set(state.nodes.map((n) => n.id));
  let id = main;
  for (let n = 2; taken.has(id); n++) id = `${main}${n}`;
  const right = Math.max(0, ...state.nodes.map((n) => n.position.x)) + 280;
  const node = { id, type: 'society', position: { x: right, y: 40 }, data: { graph: main } };
  const next: GraphDocument = shown
    ? {
        ...doc,
        graphs: {
          ...library,
          [shown]: { ...library[shown]!, nodes: [...library[shown]!.nodes, node] },
        },
      }
    : { ...doc, nodes: [...doc.nodes, node], graphs: library };
  replaceDocument(next);
  notify('info', `Inserted ${name} as sub-society "${main}".`);
}

/**
 * "Update from source": the user picks the source document again; when its content changed
 * since it was copied, the library graph is replaced after they confirm.
 */
export function pickSourceToUpdate(graph: string): void {
  set({
    modal: {
      kind: 'open',
      title: `Update "${graph}" from its source`,
      pick: (name) => {
        set({ modal: null });
        void updateFromSource(graph, name);
      },
    },
  });
}

export async function updateFromSource(graph: string, name: string): Promise<void> {
  const current = currentLibrary()?.[graph];
  if (!current?.source) {
    notify('error', `"${graph}" was not inserted from a document.`);
    return;
  }
  const source = await readSource(name);
  if (!source) return;
  if (source.doc.name !== current.source.name) {
    notify(
      'error',
      `${name} is "${source.doc.name}", not "${current.source.name}", the source of "${graph}".`,
    );
    return;
  }
  if (source.hash === current.source.hash) {
    notify('info', `"${graph}" is up to date with ${name}.`);
    return;
  }
  set({
    modal: {
      kind: 'confirm',
      title: 'Update from source',
      message: `${name} changed since "${graph}" was copied from it. Replace "${graph}" with its current content? (Undo puts it back.)`,
      confirm: 'Replace',
      onConfirm: () => {
        const doc = toDocument(get());
        const others = { ...doc.graphs };
        delete others[graph];
        const { main, graphs } = importedGraphs(source.doc, others, source.hash, retargetSubgraph);
        const replaced: Library = { ...doc.graphs };
        for (const [key, value] of Object.entries(graphs)) {
          replaced[key === main ? graph : key] = value;
        }
        replaceDocument({ ...doc, graphs: replaced });
        notify('info', `Updated "${graph}" from ${name}.`);
      },
    },
  });
}

/**
 * Runs a change of the library from the document's graph (so the way in never names a graph
 * that is gone), the node selected there staying selected, its inspector open.
 */
function keepingSelection(change: () => void): void {
  closeGraphs(0);
  const selected = get().nodes.filter((n) => n.selected);
  change();
  if (selected.length === 1) selectNode(selected[0]!.id);
}

/**
 * Renames library graph `from` to `to`, the society nodes naming it following (see
 * `renameGraph`); returns why not, or null when done.
 */
export function renameLibraryGraph(from: string, to: string): string | null {
  const next = renameGraph(toDocument(get()), from, to, retargetSubgraph);
  if (typeof next === 'string') return next;
  keepingSelection(() => replaceDocument(next));
  notify('info', `Renamed library graph "${from}" to "${to}".`);
  return null;
}

/**
 * Deletes library graph `name` after the user confirms; while a society node uses it, says which
 * instead.
 */
export function deleteLibraryGraph(name: string): void {
  const next = deleteGraph(toDocument(get()), name, subgraphOf);
  if (typeof next === 'string') {
    notify('error', next);
    return;
  }
  set({
    modal: {
      kind: 'confirm',
      title: 'Delete library graph',
      message: `Delete "${name}" from the document's library? No node uses it. (Undo puts it back.)`,
      confirm: 'Delete',
      onConfirm: () => {
        keepingSelection(() =>
          replaceDocument(deleteGraph(toDocument(get()), name, subgraphOf) as GraphDocument),
        );
        notify('info', `Deleted library graph "${name}".`);
      },
    },
  });
}
