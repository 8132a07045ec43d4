/**
 * The rules: which actions an agent can take right now, and what taking one does. An action
 * that cannot be done changes nothing and comes back as one sentence a model can read and act
 * on next time ("toy 1 is no longer on table 6: SG took it earlier this step").
 *
 * The rules in short (docs/textworld.md has them in full):
 * - `go to AREA`: an area one door away. `leave AREA`: out of the area you are in, to the
 *   outdoor area next to it. Moving ends any chat you were in.
 * - `take ITEM from FURNITURE`: from furniture in your area, into your hands (any number).
 *   `put ITEM on|in FURNITURE`: something you hold, onto furniture in your area.
 * - `use FURNITURE`: furniture with a `use` entry; its states change every item on or in it.
 * - `chat with PERSON: TEXT`: someone in your area. `leave PERSON` ends a chat with them.
 * - `rest`: always possible.
 */
import { type Action, formatAction, preposition, readAction } from './actions.ts';
import { areaTitle, type Layout, outdoorNextTo } from './layout.ts';
import { type Doing, type Interaction, sortedStates, type WorldState } from './state.ts';

/** What one action did, or why it was not done. */
export interface ActionResult {
  /** True when the action was done. */
  ok: boolean;
  /** The action in canonical words, or null when nothing could be read. */
  action: string | null;
  /** One or two sentences for the agent: what happened, or why not. */
  feedback: string;
  /** For a chat: who said what to whom. */
  interaction?: Interaction;
  /** For a move: where from and where to. */
  moved?: { from: string; to: string };
}

/** What the rules need to know about the step being played. */
export interface Turn {
  /** The step being played (the first is 1). */
  step: number;
  /** Items taken during this step, with who took them, to explain a later refusal. */
  taken: Map<string, string>;
}

/** The actions `agent` can take now, in canonical words, in a fixed order. */
export function actionSpace(layout: Layout, state: WorldState, agent: string): string[] {
  const me = state.agents[agent];
  if (!me) return [];
  const here = layout.areas.get(me.at);
  const out: string[] = [];
  const add = (a: Action) => out.push(formatAction(a, layout));
  for (const area of layout.neighbours.get(me.at) ?? []) add({ verb: 'go', area });
  if (here?.kind !== 'outdoor' && outdoorNextTo(layout, me.at))
    add({ verb: 'leave-area', area: me.at });
  const furniture = here?.furniture ?? [];
  for (const f of furniture) {
    for (const item of itemsAt(layout, state, f.id)) add({ verb: 'take', item, from: f.id });
  }
  for (const item of itemsAt(layout, state, agent)) {
    for (const f of furniture) add({ verb: 'put', item, furniture: f.id });
  }
  for (const f of furniture) if (f.use) add({ verb: 'use', furniture: f.id });
  const others = peopleHere(layout, state, agent);
  for (const other of others) out.push(`chat with ${other}`);
  for (const other of others) {
    if (inChat(state, agent, other)) add({ verb: 'leave-person', agent: other });
  }
  add({ verb: 'rest' });
  return out;
}

/**
 * Reads `text` as an action and does it if it can be done now. A null or empty text, or one
 * that is refused, lets a one-step doing (moving, taking, putting) lapse.
 */
export function applyAction(
  layout: Layout,
  state: WorldState,
  agent: string,
  text: string | null,
  turn: Turn,
): ActionResult {
  const me = state.agents[agent];
  if (!me) return { ok: false, action: null, feedback: `There is no agent "${agent}".` };
  if (text === null || text.trim() === '') {
    lapse(me.doing);
    return { ok: false, action: null, feedback: 'You took no action this step.' };
  }
  const read = readAction(text, layout);
  if (!read.ok) {
    lapse(me.doing);
    return { ok: false, action: null, feedback: sentence(read.message) };
  }
  const action = read.action;
  const refusal = refuse(layout, state, agent, action, turn);
  const canonical = formatAction(resolved(layout, state, action), layout);
  if (refusal) {
    lapse(me.doing);
    return { ok: false, action: canonical, feedback: sentence(refusal) };
  }
  return { ok: true, action: canonical, ...perform(layout, state, agent, action, turn) };
}

