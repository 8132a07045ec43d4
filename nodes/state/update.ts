/**
 * One update of a state node's table: every key's variables through their rules. A task the
 * engine runs (app/node-sdk/compute.ts): at once for the small rules of real societies, on a
 * worker thread within `settings.limits.computeMs` for rule sets that cost more — a thousand
 * keys under rules of two thousand parts is a hundred million steps.
 */
import { defineComputeTask } from '../../app/node-sdk/compute.ts';
import { compileRule, ruleParts } from '../../app/node-sdk/rules.ts';
import type { StateVariable } from './spec.ts';

/** Numbers per variable, per key. */
export type Table = Record<string, Record<string, number>>;

/** What one update reads. */
export interface StateUpdate {
  variables: StateVariable[];
  keys: string[];
  previous: Table;
  facts: Record<string, Record<string, unknown>>;
  step: number;
}

/** The table after one update. */
export const updateState = defineComputeTask({
  module: import.meta.url,
  name: 'updateState',
  run: update,
  steps: ({ variables, keys }: StateUpdate) =>
    Math.max(1, keys.length) * variables.reduce((sum, v) => sum + ruleParts(v.update), 0),
});

function update({ variables, keys, previous, facts, step }: StateUpdate): Table {
  // Each variable's rule is the same for every key: checked once per update.
  const rules = variables.map((v) => (v.update === undefined ? undefined : compileRule(v.update)));
  const state: Table = {};
  for (const key of keys) {
    const prev: Record<string, number> = {};
    for (const variable of variables) {
      prev[variable.name] = previous[key]?.[variable.name] ?? variable.initial;
    }
    const now: Record<string, number> = {};
    for (const [index, variable] of variables.entries()) {
      let value = prev[variable.name]!;
      const rule = rules[index];
      if (rule) {
        const result = rule({ prev, now, facts: facts[key] ?? {}, key, step });
        value = Number(result);
        if (!Number.isFinite(value)) {
          throw new Error(
            `variable "${variable.name}" of "${key}" came out as ${JSON.stringify(result)}, not a number`,
          );
        }
      }
      if (variable.min !== undefined) value = Math.max(variable.min, value);
      if (variable.max !== undefined) value = Math.min(variable.max, value);
      now[variable.name] = Math.round(value * 1e9) / 1e9;
    }
    state[key] = now;
  }
  return state;
}
