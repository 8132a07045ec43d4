/**
 * Static analysis of a graph document: every node's type and data, the container tree, edges,
 * ports, modalities, required inputs, model profiles and cycles. The result is either a list of
 * problems (each naming a node or a JSON path) or a `GraphPlan` the machine builder and the
 * engine share.
 */
import type { NodePorts, NodeSpec, PortSpec, PortsContext } from '../node-sdk/define.ts';
import type { GraphNodeView, GraphView } from '../node-sdk/graph-view.ts';
import type { NodeRegistry } from '../node-sdk/registry.ts';
import { documentRenderer } from '../node-sdk/template.ts';
import type { GraphDocument, GraphEdge, Replicate, Stage } from '../schema/document.ts';
import { DOCUMENT_BOUNDS } from '../schema/limits.ts';
import { listOf, type Modality, modalityFits } from '../schema/modality.ts';
import { type ParamValue, paramDefaults, withParamVars } from '../schema/params.ts';
import { zodProblems } from '../schema/parse.ts';
import { formatPath, type Problem } from '../schema/problems.ts';
import { instanceProblems } from './instances.ts';

/** The id of the top-level scope. */
export const ROOT = '$root';

export interface InputBinding {
  edge: GraphEdge;
  edgeIndex: number;
  source: string;
  sourcePort: string;
  /** The modality the consumer receives (lists added by replication or `collect: all`). */
  modality: Modality;
  previousRound: boolean;
  collect: 'last' | 'all';
  /** The loop whose rounds `collect: all` gathers, when the edge leaves one. */
  collectLoop?: string;
}

export interface PlannedNode {
  id: string;
  index: number;
  type: string;
  spec: NodeSpec<unknown>;
  /** Parsed data with defaults filled. */
  data: Record<string, unknown>;
  ports: NodePorts;
  /** The container this node sits in, or ROOT. */
  scope: string;
  container?: 'loop' | 'group';
  replicate?: { items: unknown[]; as: string };
  /** Inside a loop: when the node runs. */
  stage: Stage;
  /** Edges into each input port, in document order. */
  inputs: Record<string, InputBinding[]>;
  /** Nodes this one reads from (including through its members, for containers). */
  outgoing: GraphEdge[];
}

export interface GraphPlan {
  doc: GraphDocument;
  nodes: Map<string, PlannedNode>;
  /**
   * The value of each template parameter this plan was bound with; templates read them as
   * `{{ params.NAME }}`.
   */
  params: Readonly<Record<string, ParamValue>>;
  /** Direct children of each scope (ROOT and every container), in document order. */
  children: Map<string, string[]>;
  /**
   * The plan of each library graph a node offers as a tool, as a call runs it (the gateway's
   * child graph), by graph name: what the estimate counts for one call. Set by `compileGraph`.
   */
  toolPlans?: ReadonlyMap<string, GraphPlan>;
  /**
   * With nodes wired into tool ports: the document whose library holds the graphs they are
   * offered as (app/compiler/wired-tools.ts), which a graph-tool call runs. Set by `compileGraph`.
   */
  toolDoc?: GraphDocument;
}

export type AnalysisResult = { ok: true; plan: GraphPlan } | { ok: false; problems: Problem[] };

/** What analysis knows beyond the document: its library's ports, and what was laid out. */
export interface AnalysisContext {
  /** The ports of the document's library graphs, for nodes that stand for one. */
  ports?: PortsContext;
  /**
   * Nodes whose library graph is already laid out as their members (./expand.ts): their edges
   * now reach those members, so they have no ports of their own.
   */
  laidOut?: ReadonlySet<string>;
}

/**
 * Analyses a document whose parameter references are already bound (compileGraph binds them);
 * `params` are the values bound, kept for templates (default: the declared defaults).
 */