/** Why `action` cannot be done now, or undefined when it can. */
function refuse(
  layout: Layout,
  state: WorldState,
  agent: string,
  action: Action,
  turn: Turn,
): string | undefined {
  const me = state.agents[agent]!;
  switch (action.verb) {
    case 'go': {
      if (action.area === me.at) return `you are already in ${areaTitle(layout, me.at)}`;
      const doors = layout.neighbours.get(me.at) ?? [];
      if (!doors.includes(action.area))
        return `you cannot get to ${areaTitle(layout, action.area)} from here; from here you can go to: ${doors.join(', ') || 'nowhere'}`;
      return undefined;
    }
    case 'leave-area': {
      if (action.area !== me.at) return `you are not in ${areaTitle(layout, action.area)}`;
      if (layout.areas.get(me.at)?.kind === 'outdoor') return 'you are already outdoors';
      if (!outdoorNextTo(layout, me.at)) return 'there is no way outdoors from here';
      return undefined;
    }
    case 'leave-person': {
      if (action.agent === agent) return 'you cannot leave yourself';
      if (!inChat(state, agent, action.agent)) return `you are not chatting with ${action.agent}`;
      return undefined;
    }
    case 'take': {
      const item = state.items[action.item]!;
      if (item.at === agent) return `you are already holding ${action.item}`;
      const gone = turn.taken.get(action.item);
      if (action.from) {
        if (!furnitureHere(layout, me.at, action.from)) return `${action.from} is not here`;
        if (item.at !== action.from) {
          if (gone)
            return `${action.item} is no longer ${preposition(layout, action.from)} ${action.from}: ${gone} took it earlier this step`;
          return `${action.item} is not ${preposition(layout, action.from)} ${action.from}`;
        }
        return undefined;
      }
      if (gone && gone !== agent)
        return `${action.item} is gone: ${gone} took it earlier this step`;
      if (!furnitureHere(layout, me.at, item.at)) return `${action.item} is not here`;
      return undefined;
    }
    case 'put': {
      if (state.items[action.item]!.at !== agent) return `you are not holding ${action.item}`;
      if (!furnitureHere(layout, me.at, action.furniture)) return `${action.furniture} is not here`;
      return undefined;
    }
    case 'use': {
      if (!furnitureHere(layout, me.at, action.furniture)) return `${action.furniture} is not here`;
      if (!layout.furniture.get(action.furniture)?.use)
        return `${action.furniture} is not something you can use`;
      return undefined;
    }
    case 'chat': {
      if (action.agent === agent) return 'you cannot chat with yourself';
      if (state.agents[action.agent]?.at !== me.at) return `${action.agent} is not here`;
      return undefined;
    }
    case 'rest':
      return undefined;
    default:
      return action satisfies never;
  }
}

