/** validate → bind parameters → plan → XState machines. */
import { loadNodeRegistry, type NodeRegistry } from '../node-sdk/registry.ts';
import type { GraphDocument } from '../schema/document.ts';
import { bindParams, type ParamValue, resolveParams } from '../schema/params.ts';
import { parseDocument } from '../schema/parse.ts';
import type { Problem } from '../schema/problems.ts';
import { analyzeGraph, type GraphPlan } from './analyze.ts';
import { expandSubgraphs, libraryPorts, referenceCycles } from './expand.ts';
import { buildMachines, type MachineSet } from './machine.ts';
import { chatMappingProblems } from './serve-check.ts';
import { graphToolDocument, toolGraphProblems } from './tool-graphs.ts';
import { wireTools } from './wired-tools.ts';

export * from './analyze.ts';
export * from './machine.ts';

export interface CompiledGraph {
  /**
   * The document as bound: every `{ "$param": NAME }` replaced by the parameter's value, its
   * library kept. The plan's `doc` is the one analysed, its sub-societies laid out in place.
   */
  doc: GraphDocument;
  /**
   * The document as written, its parameter references kept; `doc` itself when it has none.
   * What is saved (and, with the values used, what a run records: app/runs/record.ts).
   */
  source: GraphDocument;
  /** The value each declared parameter took: its default, or what was set. */
  params: Record<string, ParamValue>;
  plan: GraphPlan;
  machines: MachineSet;
}

export type CompileResult = ({ ok: true } & CompiledGraph) | { ok: false; problems: Problem[] };

export interface CompileOptions {
  /**
   * Parameter values by name (`society run --set`, the studio's Inputs panel): typed, or text
   * read by the parameter's type. Unset parameters take their defaults; an unknown name or a
   * value a parameter does not take is a problem at `params.NAME`.
   */
  params?: Readonly<Record<string, unknown>>;
}

/**
 * Parses (JSON text or a value), validates, binds the parameters and compiles a document, so
 * every consumer (runs, estimates, inspect, the gallery) sees the bound graph. Never throws on
 * bad input.
 */
export async function compileGraph(
  input: string | unknown,
  registry?: NodeRegistry,
  options: CompileOptions = {},
): Promise<CompileResult> {
  const nodes = registry ?? (await loadNodeRegistry());
  const parsed = parseDocument(input, { nodes });
  if (!parsed.ok) return parsed;
  const values = resolveParams(parsed.doc.params, options.params);
  if (!values.ok) return values;
  const bound = bindParams(parsed.doc, values.values);
  if (!bound.ok) return bound;
  // Sub-societies are laid out in place first, so the plan, the estimate, the debugger and the
  // record all see into them; a library that contains itself never is.
  const cycles = referenceCycles(bound.doc, nodes);
  if (cycles.length > 0) return { ok: false, problems: cycles };
  // Nodes wired into tool ports become library graphs offered as tools, before anything else
  // reads the library: the plan runs `wired.doc`, the document keeps its wires.
  const wired = wireTools(bound.doc, nodes);
  if (wired.problems.length > 0) return { ok: false, problems: wired.problems };
  const toolGraphs = toolGraphProblems(wired.doc, nodes).map(wired.locate);
  if (toolGraphs.length > 0) return { ok: false, problems: toolGraphs };
  const expansion = expandSubgraphs(wired.doc, nodes);
  if (!expansion.complete) return { ok: false, problems: expansion.problems.map(wired.locate) };
  const analysis = analyzeGraph(expansion.doc, nodes, values.values, {
    ports: libraryPorts(wired.doc, nodes),
    laidOut: expansion.containers,
  });
  const problems = [
    ...expansion.problems,
    ...(analysis.ok ? [] : expansion.locate(analysis.problems)),
  ].map(wired.locate);
  if (problems.length > 0 || !analysis.ok) return { ok: false, problems };
  const tools = await toolPlans(analysis.plan, wired.doc, nodes);
  // An offered node its graph cannot run (its data, its own ports) is the document's problem.
  const offered = [...wired.graphs].flatMap(
    ([name, at]) =>
      tools.failed.get(name)?.map((p) => ({
        path: at.where,
        node: at.node,
        message: `offered as a tool, it cannot run: ${p.message}`,
      })) ?? [],
  );
  if (offered.length > 0) return { ok: false, problems: offered };
  const chat = chatMappingProblems(bound.doc, analysis.plan);
  if (chat.length > 0) return { ok: false, problems: chat };
  const plan: GraphPlan = {
    ...analysis.plan,
    toolPlans: tools.plans,
    ...(wired.graphs.size > 0 ? { toolDoc: wired.doc } : {}),
  };
  return {
    ok: true,
    doc: bound.doc,
    source: parsed.doc,
    params: values.values,
    plan,
    machines: buildMachines(plan),
  };
}

/**
 * The plans of the library graphs the plan's nodes offer as tools, each compiled as the document
 * a call runs (`graphToolDocument`), for the estimate. A graph offered inside itself is refused
 * before this (`toolGraphProblems`), so the recursion ends; one that does not compile on its own
 * is left out (a call to it fails the run, naming why), its problems kept in `failed`.
 */
async function toolPlans(
  plan: GraphPlan,
  doc: GraphDocument,
  nodes: NodeRegistry,
): Promise<{ plans: Map<string, GraphPlan>; failed: Map<string, Problem[]> }> {
  const names = new Set<string>();
  for (const node of plan.nodes.values()) {
    for (const ref of node.spec.toolSources?.(node.data as never) ?? []) {
      if (ref.kind === 'graph' && Object.hasOwn(doc.graphs ?? {}, ref.graph)) names.add(ref.graph);
    }
  }
  const plans = new Map<string, GraphPlan>();
  const failed = new Map<string, Problem[]>();
  for (const name of names) {
    const compiled = await compileGraph(graphToolDocument(doc, name), nodes);
    if (compiled.ok) plans.set(name, compiled.plan);
    else failed.set(name, compiled.problems);
  }
  return { plans, failed };
}
