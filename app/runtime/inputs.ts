/**
 * What reaches a node: each input port's value read from its scope (this round's, the previous
 * round's, every round's, gathered from replicas), and the run's own inputs and outputs.
 */
import type { GraphPlan, InputBinding, PlannedNode } from '../compiler/analyze.ts';
import { isNotTaken } from '../node-sdk/define.ts';
import { isBlobValue, isImageValue } from '../schema/blob-refs.ts';
import { parseModality } from '../schema/modality.ts';
import { type NodeValues, roundsPort, type ScopeContext } from './machine-runtime.ts';

/** The run inputs that have neither a value in `given` nor a default, in node order. */
export function missingRunInputs(plan: GraphPlan, given: Record<string, unknown>): string[] {
  const missing: string[] = [];
  for (const node of plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (input && !Object.hasOwn(given, input.name) && input.default === undefined)
      missing.push(input.name);
  }
  return missing;
}

/**
 * Refuses a run before it starts when a run input has neither a value nor a default, or a
 * file input was given text.
 */
export function checkRunInputs(plan: GraphPlan, given: Record<string, unknown>): void {
  const missing = missingRunInputs(plan, given);
  for (const node of plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (!input) continue;
    const { name, modality } = input;
    const value = given[name];
    if (value !== undefined && modality === 'image' && !isImageValue(value)) {
      throw new Error(`input "${name}" is an image: pass a file, e.g. --input ${name}=@photo.png`);
    }
    const binary = modality === 'audio' || modality === 'asset3d';
    if (value !== undefined && binary && !isBlobValue(value)) {
      throw new Error(
        `input "${name}" is ${modality === 'audio' ? 'a recording' : 'a 3D asset'}: pass a file, e.g. --input ${name}=@file`,
      );
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `missing input${missing.length > 1 ? 's' : ''}: ${missing.map((m) => `${m} (pass --input ${m}=...)`).join(', ')}`,
    );
  }
}

/** The run's outputs by name, from its output nodes' values. */
export function collectRunOutputs(
  plan: GraphPlan,
  values: Record<string, NodeValues>,
): Record<string, unknown> {
  const outputs: Record<string, unknown> = {};
  for (const node of plan.nodes.values()) {
    const output = node.spec.runOutput?.(node.data);
    // An output node on a branch not taken gives no output; the run still succeeds.
    if (
      output &&
      values[node.id] &&
      'value' in values[node.id]! &&
      !isNotTaken(values[node.id]!.value)
    ) {
      outputs[output.name] = values[node.id]!.value;
    }
  }
  return outputs;
}

/** Why a node is skipped: the first input it reads that was not taken, and its reason. */
export interface SkipCause {
  /** `source.port` of that input. */
  from: string;
  reason: string;
}

/**
 * Whether a node is skipped, by the rule its spec declares (`NodeSpec.inputs`): with `all`
 * (the default) when any edge it reads brings an output not taken, with `any` when every one
 * does. A node that reads nothing is never skipped.
 */
export function skipCause(node: PlannedNode, context: ScopeContext): SkipCause | undefined {
  let cause: SkipCause | undefined;
  let arrived = 0;
  for (const port of node.ports.inputs) {
    for (const b of node.inputs[port.name] ?? []) {
      const { value } = bindingValue(b, context);
      if (isNotTaken(value))
        cause ??= { from: `${b.source}.${b.sourcePort}`, reason: value.$notTaken };
      else arrived++;
    }
  }
  if (!cause) return undefined;
  return (node.spec.inputs ?? 'all') === 'all' || arrived === 0 ? cause : undefined;
}

/**
 * Reads each input port's value from the scope: same-round, previous-round or gathered. An
 * output not taken arrives as nothing: the port is absent, or left out of a multiple port's list.
 */
export function resolveInputs(node: PlannedNode, context: ScopeContext) {
  const inputs: Record<string, unknown> = {};
  const senders: Record<string, string[]> = {};
  for (const port of node.ports.inputs) {
    const bindings = node.inputs[port.name] ?? [];
    if (bindings.length === 0) continue;
    if (!port.multiple) {
      const { value } = bindingValue(bindings[0]!, context);
      if (!isNotTaken(value)) inputs[port.name] = asPortValue(value, port.modality);
      continue;
    }
    const list: unknown[] = [];
    const from: string[] = [];
    const portIsList = parseModality(port.modality)?.kind === 'list';
    for (const b of bindings) {
      const { value, senders: who } = bindingValue(b, context);
      if (value === undefined || isNotTaken(value)) continue;
      const flatten =
        parseModality(b.modality)?.kind === 'list' && !portIsList && Array.isArray(value);
      if (flatten) {
        (value as unknown[]).forEach((v, i) => {
          list.push(v);
          from.push(who[i] ?? `${b.source}#${i}`);
        });
      } else {
        list.push(value);
        from.push(who[0] ?? b.source);
      }
    }
    inputs[port.name] = list.map((v) => asPortValue(v, port.modality));
    senders[port.name] = from;
  }
  return { inputs, senders };
}

/** One edge's value in a scope, and who sent it. */
function bindingValue(
  b: InputBinding,
  context: ScopeContext,
): { value: unknown; senders: string[] } {
  if (b.previousRound) {
    const loop = context.loop!;
    const state = context.loops[loop.id]!;
    const previous = state.history[state.round - 2]?.[b.source];
    if (previous && b.sourcePort in previous) {
      return { value: previous[b.sourcePort], senders: previous.$instances as string[] };
    }
    return { value: b.edge.data?.initial, senders: [] };
  }
  if (b.collectLoop) {
    const rounds = (context.values[b.source]?.[roundsPort(b.sourcePort)] ?? []) as unknown[];
    return { value: rounds, senders: rounds.map((_, i) => `${b.source}@r${i + 1}`) };
  }
  const values = context.values[b.source];
  return {
    value: values?.[b.sourcePort],
    senders: (values?.$instances as string[] | undefined) ?? [],
  };
}

/**
 * A value as a port of this modality takes it: a label (`{ label, score }`) arriving at a text
 * port, or labels at a list of texts, become their class names, as the modality rules promise.
 */
function asPortValue(value: unknown, modality: string): unknown {
  const isLabel = (v: unknown): v is { label: string } =>
    typeof v === 'object' && v !== null && typeof (v as { label?: unknown }).label === 'string';
  if (modality === 'text' && isLabel(value)) return value.label;
  if (modality === 'list<text>' && Array.isArray(value))
    return value.map((v) => (isLabel(v) ? v.label : v));
  return value;
}
