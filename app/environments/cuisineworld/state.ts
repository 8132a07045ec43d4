/** The world's state during an episode: agents, the kitchen's places, open orders, the tally. */
import type { EpisodeMetrics } from '../types.ts';
import type { WorldConfig } from './config.ts';
import type { ToolType } from './data.ts';

export interface AgentState {
  id: string;
  /** The location it stands at. */
  at: string;
  /** What it carries (one item), or null. */
  hold: string | null;
  /** Steps it still cannot act (watching a chopboard). */
  busy: number;
}

export interface PlaceState {
  id: string;
  tool: ToolType;
  /** Items inside, in the order they were put in. */
  contents: string[];
  /** Steps it still stays occupied after an activation. */
  busy: number;
  /** Whether it has been activated since it was last emptied (what it holds can be taken). */
  cooked: boolean;
}

export interface OrderState {
  id: number;
  dish: string;
  /** Steps left; the order fails when a step starts with 0. */
  lifetime: number;
  arrivedAt: number;
}

export interface Tally {
  completed: number;
  /** Orders that ran out of time. */
  failed: number;
  /** Steps in which at least one order failed (the public runner counts failures this way). */
  failedSteps: number;
  invalid: Record<string, number>;
  /** Steps in which no command but `noop` ran (a refused step counts). */
  idleSteps: number;
  noops: number;
}

export interface WorldState {
  /** Game steps played. */
  step: number;
  /** Turns used of the budget: the steps, plus the turns that played none (paper runner). */
  turns: number;
  done: boolean;
  agents: AgentState[];
  places: PlaceState[];
  /** Open orders, least lifetime first (ties by dish name). */
  orders: OrderState[];
  /** Dishes of completed orders, in completion order. */
  accomplished: string[];
  /** Dishes of failed orders, in failure order. */
  expired: string[];
  nextOrderId: number;
  /** How many numbers the seeded generator has given (so a copy can catch up). */
  draws: number;
  /** How many entries of a list order source have been used. */
  sourceUsed: number;
  tally: Tally;
}

/** The state an episode starts in, before its first order. */
export function initialState(config: WorldConfig): WorldState {
  return {
    step: 0,
    turns: 0,
    done: false,
    // Everyone starts at the serving table, as in the public code.
    agents: Array.from({ length: config.agents }, (_, i) => ({
      id: `agent${i}`,
      at: 'servingtable0',
      hold: null,
      busy: 0,
    })),
    places: config.locations.map((l) => ({
      id: l.id,
      tool: l.tool,
      contents: [],
      busy: 0,
      cooked: false,
    })),
    orders: [],
    accomplished: [],
    expired: [],
    nextOrderId: 0,
    draws: 0,
    sourceUsed: 0,
    tally: { completed: 0, failed: 0, failedSteps: 0, invalid: {}, idleSteps: 0, noops: 0 },
  };
}

/** A deep copy, for look-ahead and clones. */
export function copyState(state: WorldState): WorldState {
  return structuredClone(state);
}

/** The episode's figures so far. */
export function episodeMetrics(s: WorldState): EpisodeMetrics {
  return {
    steps: s.step,
    turns: s.turns,
    completed: s.tally.completed,
    failed: s.tally.failed,
    open: s.orders.length,
    invalid: { ...s.tally.invalid },
    idleSteps: s.tally.idleSteps,
  };
}
