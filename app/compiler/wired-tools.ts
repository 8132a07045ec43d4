/**
 * Nodes offered as tools by a wire: any node's output wired into a `tool`-modality input (an
 * agent's `tools`) offers that node to the receiving node as a tool. No value flows on such a
 * wire and the offered node does not run in the flow: before sub-societies are laid out, each
 * offer becomes a library graph holding the offered node, with a run input for each of its
 * input ports and a run output for the wired output, and the receiving node is offered that
 * graph (its `withToolGraphs` hook). Graph tools then do the rest: the schema, the call as a
 * child graph, records, replay, approval, estimates. The core names no node type: run inputs and
 * outputs are made through the `makeRunInput`/`makeRunOutput` hooks.
 */
import type { NodeSpec, PortSpec, WiredToolGraph } from '../node-sdk/define.ts';
import { isGivenModality, toolName } from '../node-sdk/tool-modalities.ts';
import type { GraphDocument, GraphEdge, GraphNode, LibraryGraph } from '../schema/document.ts';
import { TOOL_MODALITY } from '../schema/modality.ts';
import { formatPath, type Problem } from '../schema/problems.ts';
import { libraryPorts, type SpecLookup } from './expand.ts';

/** What the compiler reads of the node types: each by type, and all of them (to find hooks). */
export interface SpecTable extends SpecLookup {
  readonly specs: ReadonlyMap<string, NodeSpec<unknown>>;
}

export interface WiredTools {
  /**
   * The document the plan is made from: tool wires and offered nodes taken out, each offer a
   * library graph, the receiving nodes' data offering them. The same document when it has none.
   */
  doc: GraphDocument;
  /** The library graphs laid out for offers, by name. */
  graphs: Map<string, { graph: LibraryGraph; node: string; where: string }>;
  problems: Problem[];
  /** Maps a problem found in `doc` back to the document as written (indexes shift). */
  locate(problem: Problem): Problem;
}

/**
 * The name of the library graph one offer is laid out as: the node's id (and port, when it has
 * several outputs), scoped by the library graph it sits in; marked `tool__` when the library
 * already holds a graph by that name.
 */
function graphName(
  doc: GraphDocument,
  scope: string | undefined,
  node: string,
  port: string,
  several: boolean,
): string {
  const name = `${scope ? `${scope}__` : ''}${node}${several ? `__${port}` : ''}`;
  return Object.hasOwn(doc.graphs ?? {}, name) ? `tool__${name}` : name;
}

