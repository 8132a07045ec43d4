/**
 * What an agent perceives: where it is, who else is there and what they are doing, the
 * furniture and what lies on it, what it holds, what it is doing, and what was said to it in
 * the last step. Twice: as a few sentences for a prompt, and as JSON for the editor. States
 * are shown in parentheses only where an item has any, so a plain world reads plainly.
 */
import { areaTitle, type Layout } from './layout.ts';
import { itemsAt, peopleHere } from './rules.ts';
import type { Doing, WorldState } from './state.ts';

export interface ObservedItem {
  id: string;
  states: string[];
}

/** An agent's observation as data. */
export interface Observation {
  agent: string;
  name?: string;
  goal: string;
  /** Steps played so far. */
  step: number;
  area: { id: string; title: string; kind: 'home' | 'public' | 'outdoor'; owner?: string };
  /** Areas one door away. */
  doors: string[];
  people: Array<{ id: string; name?: string; doing: string }>;
  furniture: Array<{
    id: string;
    kind: string;
    holds: 'on' | 'in';
    usable: boolean;
    items: ObservedItem[];
  }>;
  holding: ObservedItem[];
  /** What the agent is doing, as a phrase (`resting`, `chatting with SG`). */
  doing: string;
  /** What others said to it since the last step began, oldest first. */
  heard: Array<{ from: string; text: string }>;
}

/** The observation of `agent` as data; undefined for an unknown agent. */
export function observation(
  layout: Layout,
  state: WorldState,
  agent: string,
): Observation | undefined {
  const me = state.agents[agent];
  const spec = layout.agents.get(agent);
  if (!me || !spec) return undefined;
  const area = layout.areas.get(me.at)!;
  const item = (id: string): ObservedItem => ({ id, states: state.items[id]?.states ?? [] });
  return {
    agent,
    ...(spec.name ? { name: spec.name } : {}),
    goal: spec.goal,
    step: state.step,
    area: {
      id: area.id,
      title: areaTitle(layout, area.id),
      kind: area.kind,
      ...(area.owner ? { owner: area.owner } : {}),
    },
    doors: layout.neighbours.get(area.id) ?? [],
    people: peopleHere(layout, state, agent).map((id) => ({
      id,
      ...(layout.agents.get(id)?.name ? { name: layout.agents.get(id)!.name } : {}),
      doing: doingPhrase(layout, state.agents[id]!.doing, agent),
    })),
    furniture: area.furniture.map((f) => ({
      id: f.id,
      kind: f.kind,
      holds: f.holds ?? 'on',
      usable: f.use !== undefined,
      items: itemsAt(layout, state, f.id).map(item),
    })),
    holding: itemsAt(layout, state, agent).map(item),
    doing: doingPhrase(layout, me.doing, agent),
    heard: state.heard.filter((h) => h.to === agent).map((h) => ({ from: h.from, text: h.text })),
  };
}

/**
 * The observation of `agent` as text for a prompt, e.g.
 * `You are in the canteen (a public place). With you are SG (chatting with you) and MD
 * (resting). Around you: table 1, with bread 1 (hot) on it; chair 1. From here you can go to
 * courtyard. You are holding clothes 1 (clean, damp). You are chatting with SG.`
 */
export function observe(layout: Layout, state: WorldState, agent: string): string {
  const o = observation(layout, state, agent);
  if (!o) return '';
  const lines: string[] = [];
  const place =
    o.area.kind === 'home'
      ? o.area.owner === agent
        ? ' (your home)'
        : o.area.owner
          ? ` (the home of ${o.area.owner})`
          : ' (a home)'
      : o.area.kind === 'public'
        ? ' (a public place)'
        : ' (outdoors)';
  const people =
    o.people.length === 0
      ? 'Nobody else is here.'
      : `With you ${o.people.length === 1 ? 'is' : 'are'} ${join(o.people.map((p) => `${p.id} (${p.doing})`))}.`;
  const furniture =
    o.furniture.length === 0
      ? ''
      : ` Around you: ${o.furniture
          .map((f) =>
            f.items.length === 0
              ? f.id
              : `${f.id}, with ${join(f.items.map(itemText))} ${f.holds} it`,
          )
          .join('; ')}.`;
  lines.push(`You are in ${o.area.title}${place}. ${people}${furniture}`);
  lines.push(
    o.doors.length > 0
      ? `From here you can go to ${join(o.doors)}.`
      : 'There is no way out of here.',
  );
  lines.push(
    o.holding.length > 0
      ? `You are holding ${join(o.holding.map(itemText))}.`
      : 'You are holding nothing.',
  );
  lines.push(`You are ${o.doing}.`);
  const text = [lines.join(' ')];
  for (const h of o.heard)
    text.push(h.text ? `${h.from} said to you: "${h.text}"` : `${h.from} turned to you to chat.`);
  return text.join('\n');
}

/** What a doing looks like to `viewer` (`chatting with you`, `just in from the courtyard`). */
export function doingPhrase(layout: Layout, doing: Doing, viewer?: string): string {
  const who = (id: string | undefined) => (id === viewer ? 'you' : (id ?? 'someone'));
  switch (doing.kind) {
    case 'idle':
      return 'doing nothing in particular';
    case 'moving':
      return `just in from ${doing.target ? areaTitle(layout, doing.target) : 'elsewhere'}`;
    case 'chatting':
      return `chatting with ${who(doing.target)}`;
    case 'resting':
      return 'resting';
    case 'using': {
      const furniture = doing.target ? layout.furniture.get(doing.target) : undefined;
      return furniture?.use?.doing ?? `using ${doing.target ?? 'something'}`;
    }
    case 'taking':
      return `picking up ${doing.target ?? 'something'}`;
    case 'putting':
      return `putting down ${doing.target ?? 'something'}`;
    default:
      return doing.kind satisfies never;
  }
}

function itemText(item: ObservedItem): string {
  return item.states.length > 0 ? `${item.id} (${item.states.join(', ')})` : item.id;
}

/** `a`, `a and b`, `a, b and c`. */
function join(parts: readonly string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