export function analyzeGraph(
  doc: GraphDocument,
  registry: NodeRegistry,
  params: Readonly<Record<string, ParamValue>> = paramDefaults(doc.params),
  context: AnalysisContext = {},
): AnalysisResult {
  const problems: Problem[] = [];
  const nodes = new Map<string, PlannedNode>();
  const known = [...registry.specs.keys()].join(', ');
  const containers = containerNames(registry);

  // 1. Types and data.
  doc.nodes.forEach((node, index) => {
    const spec = registry.get(node.type);
    if (!spec) {
      problems.push({
        path: formatPath(['nodes', index, 'type']),
        node: node.id,
        message: `unknown node type "${node.type}" (known types: ${known})`,
      });
      return;
    }
    const parsed = spec.data.safeParse(node.data);
    if (!parsed.success) {
      problems.push(...zodProblems(parsed.error, doc, ['nodes', index, 'data']));
      return;
    }
    const data = parsed.data as Record<string, unknown>;
    for (const p of spec.check?.(data) ?? []) {
      problems.push({
        path: formatPath(['nodes', index, 'data', ...p.path]),
        node: node.id,
        message: p.message,
      });
    }
    const replicate = data.replicate as Replicate | undefined;
    nodes.set(node.id, {
      id: node.id,
      index,
      type: node.type,
      spec,
      data,
      ports: context.laidOut?.has(node.id)
        ? { inputs: [], outputs: [] }
        : spec.ports(data, context.ports),
      scope: node.parentId ?? ROOT,
      container: spec.container,
      replicate: replicate && { items: replicate.items, as: replicate.as ?? 'item' },
      stage: (data.stage as Stage | undefined) ?? 'round',
      inputs: {},
      outgoing: [],
    });
  });

  // 2. The container tree.
  for (const node of nodes.values()) {
    if (node.scope === ROOT) continue;
    const parent = nodes.get(node.scope);
    const path = formatPath(['nodes', node.index, 'parentId']);
    if (!parent) {
      if (!doc.nodes.some((n) => n.id === node.scope)) {
        problems.push({ path, node: node.id, message: `parent "${node.scope}" does not exist` });
      }
      node.scope = ROOT;
    } else if (!parent.container) {
      problems.push({
        path,
        node: node.id,
        message: `parent "${parent.id}" is a ${parent.type}, not a ${containers.containers}`,
      });
      node.scope = ROOT;
    }
  }
  for (const node of nodes.values()) {
    const seen = new Set([node.id]);
    for (let s = node.scope; s !== ROOT; s = nodes.get(s)?.scope ?? ROOT) {
      if (seen.has(s)) {
        problems.push({
          path: formatPath(['nodes', node.index, 'parentId']),
          node: node.id,
          message: 'parents form a cycle',
        });
        node.scope = ROOT;
        break;
      }
      seen.add(s);
    }
  }
  // 2b. Replicas multiplied out: a document refused here is never laid out copy by copy.
  const tooMany = instanceProblems(nodes, DOCUMENT_BOUNDS.maxInstances);
  if (tooMany.length > 0) return { ok: false, problems: [...problems, ...tooMany] };

  // Inside a replicated group, the group's `as` name is bound for each copy (`{{ style }}` in
  // each artist of a group replicated over styles): a template variable, not an input port.
  for (const node of nodes.values()) {
    const bound = new Set(replications(nodes, node).map((r) => r.as));
    bound.delete(node.replicate?.as ?? '');
    if (bound.size === 0) continue;
    node.ports = {
      ...node.ports,
      inputs: node.ports.inputs.filter((p) => !(p.required && bound.has(p.name))),
    };
  }
  const children = new Map<string, string[]>([[ROOT, []]]);
  for (const node of nodes.values()) if (node.container) children.set(node.id, []);
  for (const node of nodes.values()) children.get(node.scope)?.push(node.id);

  // 3. Edges, ports and modalities.
  const ids = new Set(doc.nodes.map((n) => n.id));
  doc.edges.forEach((edge, edgeIndex) => {
    const at = (field: string) => formatPath(['edges', edgeIndex, field]);
    const source = nodes.get(edge.source);
    const target = nodes.get(edge.target);
    const sourceExists = ids.has(edge.source);
    const targetExists = ids.has(edge.target);
    if (!sourceExists)
      problems.push({
        path: at('source'),
        message: `edge "${edge.id}" starts at node "${edge.source}", which does not exist`,
      });
    if (!targetExists)
      problems.push({
        path: at('target'),
        message: `edge "${edge.id}" ends at node "${edge.target}", which does not exist`,
      });
    if (!source || !target) return;
    const out = source.ports.outputs.find((p) => p.name === edge.sourceHandle);
    const inp = target.ports.inputs.find((p) => p.name === edge.targetHandle);
    if (!out) {
      problems.push({
        path: at('sourceHandle'),
        node: source.id,
        message: `${source.type} "${source.id}" has no output "${edge.sourceHandle}" (outputs: ${names(source.ports.outputs)})`,
      });
    }
    if (!inp) {
      problems.push({
        path: at('targetHandle'),
        node: target.id,
        message: `${target.type} "${target.id}" has no input "${edge.targetHandle}" (inputs: ${names(target.ports.inputs)})`,
      });
    }
    if (!out || !inp) return;
    const previousRound = edge.data?.previousRound === true;
    if (previousRound) {
      const loop = innermostLoop(nodes, source.id);
      if (!loop || loop !== innermostLoop(nodes, target.id)) {
        problems.push({
          path: formatPath(['edges', edgeIndex, 'data', 'previousRound']),
          message: `edge "${edge.id}": previousRound needs both ends inside the same ${containers.loops}`,
        });
        return;
      }
    }
    const { modality, collectLoop } = deliveredModality(
      nodes,
      source,
      target,
      out.modality,
      edge.data?.collect ?? 'last',
    );
    const fits =
      modalityFits(modality, inp.modality) ||
      (inp.multiple === true && modalityFits(modality, listOf(inp.modality)));
    if (!fits) {
      problems.push({
        path: formatPath(['edges', edgeIndex]),
        node: target.id,
        message: `modality mismatch: ${source.id}.${out.name} gives ${modality} but ${target.id}.${inp.name} takes ${inp.multiple ? `${inp.modality} (or a list of it)` : inp.modality}`,
      });
      // The edge is still bound below: the port is connected, only with the wrong kind of
      // value, and saying it is "not connected" as well would send the user looking elsewhere.
    }
    const binding: InputBinding = {
      edge,
      edgeIndex,
      source: source.id,
      sourcePort: out.name,
      modality,
      previousRound,
      collect: edge.data?.collect ?? 'last',
      collectLoop,
    };
    // Appended in place: a copy per edge would make a wide fan-in quadratic.
    const bound = target.inputs[inp.name] ?? [];
    target.inputs[inp.name] = bound;
    bound.push(binding);
    source.outgoing.push(edge);
  });

  // 4. Required inputs and single-edge ports.
  for (const node of nodes.values()) {
    for (const port of node.ports.inputs) {
      const bound = node.inputs[port.name] ?? [];
      if (port.required && bound.length === 0) {
        problems.push({
          path: formatPath(['nodes', node.index]),
          node: node.id,
          message: `required input "${port.name}" (${port.modality}) is not connected`,
        });
      }
      if (!port.multiple && bound.length > 1) {
        problems.push({
          path: formatPath(['nodes', node.index]),
          node: node.id,
          message: `input "${port.name}" takes one edge but has ${bound.length} (${bound.map((b) => b.edge.id).join(', ')})`,
        });
      }
    }
  }

  // 5. Model profiles.
  const profiles = doc.models ?? {};
  const render = documentRenderer();
  for (const node of nodes.values()) {
    for (const name of node.spec.models?.(node.data) ?? []) {
      for (const resolved of expandTemplated(name, node, nodes, render, params)) {
        if (!Object.hasOwn(profiles, resolved)) {
          const knownProfiles = Object.keys(profiles);
          problems.push({
            path: formatPath(['nodes', node.index, 'data', 'model']),
            node: node.id,
            message: `model profile "${resolved}" is not defined in "models"${knownProfiles.length ? ` (defined: ${knownProfiles.join(', ')})` : ''}`,
          });
        }
      }
    }
  }

  // 6. What each node type checks of its place in the graph (a loop's members, a leader…),
  // and stage order inside loops.
  const view = graphView(nodes, children);
  for (const node of nodes.values()) {
    if (!node.spec.checkGraph) continue;
    const self = view.node(node.id)!;
    for (const p of node.spec.checkGraph(self, view)) {
      problems.push({
        path: formatPath(['nodes', node.index, ...p.path]),
        node: node.id,
        message: p.message,
      });
    }
  }
  const order: Record<Stage, number> = { init: 0, round: 1, gather: 2, decide: 3 };
  for (const node of nodes.values()) {
    if (nodes.get(node.scope)?.container !== 'loop') continue;
    for (const bindings of Object.values(node.inputs)) {
      for (const b of bindings) {
        const src = nodes.get(topInScope(nodes, b.source, node.scope) ?? '');
        if (src && src.scope === node.scope && order[src.stage] > order[node.stage]) {
          problems.push({
            path: formatPath(['edges', b.edgeIndex]),
            node: node.id,
            message: `"${node.id}" (stage ${node.stage}) cannot read "${src.id}" (stage ${src.stage}), which runs later`,
          });
        }
      }
    }
  }

  // 7. Cycles, scope by scope.
  if (problems.length === 0) problems.push(...findCycles(nodes, children, containers.loops));

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, plan: { doc, params, nodes, children } };
}

