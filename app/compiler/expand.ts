/**
 * Sub-societies by reference, laid out before analysis. A node whose type stands for a graph of
 * the document's library (`NodeSpec.subgraph`) gets that graph's nodes copied in as its members
 * (ids `<node>/<member>`, parents prefixed, the graph's top-level nodes its children), so it runs
 * like a group: a child machine, replicated ×N, its members seeing each copy's bindings, nested
 * to any depth. The graph's input and output nodes are not copied: an edge into the node's port
 * X goes to what the input node named X fed, an edge out of its port Y comes from what fed the
 * output node named Y, so the run's inputs and outputs stay the document's own.
 *
 * The core never names a node type here: it reads the `subgraph`, `runInput`, `runOutput` and
 * `renameIds` hooks. Problems found in copied nodes point back into the library
 * (`graphs.NAME.nodes[i]…`), never at a laid-out copy's index.
 */
import type { NodePorts, NodeSpec, PortsContext } from '../node-sdk/define.ts';
import { graphPorts, type LibraryHooks } from '../node-sdk/library-ports.ts';
import type { GraphDocument, GraphEdge, GraphNode, LibraryGraph } from '../schema/document.ts';
import { DOCUMENT_BOUNDS } from '../schema/limits.ts';
import { formatPath, type Problem } from '../schema/problems.ts';

/** What expansion needs of node types: a node registry has it. */
export interface SpecLookup {
  get(type: string): NodeSpec<unknown> | undefined;
}

/** The document laid out, and how to point its problems back at what the user wrote. */
export interface Expansion {
  /** The document with every sub-society laid out in place; no `graphs`. */
  doc: GraphDocument;
  /** Ids of the nodes that stand for a library graph, now group containers of its copy. */
  containers: ReadonlySet<string>;
  /** Problems of the wiring itself (a port the graph lacks, an unknown graph…). */
  problems: Problem[];
  /** False when the layout stopped at the bound: `doc` is then partial, not to be analysed. */
  complete: boolean;
  /** Analysis problems with their paths moved from the laid-out document into the library. */
  locate(problems: Problem[]): Problem[];
}

/** One end of an edge once sub-societies are seen through. */
interface End {
  node: string;
  port: string;
  data?: GraphEdge['data'];
  /** Ids of the inner edges this end was reached through. */
  via: string[];
}

/** What a laid-out library graph offers the level around it. */
interface Level {
  /** The consumers of each input node, by the input's name. */
  inputs: Map<string, End[]>;
  /** What feeds each output node, by the output's name. */
  outputs: Map<string, End[]>;
}

type Where = PropertyKey[];

/** The library graph a node stands for, when its type stands for one and its data says which. */
export function subgraphName(
  spec: NodeSpec<unknown> | undefined,
  data: unknown,
): string | undefined {
  if (!spec?.subgraph) return undefined;
  const parsed = spec.data.safeParse(data);
  return parsed.success ? spec.subgraph(parsed.data) : undefined;
}

function parsedData<T>(
  spec: NodeSpec<unknown>,
  data: unknown,
  hook: ((d: unknown) => T) | undefined,
): T | undefined {
  if (!hook) return undefined;
  const parsed = spec.data.safeParse(data);
  return parsed.success ? hook(parsed.data) : undefined;
}

/**
 * The ports of each library graph (app/node-sdk/library-ports.ts: input nodes are inputs, every
 * one required; output nodes outputs, of the modality of what feeds them). What the editor,
 * `society nodes` and analysis hand to a node type's `ports`.
 */
