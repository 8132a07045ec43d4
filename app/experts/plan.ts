/**
 * Expert plans: which expert models to run, in what order, on which inputs. A plan is a small
 * DAG over catalogue modules. OpenAGI writes linear plans as comma-separated module names
 * ("Image Super Resolution, Image Denoising, Colorization") and non-linear ones as parallel
 * branches that join at a two-input module, then continue linearly (Ge et al., Sec. 3.2 and
 * 5.3): we read that as `(A1, A2)(B1) Join, Tail`.
 *
 * A plan becomes an ordinary graph document (input nodes, expert nodes, an output node), so
 * checking it is compiling it: a broken type chain is a modality mismatch naming both ports.
 */
import type { GraphDocument, GraphEdge, GraphNode } from '../schema/document.ts';
import type { Modality } from '../schema/modality.ts';
import { modalityFits } from '../schema/modality.ts';
import { type CatalogueEntry, catalogueEntry } from './catalogue.ts';
import { matchExpert } from './match.ts';

/** A value the task starts from. */
export interface PlanInput {
  name: string;
  modality: Modality;
  description?: string;
}

/** Where a step's input comes from: a task input (`input:NAME`) or another step's id. */
export type PlanSource = `input:${string}` | string;

export interface PlanStep {
  id: string;
  /** A catalogue id. */
  module: string;
  /** The source of each input port, by port name. */
  inputs: Record<string, PlanSource>;
}

export interface ExpertPlan {
  inputs: PlanInput[];
  steps: PlanStep[];
  /** The step whose first output is the answer. */
  output: string;
  /** The answer's modality (the task's). */
  outputModality: Modality;
}

/** A plan as written: module names in order, with optional parallel branches before a join. */
export interface PlanOutline {
  /** Parallel branches, each a list of module names; empty for a linear plan. */
  branches: string[][];
  /** The modules after the branches (the first one joins them when there are branches). */
  chain: string[];
  /**
   * For each branch, the task input it prepares, when known; otherwise a branch takes the
   * first unused task input its first module fits.
   */
  branchInputs?: Array<string | undefined>;
}

export class PlanSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanSyntaxError';
  }
}

/**
 * Reads OpenAGI's plan text: "A, B, C," (linear) or "(A1, A2,)(B1,) Join, Tail," (parenthesised
 * branches, then the chain, whose first module joins them; a join input no branch feeds takes
 * the task input of its modality). Trailing commas and "Step N:" prefixes are allowed.
 */
export function parsePlanText(text: string): PlanOutline {
  const branches: string[][] = [];
  let rest = text.trim();
  while (rest.startsWith('(')) {
    const close = rest.indexOf(')');
    if (close < 0) throw new PlanSyntaxError(`unclosed "(" in plan "${text}"`);
    const names = splitNames(rest.slice(1, close));
    if (names.length === 0) throw new PlanSyntaxError(`an empty branch in plan "${text}"`);
    branches.push(names);
    rest = rest.slice(close + 1).trim();
  }
  if (rest.includes('(') || rest.includes(')')) {
    throw new PlanSyntaxError(`branches must come first, in parentheses, in plan "${text}"`);
  }
  const chain = splitNames(rest);
  if (branches.length === 0 && chain.length === 0) throw new PlanSyntaxError('the plan is empty');
  if (branches.length > 0 && chain.length === 0) {
    throw new PlanSyntaxError(`parallel branches need a module that joins them: "${text}"`);
  }
  return { branches, chain };
}