/** How messages name containers: by the titles of the registry's container types. */
function containerNames(registry: NodeRegistry): { containers: string; loops: string } {
  const titles = (kind?: 'loop') =>
    [...registry.specs.values()]
      // A node standing for a library graph takes its members from that graph, never a parentId.
      .filter((s) => !s.subgraph && (kind ? s.container === kind : s.container))
      .map((s) => s.title.toLowerCase())
      .join(' or ');
  return { containers: titles() || 'container', loops: titles('loop') || 'loop' };
}

/** The plan as node types' graph checks see it. */
function graphView(nodes: Map<string, PlannedNode>, children: Map<string, string[]>): GraphView {
  const views = new Map<string, GraphNodeView>();
  for (const n of nodes.values()) {
    views.set(n.id, {
      id: n.id,
      type: n.type,
      data: n.data,
      ...(n.scope === ROOT ? {} : { parent: n.scope }),
      stage: n.stage,
      replicated: n.replicate !== undefined,
    });
  }
  return {
    node: (id) => views.get(id),
    children: (id) => (children.get(id) ?? []).map((c) => views.get(c)!),
  };
}

function names(ports: PortSpec[]): string {
  return ports.length ? ports.map((p) => p.name).join(', ') : 'none';
}

/** Containers from the node outwards (not including the node). */
export function ancestors(nodes: Map<string, PlannedNode>, id: string): string[] {
  const out: string[] = [];
  for (let s = nodes.get(id)?.scope; s && s !== ROOT; s = nodes.get(s)?.scope) out.push(s);
  return out;
}

