/** validate → plan → XState machines. */
import { loadNodeRegistry, type NodeRegistry } from '../node-sdk/registry.ts';
import type { GraphDocument } from '../schema/document.ts';
import { parseDocument } from '../schema/parse.ts';
import type { Problem } from '../schema/problems.ts';
import { analyzeGraph, type GraphPlan } from './analyze.ts';
import { buildMachines, type MachineSet } from './machine.ts';

export * from './analyze.ts';
export * from './machine.ts';

export interface CompiledGraph {
  doc: GraphDocument;
  plan: GraphPlan;
  machines: MachineSet;
}

export type CompileResult = ({ ok: true } & CompiledGraph) | { ok: false; problems: Problem[] };

/** Parses (JSON text or a value), validates and compiles a document. Never throws on bad input. */
export async function compileGraph(
  input: string | unknown,
  registry?: NodeRegistry,
): Promise<CompileResult> {
  const nodes = registry ?? (await loadNodeRegistry());
  const parsed = parseDocument(input, { nodes });
  if (!parsed.ok) return parsed;
  const analysis = analyzeGraph(parsed.doc, nodes);
  if (!analysis.ok) return analysis;
  return { ok: true, doc: parsed.doc, plan: analysis.plan, machines: buildMachines(analysis.plan) };
}