export function libraryPorts(doc: Pick<GraphDocument, 'graphs'>, specs: SpecLookup): PortsContext {
  const cache = new Map<string, NodePorts>();
  const visiting = new Set<string>();
  const hooks: LibraryHooks = {
    runInput: (node) => {
      const spec = specs.get(node.type);
      return spec && parsedData(spec, node.data, spec.runInput);
    },
    runOutput: (node) => {
      const spec = specs.get(node.type);
      return spec && parsedData(spec, node.data, spec.runOutput);
    },
    outputModality: (node, port) => {
      const spec = specs.get(node.type);
      const parsed = spec?.data.safeParse(node.data);
      if (!spec || !parsed?.success) return undefined;
      try {
        return spec.ports(parsed.data, context).outputs.find((p) => p.name === port)?.modality;
      } catch {
        return undefined;
      }
    },
  };
  const context: PortsContext = {
    subgraphPorts(name) {
      const graph = Object.hasOwn(doc.graphs ?? {}, name) ? doc.graphs?.[name] : undefined;
      if (!graph) return undefined;
      const known = cache.get(name);
      if (known) return known;
      // A graph whose output is fed by a node standing for it again would recurse without end
      // (a cycle refused elsewhere: referenceCycles).
      if (visiting.has(name)) return { inputs: [], outputs: [] };
      visiting.add(name);
      const ports = graphPorts(graph, hooks);
      visiting.delete(name);
      cache.set(name, ports);
      return ports;
    },
  };
  return context;
}

/**
 * Every cycle of references in the library (`a` holds a node standing for `b`, which holds one
 * standing for `a`), each once, as a problem naming the chain.
 */
export function referenceCycles(doc: GraphDocument, specs: SpecLookup): Problem[] {
  const graphs = doc.graphs ?? {};
  const refs = new Map<string, Array<{ to: string; where: Where }>>();
  for (const [name, graph] of Object.entries(graphs)) {
    refs.set(
      name,
      graph.nodes.flatMap((node, i) => {
        const to = subgraphName(specs.get(node.type), node.data);
        return to !== undefined && Object.hasOwn(graphs, to)
          ? [{ to, where: ['graphs', name, 'nodes', i, 'data'] }]
          : [];
      }),
    );
  }
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string, chain: string[], wheres: Where[]): void => {
    if (done.has(name)) return;
    const at = chain.indexOf(name);
    if (at >= 0) {
      const cycle = chain.slice(at);
      // One problem per cycle, whichever graph the search entered it by.
      const key = [...cycle].sort().join('\u0000');
      if (reported.has(key)) return;
      reported.add(key);
      const names = [...cycle, name].map((n) => `graphs.${n}`).join(' → ');
      problems.push({
        path: formatPath(wheres[at] ?? ['graphs', name]),
        message: `sub-societies refer to each other in a cycle: ${names} (a graph may not contain itself)`,
      });
      return;
    }
    for (const ref of refs.get(name) ?? []) visit(ref.to, [...chain, name], [...wheres, ref.where]);
    if (chain.length === 0) done.add(name);
  };
  for (const name of refs.keys()) visit(name, [], []);
  return problems;
}

/**
 * Lays out every node that stands for a library graph (recursively). Returns the document as it
 * is when none does. Cycles must have been refused first (`referenceCycles`); a document that
 * would lay out to more than DOCUMENT_BOUNDS.maxInstances nodes is refused here.
 */