/** Does an action known to be possible; returns what the result adds. */
function perform(
  layout: Layout,
  state: WorldState,
  agent: string,
  action: Action,
  turn: Turn,
): Pick<ActionResult, 'feedback' | 'interaction' | 'moved'> {
  const me = state.agents[agent]!;
  switch (action.verb) {
    case 'go':
    case 'leave-area': {
      const from = me.at;
      const to = action.verb === 'go' ? action.area : outdoorNextTo(layout, from)!;
      endChats(state, agent);
      me.at = to;
      me.doing = { kind: 'moving', target: from };
      return { feedback: `You go to ${areaTitle(layout, to)}.`, moved: { from, to } };
    }
    case 'leave-person': {
      me.doing = { kind: 'idle' };
      const other = state.agents[action.agent]!;
      if (other.doing.kind === 'chatting' && other.doing.target === agent)
        other.doing = { kind: 'idle' };
      return { feedback: `You stop chatting with ${action.agent}.` };
    }
    case 'take': {
      const item = state.items[action.item]!;
      const from = item.at;
      item.at = agent;
      turn.taken.set(action.item, agent);
      me.doing = { kind: 'taking', target: action.item };
      return {
        feedback: `You take ${action.item} from ${from}.${statesNote(item.states)}`,
      };
    }
    case 'put': {
      state.items[action.item]!.at = action.furniture;
      me.doing = { kind: 'putting', target: action.item };
      return {
        feedback: `You put ${action.item} ${preposition(layout, action.furniture)} ${action.furniture}.`,
      };
    }
    case 'use': {
      const use = layout.furniture.get(action.furniture)!.use!;
      const changed: string[] = [];
      for (const id of itemsAt(layout, state, action.furniture)) {
        const item = state.items[id]!;
        const states = new Set(item.states);
        for (const s of use.clears ?? []) states.delete(s);
        for (const s of use.sets ?? []) states.add(s);
        item.states = sortedStates([...states]);
        changed.push(`${id}${item.states.length > 0 ? ` (${item.states.join(', ')})` : ''}`);
      }
      me.doing = { kind: 'using', target: action.furniture };
      const on = preposition(layout, action.furniture);
      return {
        feedback:
          changed.length > 0
            ? `You use ${action.furniture}. Now ${on} it: ${changed.join(', ')}.`
            : `You use ${action.furniture}; there is nothing ${on} it.`,
      };
    }
    case 'chat': {
      me.doing = { kind: 'chatting', target: action.agent };
      const interaction: Interaction = {
        step: turn.step,
        from: agent,
        to: action.agent,
        text: action.text,
        area: me.at,
      };
      state.heard.push(interaction);
      return {
        feedback: action.text
          ? `You say to ${action.agent}: "${action.text}"`
          : `You turn to ${action.agent} to chat.`,
        interaction,
      };
    }
    case 'rest':
      me.doing = { kind: 'resting' };
      return { feedback: 'You rest.' };
    default:
      return action satisfies never;
  }
}

/** A `take` without its furniture gets the furniture the item lies on, for the canonical text. */
function resolved(layout: Layout, state: WorldState, action: Action): Action {
  if (action.verb !== 'take' || action.from) return action;
  const at = state.items[action.item]?.at;
  return at && layout.furniture.has(at) ? { ...action, from: at } : action;
}

/** Items on or in `holder` (furniture, or an agent's hands), in world order. */
export function itemsAt(layout: Layout, state: WorldState, holder: string): string[] {
  return [...layout.items.keys()].filter((id) => state.items[id]?.at === holder);
}

/** Other agents in `agent`'s area, in world order. */
export function peopleHere(layout: Layout, state: WorldState, agent: string): string[] {
  const at = state.agents[agent]?.at;
  return [...layout.agents.keys()].filter((id) => id !== agent && state.agents[id]?.at === at);
}

/** Whether `a` and `b` are in the same area and one of them is chatting with the other. */
export function inChat(state: WorldState, a: string, b: string): boolean {
  const x = state.agents[a];
  const y = state.agents[b];
  if (!x || !y || x.at !== y.at) return false;
  return (
    (x.doing.kind === 'chatting' && x.doing.target === b) ||
    (y.doing.kind === 'chatting' && y.doing.target === a)
  );
}

function furnitureHere(layout: Layout, area: string, furniture: string): boolean {
  return layout.furniture.get(furniture)?.area === area;
}

/** Everyone chatting with `agent` stops when it walks away, and so does it. */
function endChats(state: WorldState, agent: string): void {
  for (const other of Object.values(state.agents)) {
    if (other.doing.kind === 'chatting' && other.doing.target === agent)
      other.doing = { kind: 'idle' };
  }
}

/** One-step doings end when the agent's next turn does nothing. */
function lapse(doing: Doing): void {
  if (doing.kind === 'moving' || doing.kind === 'taking' || doing.kind === 'putting') {
    doing.kind = 'idle';
    delete doing.target;
  }
}

function statesNote(states: readonly string[]): string {
  return states.length > 0 ? ` It is ${states.join(' and ')}.` : '';
}

function sentence(text: string): string {
  const body = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(body) ? body : `${body}.`;
}