function innermostLoop(nodes: Map<string, PlannedNode>, id: string): string | undefined {
  return ancestors(nodes, id).find((a) => nodes.get(a)?.container === 'loop');
}

/**
 * The ancestor-or-self of `id` that is a direct child of `scope`, or undefined when `id` is
 * not inside `scope`.
 */
export function topInScope(
  nodes: Map<string, PlannedNode>,
  id: string,
  scope: string,
): string | undefined {
  let current: string | undefined = id;
  while (current) {
    const node = nodes.get(current);
    if (!node) return undefined;
    if (node.scope === scope) return current;
    if (node.scope === ROOT) return undefined;
    current = node.scope;
  }
  return undefined;
}

/**
 * What a consumer receives from a source port: each replicated container (or the node itself)
 * between the source and the consumer's common ancestor turns the value into a list, and so
 * does `collect: all` on an edge leaving a mindstorm.
 */
function deliveredModality(
  nodes: Map<string, PlannedNode>,
  source: PlannedNode,
  target: PlannedNode,
  modality: Modality,
  collect: 'last' | 'all',
): { modality: Modality; collectLoop?: string } {
  const targetAncestors = new Set([target.id, ...ancestors(nodes, target.id)]);
  let result = modality;
  let collectLoop: string | undefined;
  for (const id of [source.id, ...ancestors(nodes, source.id)]) {
    if (targetAncestors.has(id)) break;
    const node = nodes.get(id)!;
    if (node.container === 'loop' && collect === 'all' && !collectLoop) {
      result = listOf(result);
      collectLoop = id;
    }
    if (node.replicate) result = listOf(result);
  }
  return { modality: result, collectLoop };
}

/** The replications that apply to a node: its enclosing groups' (outermost first), then its own. */
function replications(
  nodes: Map<string, PlannedNode>,
  node: PlannedNode,
): Array<{ items: unknown[]; as: string }> {
  const out = ancestors(nodes, node.id)
    .reverse()
    .flatMap((a) => nodes.get(a)?.replicate ?? []);
  return node.replicate ? [...out, node.replicate] : out;
}

