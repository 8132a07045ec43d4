/**
 * What a run takes from outside, by name, as the node types declare it (`runInput` and
 * `answers` on their specs): the command line's `--input` and the API's run values are both
 * read against it, so neither names a node type.
 */

import type { Modality } from '../schema/modality.ts';
import type { NodeSpec } from './define.ts';

/** A run's named values, each kind in the order of the nodes that declare them. */
export interface RunFields {
  /** Run inputs by name, with the modality their value must have. */
  inputs: Map<string, { modality: Modality }>;
  /** Answers given once, by name (a human node's). */
  answers: Set<string>;
  /** Answers given once per step as `<name>@t<STEP>` (a dispatcher's seats). */
  perStep: Set<string>;
}

/** Reads the run's named values from nodes whose data is parsed (a compiled plan's). */
export function runFields(nodes: Iterable<{ spec: NodeSpec<unknown>; data: unknown }>): RunFields {
  const fields: RunFields = { inputs: new Map(), answers: new Set(), perStep: new Set() };
  for (const node of nodes) {
    const input = node.spec.runInput?.(node.data);
    if (input) fields.inputs.set(input.name, { modality: input.modality });
    for (const answer of node.spec.answers?.(node.data) ?? [])
      (answer.perStep ? fields.perStep : fields.answers).add(answer.name);
  }
  return fields;
}

/**
 * True when `name` is a per-step answer this run takes: `agent1@t3` for the seat `agent1`, or
 * `scene@r2` (`scene@r2.3` in a nested loop) for a person asked every round of a loop.
 */
export function isPerStepAnswer(fields: RunFields, name: string): boolean {
  const step = /^(.+)@t\d+$/.exec(name);
  if (step) return fields.perStep.has(step[1]!);
  const round = /^(.+)@r\d+(?:\.\w+)*$/.exec(name);
  return round !== null && fields.answers.has(round[1]!);
}
