/**
 * What reaches a node: each input port's value read from its scope (this round's, the previous
 * round's, every round's, gathered from replicas), and the run's own inputs and outputs.
 */
import type { GraphPlan, InputBinding, PlannedNode } from '../compiler/analyze.ts';
import { isBlobValue, isImageValue } from '../schema/blob-refs.ts';
import { parseModality } from '../schema/modality.ts';
import { type NodeValues, roundsPort, type ScopeContext } from './machine-runtime.ts';

/**
 * Refuses a run before it starts when a run input has neither a value nor a default, or a
 * file input was given text.
 */
export function checkRunInputs(plan: GraphPlan, given: Record<string, unknown>): void {
  const missing: string[] = [];
  for (const node of plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (!input) continue;
    const { name, modality } = input;
    if (!Object.hasOwn(given, name) && input.default === undefined) missing.push(name);
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
    if (output && values[node.id] && 'value' in values[node.id]!) {
      outputs[output.name] = values[node.id]!.value;
    }
  }
  return outputs;
}

/** Reads each input port's value from the scope: same-round, previous-round or gathered. */
export function resolveInputs(node: PlannedNode, context: ScopeContext) {
  const inputs: Record<string, unknown> = {};
  const senders: Record<string, string[]> = {};
  for (const port of node.ports.inputs) {
    const bindings = node.inputs[port.name] ?? [];
    if (bindings.length === 0) continue;
    if (!port.multiple) {
      inputs[port.name] = asPortValue(bindingValue(bindings[0]!, context).value, port.modality);
      continue;
    }
    const list: unknown[] = [];
    const from: string[] = [];
    const portIsList = parseModality(port.modality)?.kind === 'list';
    for (const b of bindings) {
      const { value, senders: who } = bindingValue(b, context);
      if (value === undefined) continue;
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