/**
 * The model profile names a node can call, its `models` hook's templated names expanded over
 * every copy a replicated node or group makes (for the run's preflight of keys).
 */
export function nodeModelProfiles(plan: GraphPlan, node: PlannedNode): string[] {
  const render = documentRenderer();
  return [
    ...new Set(
      (node.spec.models?.(node.data) ?? []).flatMap((name) =>
        expandTemplated(name, node, plan.nodes, render, plan.params),
      ),
    ),
  ];
}

/**
 * Model names may be templates over replicated items (`{{ profile }}`), the node's own or an
 * enclosing group's: expand them over every combination a copy can see.
 */
function expandTemplated(
  name: string,
  node: PlannedNode,
  nodes: Map<string, PlannedNode>,
  render: ReturnType<typeof documentRenderer>,
  params: Readonly<Record<string, ParamValue>>,
): string[] {
  if (!name.includes('{{')) return [name];
  let scopes: Array<Record<string, unknown>> = [withParamVars({}, params)];
  for (const { items, as } of replications(nodes, node)) {
    scopes = scopes.flatMap((vars) =>
      items.map((item, index) => ({
        ...vars,
        [as]: item,
        replica: { index, count: items.length },
      })),
    );
  }
  const out = new Set<string>();
  for (const vars of scopes) {
    // A render the reading's time allowance cut short (a loaded machine, a slow template) or
    // that failed proves nothing about the name: leave it to the call, which resolves it for real.
    const resolved = render(name, vars)?.trim();
    if (resolved !== undefined) out.add(resolved);
  }
  return [...out];
}

/**
 * Within each scope, the dependencies among its direct children must be acyclic once edges
 * marked previousRound are set aside; anything else would wait forever.
 */
function findCycles(
  nodes: Map<string, PlannedNode>,
  children: Map<string, string[]>,
  loopNames: string,
): Problem[] {
  const problems: Problem[] = [];
  for (const [scope, members] of children) {
    const deps = scopeDependencies(nodes, scope, members);
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (id: string): boolean => {
      if (state.get(id) === 'done') return false;
      if (state.get(id) === 'visiting') {
        const cycle = [...stack.slice(stack.indexOf(id)), id];
        const loop = nodes.get(scope);
        problems.push({
          path: formatPath(['nodes', nodes.get(id)!.index]),
          node: id,
          message:
            loop?.container === 'loop'
              ? `cycle ${cycle.join(' → ')} inside ${loop.spec.title.toLowerCase()} "${scope}": mark one of its edges "previousRound" so it reads the last round's value`
              : `cycle ${cycle.join(' → ')}: cycles are allowed only inside a ${loopNames}, through an edge marked "previousRound"`,
        });
        return true;
      }
      state.set(id, 'visiting');
      stack.push(id);
      for (const dep of deps.get(id) ?? []) if (visit(dep)) return true;
      stack.pop();
      state.set(id, 'done');
      return false;
    };
    for (const id of members) if (visit(id)) break;
  }
  return problems;
}

/**
 * For each direct child of a scope, the siblings it must wait for: every same-round edge into
 * it or its members whose source lies in the same scope. In a loop, stages order the work,
 * so only same-stage siblings count.
 */
export function scopeDependencies(
  nodes: Map<string, PlannedNode>,
  scope: string,
  members: string[],
): Map<string, Set<string>> {
  const deps = new Map<string, Set<string>>();
  const isLoop = nodes.get(scope)?.container === 'loop';
  for (const id of members) {
    const set = new Set<string>();
    for (const inner of [id, ...(nodes.get(id)!.container ? descendants(nodes, id) : [])]) {
      for (const bindings of Object.values(nodes.get(inner)!.inputs)) {
        for (const b of bindings) {
          if (b.previousRound) continue;
          const top = topInScope(nodes, b.source, scope);
          if (!top || top === id) continue;
          if (isLoop && nodes.get(top)!.stage !== nodes.get(id)!.stage) continue;
          set.add(top);
        }
      }
    }
    deps.set(id, set);
  }
  return deps;
}

export function descendants(nodes: Map<string, PlannedNode>, id: string): string[] {
  const out: string[] = [];
  for (const node of nodes.values()) if (ancestors(nodes, node.id).includes(id)) out.push(node.id);
  return out;
}