/** Lays out the nodes wired into `tool` ports as library graphs; see the module's comment. */
export function wireTools(doc: GraphDocument, specs: SpecTable): WiredTools {
  const problems: Problem[] = [];
  const graphs: WiredTools['graphs'] = new Map();
  const ports = libraryPorts(doc, specs);
  const portsOf = (node: GraphNode) => {
    const spec = specs.get(node.type);
    const parsed = spec?.data.safeParse(node.data);
    return spec && parsed?.success ? spec.ports(parsed.data, ports) : undefined;
  };
  const all = [...specs.specs.values()];
  const inputSpec = all.find((s) => s.makeRunInput);
  const outputSpec = all.find((s) => s.makeRunOutput);
  if (!inputSpec || !outputSpec) return { doc, graphs, problems, locate: (p) => p };
  const maps = new Map<string, { nodes: number[]; edges: number[] }>();

  const rewrite = (
    graph: Pick<LibraryGraph, 'nodes' | 'edges'>,
    base: Array<string | number>,
    scope: string | undefined,
  ): Pick<LibraryGraph, 'nodes' | 'edges'> => {
    const byId = new Map(graph.nodes.map((n, i) => [n.id, { node: n, i }]));
    const toolEdges = graph.edges.flatMap((edge, i) => {
      const target = byId.get(edge.target)?.node;
      const input = target && portsOf(target)?.inputs.find((p) => p.name === edge.targetHandle);
      return input?.modality === TOOL_MODALITY ? [{ edge, i }] : [];
    });
    if (toolEdges.length === 0) return graph;
    const offered = new Set<string>();
    const dropEdges = new Set(toolEdges.map((t) => t.i));
    const offers = new Map<string, WiredToolGraph[]>();
    const pending: Array<{
      name: string;
      node: GraphNode;
      port: string;
      inputs: PortSpec[];
      description: string;
      i: number;
    }> = [];
    for (const { edge, i } of toolEdges) {
      const at = byId.get(edge.source);
      const where = formatPath([...base, 'edges', i]);
      if (!at) continue; // An edge from no node: analysis says so.
      const { node } = at;
      const spec = specs.get(node.type);
      if (!spec) continue;
      const bad = (message: string) => problems.push({ path: where, node: node.id, message });
      if (spec.runInput || spec.runOutput) {
        bad(
          `a run ${spec.runInput ? 'input' : 'output'} cannot be offered as a tool: remove the wire to ${edge.target}.${edge.targetHandle} and wire a node that does the work`,
        );
        continue;
      }
      if (spec.container && !spec.subgraph) {
        bad(
          `a ${spec.title.toLowerCase()} cannot be offered as a tool: make it a sub-society and wire that to ${edge.target}.${edge.targetHandle}`,
        );
        continue;
      }
      const into = graph.edges.find((e, j) => e.target === node.id && !dropEdges.has(j));
      if (into) {
        bad(
          `it is offered as a tool to ${edge.target}, so its inputs come from ${edge.target}'s calls: remove the wire from ${into.source}`,
        );
        continue;
      }
      const out = graph.edges.find((e, j) => e.source === node.id && !dropEdges.has(j));
      if (out) {
        bad(
          `it is offered as a tool to ${edge.target}, so it runs once per call, not in the flow: remove the wire to ${out.target}`,
        );
        continue;
      }
      const nodePorts = portsOf(node);
      if (!nodePorts) continue; // Data its type refuses: analysis says so.
      if (!specs.get(byId.get(edge.target)?.node.type ?? '')?.withToolGraphs) {
        bad(
          `${edge.target} has a tools port but takes no tools by wire (its type lacks withToolGraphs)`,
        );
        continue;
      }
      const several = nodePorts.outputs.length > 1;
      const name = graphName(doc, scope, node.id, edge.sourceHandle, several);
      const data = node.data as { label?: unknown };
      const label = typeof data.label === 'string' && data.label ? data.label : node.id;
      const parsed = spec.data.safeParse(node.data);
      const summary = parsed.success ? spec.summary?.(parsed.data) : undefined;
      const told = parsed.success ? spec.toolDescription?.(parsed.data) : undefined;
      const description = [told, `${spec.title} "${label}"${summary ? `: ${summary}` : ''}.`]
        .filter(Boolean)
        .join(' ')
        .slice(0, 2000);
      const tool = {
        graph: name,
        name: toolName(several ? `${label}_${edge.sourceHandle}` : label),
        description,
      };
      const list = offers.get(edge.target) ?? [];
      const clash = list.find((t) => t.name === tool.name && t.graph !== tool.graph);
      if (clash) {
        bad(
          `its tool name "${tool.name}" is taken by another node offered to ${edge.target}: give one of them another label`,
        );
        continue;
      }
      if (!list.some((t) => t.graph === name)) list.push(tool);
      offers.set(edge.target, list);
      offered.add(node.id);
      const inputs = nodePorts.inputs.filter((p) => p.modality !== TOOL_MODALITY);
      // What a model cannot write (a picture) is the receiving node's own input, given to calls.
      const receiver = byId.get(edge.target)?.node;
      const own = receiver ? (portsOf(receiver)?.inputs ?? []) : [];
      const lacking = inputs.find(
        (p) => p.required && isGivenModality(p.modality) && !own.some((o) => o.name === p.name),
      );
      if (lacking) {
        bad(
          `its input "${lacking.name}" is ${lacking.modality}, which a model cannot write: give ${edge.target} an input "${lacking.name}" and wire the ${lacking.modality} into it, so every call is given it`,
        );
        continue;
      }
      if (graphs.has(name) || pending.some((p) => p.name === name)) continue;
      pending.push({ name, node, port: edge.sourceHandle, inputs, description, i: at.i });
    }
    // The data a node runs with: offering what is wired into its tool ports, if anything.
    const dataOf = (node: GraphNode) => {
      const tools = offers.get(node.id);
      const hook = specs.get(node.type)?.withToolGraphs;
      return tools && hook ? hook(node.data, tools) : node.data;
    };
    for (const p of pending) {
      graphs.set(p.name, {
        graph: layOut(
          { ...p.node, data: dataOf(p.node) },
          p.port,
          p.inputs,
          inputSpec,
          outputSpec,
          p.description,
        ),
        node: p.node.id,
        where: formatPath([...base, 'nodes', p.i]),
      });
    }
    const map = { nodes: [] as number[], edges: [] as number[] };
    maps.set(base.join('.'), map);
    const nodes: GraphNode[] = [];
    graph.nodes.forEach((node, i) => {
      if (offered.has(node.id)) return;
      nodes.push(offers.has(node.id) ? { ...node, data: dataOf(node) } : node);
      map.nodes.push(i);
    });
    const edges: GraphEdge[] = [];
    graph.edges.forEach((edge, i) => {
      if (dropEdges.has(i) && offered.has(edge.source)) return;
      edges.push(edge);
      map.edges.push(i);
    });
    return { ...graph, nodes, edges };
  };

  const top = rewrite(doc, [], undefined);
  const library: Record<string, LibraryGraph> = {};
  for (const [name, graph] of Object.entries(doc.graphs ?? {})) {
    library[name] = { ...graph, ...rewrite(graph, ['graphs', name], name) };
  }
  // An offered node that offers tools itself keeps its own: its graph holds its rewritten data.
  for (const [name, entry] of graphs) library[name] = entry.graph;
  if (graphs.size === 0) return { doc, graphs, problems, locate: (p) => p };
  const locate = (problem: Problem): Problem => {
    const m = /^(?:graphs\.([A-Za-z0-9_-]+)\.)?(nodes|edges)\[(\d+)\]/.exec(problem.path);
    if (!m) return problem;
    const map = maps.get(m[1] ? `graphs.${m[1]}` : '');
    const index = map?.[m[2] as 'nodes' | 'edges'][Number(m[3])];
    if (index === undefined) return problem;
    const prefix = `${m[1] ? `graphs.${m[1]}.` : ''}${m[2]}[${index}]`;
    return { ...problem, path: prefix + problem.path.slice(m[0].length) };
  };
  return {
    doc: { ...doc, nodes: top.nodes, edges: top.edges, graphs: library },
    graphs,
    problems,
    locate,
  };
}

