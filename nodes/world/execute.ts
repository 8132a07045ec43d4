import type { Mood } from '../../app/environments/textworld/topics.ts';
import { topics } from '../../app/environments/textworld/topics.ts';
import {
  type StepAction,
  TextWorld,
  type TurnResult,
} from '../../app/environments/textworld/world.ts';
import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import { type Carried, noFacts, showing, specOf } from './showing.ts';
import type { WorldData } from './spec.ts';

/** One agent's action as it arrived, and whether a gate let it through. */
interface Arrived {
  agent: string;
  text: string | null;
  /** False when a gate held it back. */
  executed: boolean;
  p?: number;
}

export const execute: NodeExecutor<WorldData> = async (ctx) => {
  const data = ctx.data;
  const previous = carried(ctx.inputs.previous);
  const chats = previous?.chats ?? {};
  const world = previous
    ? TextWorld.restore(previous.world)
    : TextWorld.create(ctx.inputs.spec ?? specOf(data.world), {
        seed: data.seed,
        turnOrder: data.turnOrder,
      });
  const agents = world.agents();
  const arrived = readActions(ctx.inputs.actions, agents);
  // Before the first step nothing has happened to anyone: every fact is 0.
  const facts = noFacts(agents);
  const notes: Record<string, string> = {};
  let events = '';

  // The first time round there is nothing to carry out: the world is shown as it starts.
  if (previous) {
    const before = Object.fromEntries(agents.map((a) => [a, inView(world.observation(a))]));
    const actions: StepAction[] = arrived
      .filter((a) => a.executed)
      .map((a) => ({ agent: a.agent, action: a.text }));
    const played = world.step(actions);
    const held = new Map(arrived.filter((a) => !a.executed).map((a) => [a.agent, a]));
    const lines: string[] = [];
    for (const entry of played.script) lines.push(`${entry.agent} (script): ${line(entry)}`);
    for (const result of played.results) {
      const gated = held.get(result.agent);
      if (gated) {
        const tried = firstAction(gated.text);
        lines.push(
          `${result.agent}: ${tried} — held back by the gate${gated.p === undefined ? '' : ` (chance ${gated.p.toFixed(2)})`}`,
        );
        notes[result.agent] = `Last step you meant to ${tried}, but it did not come off.`;
      } else {
        lines.push(`${result.agent}: ${line(result)}`);
        if (result.given !== null) notes[result.agent] = `Last step: ${result.feedback}`;
      }
    }
    for (const agent of agents) {
      const result = played.results.find((r) => r.agent === agent);
      const seen = world.observation(agent);
      const after = inView(seen);
      facts[agent] = {
        acted: result?.given != null || held.has(agent) ? 1 : 0,
        executed: result?.ok && result.given != null ? 1 : 0,
        held: held.has(agent) ? 1 : 0,
        refused: result && !result.ok && result.given != null ? 1 : 0,
        moved: result?.moved ? 1 : 0,
        chatted: played.interactions.filter((i) => i.from === agent).length,
        spokenTo: played.interactions.filter((i) => i.to === agent).length,
        company: seen?.people.length ?? 0,
        novelty: [...after].filter((thing) => !before[agent]!.has(thing)).length,
      };
    }
    for (const chat of played.interactions) {
      ctx.report('interaction', {
        from: chat.from,
        to: chat.to,
        kind: 'chat',
        x: chat.step,
        text: chat.text,
      });
      const row = chats[chat.from] ?? {};
      row[chat.to] = (row[chat.to] ?? 0) + 1;
      chats[chat.from] = row;
    }
    events = `Step ${played.step}:\n${lines.join('\n')}`;
    await ctx.message(events);
  }

  const moods = moodsOf(ctx.inputs.moods);
  const now = world.state();
  const areaTopics = topics(now, moods);
  // The run's charts: who there is (so those who never chat still get a heat-map row), where
  // everyone is and the mood of every area, at the step about to be played.
  const at = world.stepsPlayed();
  ctx.report('participants', agents);
  ctx.report('series', {
    name: 'place',
    label: 'Where each agent is',
    x: at,
    values: Object.fromEntries(agents.map((a) => [a, world.whereIs(a) ?? null])),
  });
  ctx.report('series', {
    name: 'topic',
    label: 'Topic per area (-1 sour … 1 warm)',
    x: at,
    values: areaTopics,
  });
  return showing(world, now, { chats, notes, facts, events, topics: areaTopics });
};

/** The carried state, or a bare world state (from a hand-made `previous`). */
function carried(value: unknown): Carried | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if ('world' in record) {
    const chats =
      record.chats && typeof record.chats === 'object'
        ? (structuredClone(record.chats) as Carried['chats'])
        : {};
    return { world: record.world, chats };
  }
  return { world: value, chats: {} };
}

/** The actions that arrived, by agent: gate outcomes, records, or "AGENT: action" texts. */
export function readActions(value: unknown, agents: readonly string[]): Arrived[] {
  const list = Array.isArray(value) ? value.flat(3) : value === undefined ? [] : [value];
  const out: Arrived[] = [];
  for (const item of list) {
    if (item === null || item === undefined) continue;
    if (typeof item === 'string') {
      const colon = item.indexOf(':');
      const agent = colon > 0 ? item.slice(0, colon).trim() : '';
      if (agents.includes(agent))
        out.push({ agent, text: item.slice(colon + 1).trim(), executed: true });
      continue;
    }
    if (typeof item !== 'object') continue;
    const record = item as Record<string, unknown>;
    const agent = [record.key, record.agent].find((v): v is string => typeof v === 'string');
    if (agent === undefined) continue;
    const raw = record.value ?? record.action ?? null;
    out.push({
      agent,
      text: raw === null ? null : typeof raw === 'string' ? raw : JSON.stringify(raw),
      executed: record.executed !== false,
      ...(typeof record.p === 'number' ? { p: record.p } : {}),
    });
  }
  return out;
}

/** What an agent can see: the people and items around it and what it holds. */
function inView(seen: ReturnType<TextWorld['observation']>): Set<string> {
  if (!seen) return new Set();
  return new Set([
    `area:${seen.area.id}`,
    ...seen.people.map((p) => `person:${p.id}`),
    ...seen.furniture.flatMap((f) => f.items.map((i) => `item:${i.id}`)),
    ...seen.holding.map((i) => `item:${i.id}`),
  ]);
}

function line(result: TurnResult): string {
  if (result.given === null) return 'no action';
  const action = result.action ?? firstAction(result.given);
  return result.ok ? action : `${action} — refused: ${result.feedback}`;
}

/** The action line of an answer, for the log (the model's thoughts left out). */
function firstAction(text: string | null): string {
  if (!text) return 'nothing';
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const marked = lines.find((l) => /^action\s*:/i.test(l));
  return (marked ?? lines[0] ?? '').replace(/^action\s*:\s*/i, '').slice(0, 200);
}

function moodsOf(value: unknown): Record<string, Mood | undefined> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: Record<string, Mood | undefined> = {};
  for (const [agent, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object') continue;
    const { P, A, D } = entry as Record<string, unknown>;
    if (typeof P === 'number' && typeof A === 'number') {
      out[agent] = { P, A, D: typeof D === 'number' ? D : 0 };
    }
  }
  return out;
}