export function expandSubgraphs(doc: GraphDocument, specs: SpecLookup): Expansion {
  const graphs = doc.graphs ?? {};
  const hasReference = (nodes: GraphNode[]) =>
    nodes.some((n) => specs.get(n.type)?.subgraph !== undefined);
  if (!hasReference(doc.nodes)) {
    return { doc, containers: new Set(), problems: [], complete: true, locate: (p) => p };
  }
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const nodeWhere: Where[] = [];
  const edgeWhere: Where[] = [];
  const containers = new Set<string>();
  const problems: Problem[] = [];
  const limit = DOCUMENT_BOUNDS.maxInstances;
  let tooBig = false;
  const ports = libraryPorts(doc, specs);

  const layOut = (
    graph: Pick<LibraryGraph, 'nodes' | 'edges'>,
    base: Where,
    prefix: string,
    parent: string | undefined,
    chain: string[],
  ): Level => {
    const level: Level = { inputs: new Map(), outputs: new Map() };
    const inputNodes = new Map<string, string>();
    const outputNodes = new Map<string, string>();
    const inner = new Map<string, { level: Level; name: string; where: Where }>();
    const standIns = new Set(
      graph.nodes.filter((n) => specs.get(n.type)?.subgraph !== undefined).map((n) => n.id),
    );
    graph.nodes.forEach((node, i) => {
      if (tooBig) return;
      const spec = specs.get(node.type);
      const where = [...base, 'nodes', i];
      if (node.parentId !== undefined && standIns.has(node.parentId)) {
        problems.push({
          path: formatPath([...where, 'parentId']),
          node: prefix + node.id,
          message: `parent "${node.parentId}" is a ${specs.get(graph.nodes.find((n) => n.id === node.parentId)?.type ?? '')?.title.toLowerCase()}, whose members come from its graph`,
        });
      }
      // A library graph's input and output nodes become the ports of the node standing for it.
      if (prefix && spec) {
        const input = parsedData(spec, node.data, spec.runInput);
        if (input) {
          inputNodes.set(node.id, input.name);
          return;
        }
        const output = parsedData(spec, node.data, spec.runOutput);
        if (output) {
          outputNodes.set(node.id, output.name);
          return;
        }
      }
      if (nodes.length >= limit) {
        tooBig = true;
        problems.push({
          path: formatPath(where),
          message: `the document lays out to more than ${limit.toLocaleString('en-US')} nodes once its sub-societies are copied in, the most a document may expand to`,
        });
        return;
      }
      const id = prefix + node.id;
      const parentId = node.parentId !== undefined ? prefix + node.parentId : parent;
      const data =
        prefix && spec?.renameIds
          ? spec.renameIds(node.data, (other) => prefix + other)
          : node.data;
      const { parentId: _, ...rest } = node;
      nodes.push({ ...rest, id, data, ...(parentId === undefined ? {} : { parentId }) });
      nodeWhere.push(where);
      const name = subgraphName(spec, node.data);
      if (name === undefined) return;
      const library = Object.hasOwn(graphs, name) ? graphs[name] : undefined;
      if (!library) {
        const known = Object.keys(graphs);
        problems.push({
          path: formatPath([...where, 'data']),
          node: id,
          message: `stands for graph "${name}", which the document's library does not hold (${known.length ? `graphs: ${known.join(', ')}` : 'it has none'})`,
        });
        return;
      }
      // A cycle is refused before layout; this only keeps a mistake from recursing forever.
      if (chain.includes(name)) return;
      containers.add(id);
      const laid = layOut(library, ['graphs', name], `${id}/`, id, [...chain, name]);
      inner.set(node.id, { level: laid, name, where });
    });
    if (tooBig) return level;

    const connected = new Map<string, Set<string>>();
    graph.edges.forEach((edge, k) => {
      const where = [...base, 'edges', k];
      const mismatch = (side: 'source' | 'target', port: string, kind: 'input' | 'output') => {
        const sub = inner.get(side === 'source' ? edge.source : edge.target)!;
        const offered = ports.subgraphPorts(sub.name)?.[`${kind}s`] ?? [];
        problems.push({
          path: formatPath([...where, side === 'source' ? 'sourceHandle' : 'targetHandle']),
          node: prefix + (side === 'source' ? edge.source : edge.target),
          message: `edge "${edge.id}" ${side === 'source' ? 'starts at' : 'ends at'} ${kind} "${port}", but graph "${sub.name}" has no ${kind} node named "${port}" (${kind}s: ${offered.map((p) => p.name).join(', ') || 'none'})`,
        });
      };
      const own: End = { node: '', port: '', via: [], ...(edge.data ? { data: edge.data } : {}) };
      let sources: End[];
      const fromSub = inner.get(edge.source);
      if (fromSub) {
        const feeders = fromSub.level.outputs.get(edge.sourceHandle);
        if (!feeders) {
          mismatch('source', edge.sourceHandle, 'output');
          return;
        }
        sources = feeders;
      } else sources = [{ node: prefix + edge.source, port: edge.sourceHandle, via: [] }];
      let targets: End[];
      const toSub = inner.get(edge.target);
      if (toSub) {
        const consumers = toSub.level.inputs.get(edge.targetHandle);
        const declared = ports
          .subgraphPorts(toSub.name)
          ?.inputs.some((p) => p.name === edge.targetHandle);
        if (!consumers && !declared) {
          mismatch('target', edge.targetHandle, 'input');
          return;
        }
        targets = consumers ?? [];
        const seen = connected.get(edge.target) ?? new Set();
        connected.set(edge.target, seen.add(edge.targetHandle));
      } else targets = [{ node: prefix + edge.target, port: edge.targetHandle, via: [] }];
      const id = prefix + edge.id;
      const inputName = inputNodes.get(edge.source);
      const outputName = outputNodes.get(edge.target);
      if (inputName !== undefined && outputName !== undefined) {
        problems.push({
          path: formatPath(where),
          message: `edge "${edge.id}" takes input "${inputName}" straight to output "${outputName}": a sub-society's outputs come from its nodes`,
        });
        return;
      }
      if (inputName !== undefined) {
        const list = level.inputs.get(inputName) ?? [];
        level.inputs.set(inputName, list);
        for (const t of targets) list.push(join(own, t, [id, ...t.via], t));
        return;
      }
      if (outputName !== undefined) {
        const list = level.outputs.get(outputName) ?? [];
        level.outputs.set(outputName, list);
        for (const s of sources) list.push(join(s, own, [...s.via, id], s));
        return;
      }
      for (const s of sources) {
        for (const t of targets) {
          const data = { ...s.data, ...edge.data, ...t.data };
          edges.push({
            ...edge,
            id: [...s.via, id, ...t.via].join('→'),
            source: s.node,
            sourceHandle: s.port,
            target: t.node,
            targetHandle: t.port,
            ...(Object.keys(data).length ? { data } : {}),
          });
          edgeWhere.push(where);
        }
      }
    });
    // Every input of a sub-society is needed: its input nodes are not copied, so nothing would
    // give their consumers a value (or a default) otherwise.
    for (const [id, sub] of inner) {
      for (const port of ports.subgraphPorts(sub.name)?.inputs ?? []) {
        if (connected.get(id)?.has(port.name) || !sub.level.inputs.get(port.name)?.length) continue;
        problems.push({
          path: formatPath(sub.where),
          node: prefix + id,
          message: `input "${port.name}" of graph "${sub.name}" is not connected`,
        });
      }
    }
    return level;
  };

  layOut(doc, [], '', undefined, []);
  const { graphs: _, ...rest } = doc;
  const expanded: GraphDocument = { ...rest, nodes, edges };
  return {
    doc: expanded,
    containers,
    problems,
    complete: !tooBig,
    locate: (found) => relocate(found, nodeWhere, edgeWhere),
  };
}

/** One end carried through an inner edge: its node and port, with both edges' settings. */
function join(a: End, b: End, via: string[], end: End): End {
  const data = { ...a.data, ...b.data };
  return { node: end.node, port: end.port, via, ...(Object.keys(data).length ? { data } : {}) };
}

const LAID_OUT = /^(nodes|edges)\[(\d+)\](.*)$/;

/** Problems of the laid-out document, pointed at what the user wrote; each once. */
function relocate(problems: Problem[], nodeWhere: Where[], edgeWhere: Where[]): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const p of problems) {
    const m = LAID_OUT.exec(p.path);
    const where = m && (m[1] === 'nodes' ? nodeWhere : edgeWhere)[Number(m[2])];
    const path = where ? formatPath(where) + (m?.[3] ?? '') : p.path;
    const key = `${path}\u0000${p.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...p, path });
  }
  return out;
}
