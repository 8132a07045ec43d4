/**
 * A text world's state as plain JSON: the spec it was loaded from, the step counter, where
 * each agent is and what it is doing, where each item is and its states, and the chats of the
 * last step. It is what a `world` node hands from one round to the next, so it must survive a
 * JSON round trip unchanged and be checked again when it comes back (it crosses run events,
 * exports and edits): restoring reads it through the schema below and the world's loader.
 */
import { z } from 'zod';
import type { WorldSpec } from './format.ts';

/** The format tag of a saved state. */
export const STATE_FORMAT = 'society-world-state/1';

/**
 * How agents take turns within a step: `fixed` is the world's agent order; `shuffled` is a
 * new order every step drawn from the seed (the same seed gives the same orders); `given` is
 * the order of the actions handed to `step`.
 */
export const TURN_ORDERS = ['fixed', 'shuffled', 'given'] as const;
export type TurnOrder = (typeof TURN_ORDERS)[number];

/**
 * What an agent is doing, as others see it. `moving` (with the area it came from), `taking`
 * and `putting` last one step; `chatting`, `resting` and `using` last until the agent does
 * something else, walks away, or (for a chat) its partner leaves it.
 */
export const DOING_KINDS = [
  'idle',
  'moving',
  'chatting',
  'resting',
  'using',
  'taking',
  'putting',
] as const;
export type DoingKind = (typeof DOING_KINDS)[number];

const Name = z.string().min(1).max(200);

export const DoingSchema = z.strictObject({
  kind: z.enum(DOING_KINDS),
  /** The partner (chatting), furniture (using), item (taking, putting), or area left (moving). */
  target: Name.optional(),
});
export type Doing = z.infer<typeof DoingSchema>;

export const AgentStateSchema = z.strictObject({ at: Name, doing: DoingSchema });
export type AgentState = z.infer<typeof AgentStateSchema>;

export const ItemStateSchema = z.strictObject({
  /** Furniture id, or the id of the agent holding it. */
  at: Name,
  /** Its states, sorted. */
  states: z.array(Name).max(64),
});
export type ItemState = z.infer<typeof ItemStateSchema>;

/** One chat: who said what to whom, where and when. */
export const InteractionSchema = z.strictObject({
  step: z.number().int().min(0),
  from: Name,
  to: Name,
  text: z.string().max(4000),
  area: Name,
});
export type Interaction = z.infer<typeof InteractionSchema>;

export const WorldStateSchema = z.strictObject({
  format: z.literal(STATE_FORMAT, { error: `format must be "${STATE_FORMAT}"` }),
  /** Steps played so far; the next call to `step` plays step `step + 1`. */
  step: z.number().int().min(0),
  seed: z.union([z.string().max(200), z.number()]),
  turnOrder: z.enum(TURN_ORDERS),
  agents: z.record(z.string(), AgentStateSchema),
  items: z.record(z.string(), ItemStateSchema),
  /** Chats since the last step began (shown to whom they were said). */
  heard: z.array(InteractionSchema).max(10_000),
  /** The world as loaded; checked again by the loader on restore. */
  spec: z.unknown(),
});

/** A saved state; `spec` is the world it belongs to. */
export type WorldState = Omit<z.infer<typeof WorldStateSchema>, 'spec'> & { spec: WorldSpec };

/** The state a world starts in: everyone where the spec puts them, doing nothing yet. */
export function initialState(
  spec: WorldSpec,
  seed: string | number,
  turnOrder: TurnOrder,
): WorldState {
  return {
    format: STATE_FORMAT,
    step: 0,
    seed,
    turnOrder,
    agents: Object.fromEntries(
      spec.agents.map((a) => [a.id, { at: a.at, doing: { kind: 'idle' } }]),
    ),
    items: Object.fromEntries(
      spec.items.map((i) => [i.id, { at: i.at, states: sortedStates(i.states ?? []) }]),
    ),
    heard: [],
    spec,
  };
}

/** States without repeats, in a fixed order, so equal states compare equal as JSON. */
export function sortedStates(states: readonly string[]): string[] {
  return [...new Set(states)].sort();
}
