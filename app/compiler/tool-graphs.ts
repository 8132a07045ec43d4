/**
 * Checks of the library graphs nodes offer as tools (`NodeSpec.toolSources` of kind `graph`):
 * each must be in the document's library, and none may be offered, directly or through the
 * graphs it holds, to a node inside itself (a call would run the graph inside its own call,
 * without end). The core names no node type: it reads the `toolSources` and `subgraph` hooks.
 */
import type { GraphDocument, GraphNode } from '../schema/document.ts';
import { formatPath, type Problem } from '../schema/problems.ts';
import { type SpecLookup, subgraphName } from './expand.ts';

type Where = PropertyKey[];

/** The library graphs a node offers as tools, as its data names them. */
function toolGraphs(specs: SpecLookup, node: GraphNode): string[] {
  const spec = specs.get(node.type);
  if (!spec?.toolSources) return [];
  const parsed = spec.data.safeParse(node.data);
  if (!parsed.success) return [];
  return spec.toolSources(parsed.data).flatMap((ref) => (ref.kind === 'graph' ? [ref.graph] : []));
}

/** Problems of the graphs offered as tools: one naming no library graph, and cycles. */
export function toolGraphProblems(doc: GraphDocument, specs: SpecLookup): Problem[] {
  const graphs = doc.graphs ?? {};
  const problems: Problem[] = [];
  const known = Object.keys(graphs);
  const missing = (nodes: GraphNode[], base: Where) =>
    nodes.forEach((node, i) => {
      for (const name of toolGraphs(specs, node)) {
        if (Object.hasOwn(graphs, name)) continue;
        problems.push({
          path: formatPath([...base, 'nodes', i, 'data', 'tools']),
          node: node.id,
          message: `offers graph "${name}" as a tool, which the document's library does not hold (${known.length ? `graphs: ${known.join(', ')}` : 'it has none'})`,
        });
      }
    });
  missing(doc.nodes, []);
  for (const [name, graph] of Object.entries(graphs)) missing(graph.nodes, ['graphs', name]);

  // What each library graph reaches: graphs it holds as sub-societies, graphs it offers as tools.
  const reaches = new Map<string, Array<{ to: string; tool: boolean; where: Where }>>();
  for (const [name, graph] of Object.entries(graphs)) {
    reaches.set(
      name,
      graph.nodes.flatMap((node, i) => {
        const where = ['graphs', name, 'nodes', i, 'data'];
        const sub = subgraphName(specs.get(node.type), node.data);
        return [
          ...(sub !== undefined && Object.hasOwn(graphs, sub)
            ? [{ to: sub, tool: false, where }]
            : []),
          ...toolGraphs(specs, node)
            .filter((to) => Object.hasOwn(graphs, to))
            .map((to) => ({ to, tool: true, where: [...where, 'tools'] })),
        ];
      }),
    );
  }
  const reported = new Set<string>();
  const done = new Set<string>();
  const visit = (
    name: string,
    chain: string[],
    steps: Array<{ tool: boolean; where: Where }>,
  ): void => {
    const at = chain.indexOf(name);
    if (at >= 0) {
      const cycle = chain.slice(at);
      const key = [...cycle].sort().join('\u0000');
      // A cycle of sub-societies alone is refused before this check (`referenceCycles`).
      if (reported.has(key) || !steps.slice(at).some((s) => s.tool)) return;
      reported.add(key);
      const names = [...cycle, name].map((n) => `graphs.${n}`).join(' → ');
      problems.push({
        path: formatPath(steps[at]?.where ?? ['graphs', name]),
        message: `a graph is offered as a tool inside itself: ${names} (a call would run the graph within its own call)`,
      });
      return;
    }
    if (done.has(name)) return;
    for (const step of reaches.get(name) ?? []) {
      visit(step.to, [...chain, name], [...steps, step]);
    }
    if (chain.length === 0) done.add(name);
  };
  for (const name of reaches.keys()) visit(name, [], []);
  return problems;
}

/**
 * The document a call runs: the library graph's nodes and edges, with the models, settings and
 * library of the document around it (a tool graph may hold sub-societies and call models).
 */
export function graphToolDocument(doc: GraphDocument, name: string): GraphDocument {
  const graph = doc.graphs?.[name];
  if (!graph) throw new Error(`the document's library holds no graph "${name}"`);
  return {
    version: doc.version,
    name,
    ...(graph.description ? { description: graph.description } : {}),
    ...(doc.models ? { models: doc.models } : {}),
    ...(doc.settings ? { settings: doc.settings } : {}),
    ...(doc.graphs ? { graphs: doc.graphs } : {}),
    nodes: graph.nodes,
    edges: graph.edges,
  };
}