/** The library graph one call of an offered node runs: a run input per input, the node, its output. */
function layOut(
  node: GraphNode,
  port: string,
  inputs: PortSpec[],
  inputSpec: NodeSpec<unknown>,
  outputSpec: NodeSpec<unknown>,
  description: string,
): LibraryGraph {
  const taken = new Set([node.id]);
  const fresh = (want: string) => {
    let id = want;
    for (let n = 2; taken.has(id); n++) id = `${want}_${n}`;
    taken.add(id);
    return id;
  };
  const { parentId: _, ...offered } = node;
  const nodes: GraphNode[] = [{ ...offered, position: node.position }];
  const edges: GraphEdge[] = [];
  inputs.forEach((input, i) => {
    const data = inputSpec.makeRunInput?.(input) as Record<string, unknown>;
    const from = inputSpec.ports(data).outputs[0]?.name ?? 'value';
    const id = fresh(`input_${input.name}`);
    nodes.push({ id, type: inputSpec.type, position: { x: 0, y: i * 100 }, data });
    edges.push({
      id: `${id}->${node.id}`,
      source: id,
      sourceHandle: from,
      target: node.id,
      targetHandle: input.name,
    });
  });
  const data = outputSpec.makeRunOutput?.(port) as Record<string, unknown>;
  const into = outputSpec.ports(data).inputs[0]?.name ?? 'value';
  const id = fresh(`output_${port}`);
  nodes.push({ id, type: outputSpec.type, position: { x: 600, y: 0 }, data });
  edges.push({
    id: `${node.id}->${id}`,
    source: node.id,
    sourceHandle: port,
    target: id,
    targetHandle: into,
  });
  return { description, nodes, edges };
}
