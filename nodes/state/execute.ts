import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { StateData } from './spec.ts';
import { type Table, updateState } from './update.ts';

export const execute: NodeExecutor<StateData> = async (ctx) => {
  const data = ctx.data;
  const previous = asTable(ctx.inputs.previous);
  const facts = factsByKey(ctx.inputs.facts);
  const keys = [...new Set([...data.keys, ...Object.keys(previous), ...Object.keys(facts)])];
  const step = ctx.loop?.round ?? 1;
  const state = await ctx.compute(
    updateState,
    { variables: data.variables, keys, previous, facts, step },
    'its rules',
  );
  for (const variable of data.variables) {
    if (!variable.chart) continue;
    ctx.report('series', {
      name: variable.name,
      ...(variable.description ? { label: variable.description.slice(0, 100) } : {}),
      x: step,
      values: Object.fromEntries(keys.map((key) => [key, state[key]![variable.name]!])),
    });
  }
  return { state };
};

function asTable(value: unknown): Table {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const table: Table = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object') continue;
    const numbers: Record<string, number> = {};
    for (const [name, v] of Object.entries(entry as Record<string, unknown>)) {
      if (typeof v === 'number' && Number.isFinite(v)) numbers[name] = v;
    }
    table[key] = numbers;
  }
  return table;
}

/** Facts by key: a table, or a list of records each naming its `key` (or `agent`). */
function factsByKey(value: unknown): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const list = Array.isArray(value) ? value.flat() : undefined;
  if (list) {
    for (const item of list) {
      if (!item || typeof item !== 'object') continue;
      const record = item as Record<string, unknown>;
      const key = record.key ?? record.agent;
      if (typeof key === 'string') out[key] = { ...out[key], ...record };
    }
    return out;
  }
  if (value && typeof value === 'object') {
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      if (entry && typeof entry === 'object') out[key] = entry as Record<string, unknown>;
    }
  }
  return out;
}
