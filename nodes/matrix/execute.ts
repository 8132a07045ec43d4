import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import { shuffle } from '../../app/node-sdk/random.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import { allocation, tidy } from './allocation.ts';
import { readRanking } from './ranking.ts';
import type { MatrixData } from './spec.ts';

interface AgentRecord {
  id: string;
  [field: string]: unknown;
}

export const execute: NodeExecutor<MatrixData> = async (ctx) => {
  const data = ctx.data;
  const agents = agentRecords(ctx.inputs.agents);
  if (agents.length === 0) throw new Error('no agents arrived at `agents` to rank');
  const ids = agents.map((a) => a.id);
  const held = holdings(ctx.inputs.resources, ids, data.initial);
  if (!data.enabled) {
    return {
      ranking: ids,
      resources: held,
      allocation: Object.fromEntries(ids.map((id) => [id, 0])),
    };
  }
  const vars = {
    ...ctx.bindings,
    ...ctx.inputs,
    agents: agents.map((a) => ({ ...a, resources: held[a.id] })),
    resources: held,
    loop: ctx.loop,
  };
  const prompt = await ctx.renderTemplate(data.prompt, vars, 'prompt');
  const result = await ctx.callModel({
    profile: data.model,
    messages: [{ role: 'user', content: prompt }],
    temperature: data.temperature,
    maxTokens: data.maxTokens,
    // A simulated ranking is a seeded shuffle of the ids.
    answerShape: {
      kind: 'custom',
      answer: (_request, draw) => JSON.stringify({ ranking: shuffle([...ids], draw) }),
    },
  });
  const ranking = readRanking(result.text, ids);
  const amounts = allocation(ranking.length, data.sMin, data.sMax);
  const change: Record<string, number> = {};
  const resources: Record<string, number> = {};
  for (const [j, id] of ranking.entries()) {
    change[id] = amounts[j] ?? 0;
  }
  for (const id of ids) {
    resources[id] = data.update === 'add' ? tidy(held[id]! + change[id]!) : change[id]!;
  }
  ctx.report('series', {
    name: 'resources',
    label: 'Resources',
    x: ctx.loop?.round ?? 1,
    values: resources,
  });
  await ctx.message(
    `${simulatedPrefix(result.simulated)}ranking ${ranking.join(' > ')}; resources ` +
      ids.map((id) => `${id}:${resources[id]}`).join(', '),
  );
  return { ranking, resources, allocation: change };
};

/** Agents as records with an id: from ids, or records that have one. */
function agentRecords(value: unknown): AgentRecord[] {
  const list = Array.isArray(value)
    ? value.flat()
    : value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>).map(([id, v]) =>
          v && typeof v === 'object' ? { id, ...(v as object) } : { id },
        )
      : [];
  const records: AgentRecord[] = [];
  for (const item of list) {
    if (typeof item === 'string' && item.trim()) records.push({ id: item.trim() });
    else if (item && typeof item === 'object' && typeof (item as AgentRecord).id === 'string') {
      records.push(item as AgentRecord);
    }
  }
  return records.filter((r, i) => records.findIndex((o) => o.id === r.id) === i);
}

/** What each agent holds: the table that arrived, `initial` for anyone it leaves out. */
function holdings(value: unknown, ids: string[], initial: number): Record<string, number> {
  const table =
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  return Object.fromEntries(
    ids.map((id) => {
      const held = table[id];
      return [id, typeof held === 'number' && Number.isFinite(held) ? held : initial];
    }),
  );
}