function splitNames(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** A module name that could not be mapped to the catalogue. */
export interface UnknownModule {
  name: string;
  position: string;
}

/**
 * Maps an outline's names to catalogue entries (exactly or by similarity, among `allowed` when
 * given) and wires it into a plan over the task's inputs:
 * - a step's first input takes the previous step's output (a branch's first step, or a
 *   linear plan's, takes the task input of its modality, else the first task input);
 * - a join takes one branch per input port, matched by modality in order;
 * - any input port still unwired takes an unused task input of its modality, else any.
 * Wiring never checks modalities: `planProblems` and the compiler do, naming both ends.
 */
export function planFromOutline(
  outline: PlanOutline,
  inputs: PlanInput[],
  outputModality: Modality,
  allowed?: readonly CatalogueEntry[],
): { ok: true; plan: ExpertPlan } | { ok: false; unknown: UnknownModule[] } {
  const unknown: UnknownModule[] = [];
  const resolve = (name: string, position: string): CatalogueEntry | undefined => {
    const match = matchExpert(name, allowed);
    if (!match) unknown.push({ name, position });
    return match?.entry;
  };
  const branchEntries = outline.branches.map((b, i) =>
    b.map((name, j) => resolve(name, `branch ${i + 1}, step ${j + 1}`)),
  );
  const chainEntries = outline.chain.map((name, j) => resolve(name, `step ${j + 1}`));
  if (unknown.length > 0) return { ok: false, unknown };

  const steps: PlanStep[] = [];
  const used = new Set<string>();
  const taken = new Map<string, number>();
  const newId = (entry: CatalogueEntry): string => {
    const base = entry.id.replace(/-/g, '_');
    const n = (taken.get(base) ?? 0) + 1;
    taken.set(base, n);
    return n === 1 ? base : `${base}_${n}`;
  };
  const taskInputFor = (modality: Modality | undefined): string => {
    const fitting = inputs.filter((i) => !modality || modalityFits(i.modality, modality));
    const pick =
      fitting.find((i) => !used.has(i.name)) ??
      fitting[0] ??
      inputs.find((i) => !used.has(i.name)) ??
      inputs[0];
    if (!pick) throw new PlanSyntaxError('the task has no inputs');
    used.add(pick.name);
    return `input:${pick.name}`;
  };
  const add = (entry: CatalogueEntry, wired: Record<string, PlanSource>): PlanStep => {
    const step: PlanStep = { id: newId(entry), module: entry.id, inputs: { ...wired } };
    for (const port of entry.inputs) {
      if (!step.inputs[port.name] && !port.optional)
        step.inputs[port.name] = taskInputFor(port.modality);
    }
    steps.push(step);
    return step;
  };
  const runChain = (entries: CatalogueEntry[], from: PlanSource | undefined): PlanSource => {
    let previous = from;
    for (const entry of entries) {
      const first = entry.inputs[0]!;
      const wired = previous
        ? { [first.name]: previous }
        : { [first.name]: taskInputFor(first.modality) };
      previous = add(entry, wired).id;
    }
    return previous!;
  };

  // Branches that name their input claim it first, so the others do not take it.
  for (const name of outline.branchInputs ?? []) if (name) used.add(name);
  const ends = branchEntries.map((b, i) => {
    const named = outline.branchInputs?.[i];
    return {
      source: runChain(b as CatalogueEntry[], named ? `input:${named}` : undefined),
      modality: outputOf(b.at(-1)!),
      input: named,
    };
  });
  let last: PlanSource | undefined;
  let tail = chainEntries as CatalogueEntry[];
  if (ends.length > 0) {
    const join = tail[0]!;
    const wired: Record<string, PlanSource> = {};
    const pending = [...ends];
    // Each branch goes to the first port it fits; a port no branch fits takes the task input
    // of its modality (in `add`). A branch that fits no port still goes to a free one, so the
    // mismatch is reported with both ends named rather than the branch silently dropped.
    // A branch that prepared the input a port is named after goes there first.
    for (const port of join.inputs) {
      const index = pending.findIndex(
        (e) => e.input === port.name && modalityFits(e.modality, port.modality),
      );
      if (index >= 0) wired[port.name] = pending.splice(index, 1)[0]!.source;
    }
    for (const port of join.inputs) {
      if (wired[port.name]) continue;
      const index = pending.findIndex((e) => modalityFits(e.modality, port.modality));
      if (index >= 0) wired[port.name] = pending.splice(index, 1)[0]!.source;
    }
    for (const port of join.inputs) {
      if (!wired[port.name] && pending.length > 0) wired[port.name] = pending.shift()!.source;
    }
    last = add(join, wired).id;
    tail = tail.slice(1);
  }
  last = runChain(tail, last);
  return { ok: true, plan: { inputs, steps, output: last, outputModality } };
}

function outputOf(entry: CatalogueEntry): Modality {
  return entry.outputs[0]!.modality;
}

/**
 * What is wrong with a plan's types, each naming both ends ("image-denoising.image takes image
 * but machine_translation.text gives text"). Empty for a well-typed plan. The compiler says the
 * same of the plan's graph; this is the quick check planners use between attempts.
 */
export function planProblems(plan: ExpertPlan): string[] {
  const problems: string[] = [];
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const inputs = new Map(plan.inputs.map((i) => [i.name, i]));
  const modalityOf = (source: PlanSource): { label: string; modality: Modality } | undefined => {
    if (source.startsWith('input:')) {
      const input = inputs.get(source.slice(6));
      return input && { label: `input ${input.name}`, modality: input.modality };
    }
    const step = byId.get(source);
    const entry = step && catalogueEntry(step.module);
    return entry && { label: `${step.id}.${entry.outputs[0]!.name}`, modality: outputOf(entry) };
  };
  for (const step of plan.steps) {
    const entry = catalogueEntry(step.module);
    if (!entry) {
      problems.push(`${step.id}: unknown module "${step.module}"`);
      continue;
    }
    for (const port of entry.inputs) {
      const source = step.inputs[port.name];
      if (!source) {
        if (!port.optional)
          problems.push(`${step.id}.${port.name} (${port.modality}) has no input`);
        continue;
      }
      const from = modalityOf(source);
      if (!from) problems.push(`${step.id}.${port.name}: unknown source "${source}"`);
      else if (!modalityFits(from.modality, port.modality)) {
        problems.push(
          `type mismatch: ${from.label} gives ${from.modality} but ${step.id}.${port.name} takes ${port.modality}`,
        );
      }
    }
  }
  const last = byId.get(plan.output);
  const lastEntry = last && catalogueEntry(last.module);
  if (!last || !lastEntry)
    problems.push(`the plan's output "${plan.output}" is not one of its steps`);
  else if (!modalityFits(outputOf(lastEntry), plan.outputModality)) {
    problems.push(
      `type mismatch: ${last.id}.${lastEntry.outputs[0]!.name} gives ${outputOf(lastEntry)} but the task's output takes ${plan.outputModality}`,
    );
  }
  const used = new Set(plan.steps.flatMap((s) => Object.values(s.inputs)));
  for (const step of plan.steps) {
    if (step.id !== plan.output && !used.has(step.id))
      problems.push(`${step.id}'s output is never used`);
  }
  const unusedInputs = plan.inputs.filter(
    (i) => !plan.steps.some((s) => Object.values(s.inputs).includes(`input:${i.name}`)),
  );
  for (const input of unusedInputs) problems.push(`the task input ${input.name} is never used`);
  return problems;
}

/** Writes a plan as OpenAGI-style text: "(A, B)(C) Join, Tail" or "A, B, C". */
export function planText(plan: ExpertPlan): string {
  const title = (id: string) => catalogueEntry(id)?.title ?? id;
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const chainTo = (id: string): string[] => {
    const chain: string[] = [];
    let step = byId.get(id);
    while (step) {
      chain.unshift(step.id);
      const sources = Object.values(step.inputs).filter((s) => !s.startsWith('input:'));
      if (sources.length !== 1) break;
      step = byId.get(sources[0]!);
    }
    return chain;
  };
  const mainChain = chainTo(plan.output);
  const head = byId.get(mainChain[0]!);
  const branchSources = head
    ? Object.values(head.inputs).filter((s) => !s.startsWith('input:'))
    : [];
  if (branchSources.length < 2)
    return mainChain.map((id) => title(byId.get(id)!.module)).join(', ');
  const branches = branchSources.map(
    (s) =>
      `(${chainTo(s)
        .map((id) => title(byId.get(id)!.module))
        .join(', ')})`,
  );
  return `${branches.join('')} ${mainChain.map((id) => title(byId.get(id)!.module)).join(', ')}`;
}

/** The id of the input node that carries a task input in a plan's graph. */
export function inputNodeId(name: string): string {
  return `in_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Options for turning a plan into a document. */
export interface PlanDocumentOptions {
  name: string;
  description?: string;
  /** Expert node data shared by every step (backend, provider, parameters…). */
  expert?: Record<string, unknown>;
}

/**
 * The plan as a graph document: an input node per task input, an expert node per step, and an
 * output node `answer`, laid out left to right by depth.
 */
export function planToDocument(plan: ExpertPlan, options: PlanDocumentOptions): GraphDocument {
  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  const depth = new Map<string, number>();
  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const depthOf = (source: PlanSource): number => {
    if (source.startsWith('input:')) return 0;
    const known = depth.get(source);
    if (known !== undefined) return known;
    const step = byId.get(source);
    const d = step ? 1 + Math.max(0, ...Object.values(step.inputs).map(depthOf)) : 1;
    depth.set(source, d);
    return d;
  };
  const rows = new Map<number, number>();
  const place = (d: number) => {
    const row = rows.get(d) ?? 0;
    rows.set(d, row + 1);
    return { x: d * 300, y: row * 170 };
  };
  for (const input of plan.inputs) {
    nodes.push({
      id: inputNodeId(input.name),
      type: 'input',
      position: place(0),
      data: {
        name: input.name,
        modality: input.modality,
        ...(input.description ? { description: input.description } : {}),
      },
    });
  }
  const sourceRef = (source: PlanSource): { node: string; port: string } => {
    if (source.startsWith('input:')) return { node: inputNodeId(source.slice(6)), port: 'value' };
    const step = byId.get(source);
    const entry = step && catalogueEntry(step.module);
    return { node: source, port: entry?.outputs[0]?.name ?? 'text' };
  };
  let maxDepth = 0;
  for (const step of plan.steps) {
    const d = depthOf(step.id);
    maxDepth = Math.max(maxDepth, d);
    nodes.push({
      id: step.id,
      type: 'expert',
      position: place(d),
      data: { ...options.expert, module: step.module },
    });
    for (const [port, source] of Object.entries(step.inputs)) {
      const from = sourceRef(source);
      edges.push({
        id: `e_${from.node}_${step.id}_${port}`,
        source: from.node,
        sourceHandle: from.port,
        target: step.id,
        targetHandle: port,
      });
    }
  }
  nodes.push({
    id: 'answer',
    type: 'output',
    position: place(maxDepth + 1),
    data: { name: 'answer' },
  });
  const last = sourceRef(plan.output);
  edges.push({
    id: `e_${last.node}_answer`,
    source: last.node,
    sourceHandle: last.port,
    target: 'answer',
    targetHandle: 'value',
  });
  return {
    version: 1,
    name: options.name,
    ...(options.description ? { description: options.description } : {}),
    nodes,
    edges,
  };
}
