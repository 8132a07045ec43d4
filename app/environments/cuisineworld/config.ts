/**
 * An episode's settings: what `reset` may change (`CuisineOptions`) and the checked result
 * (`WorldConfig`), built from the level's timing formula and the tools' defaults.
 */
import type { ResetOptions } from '../types.ts';
import {
  type LevelSpec,
  type Recipe,
  TOOL_TYPES,
  TOOLS,
  type ToolSpec,
  type ToolType,
} from './data.ts';
import { getLevel, kitchenLocations, levelTiming, recipesFor, TAU_ALPHAS } from './levels.ts';

/** Where a new order comes from when one is due (for replaying a recorded game). */
export interface OrderSourceContext {
  /** The step the order arrives at (0 for the first order). */
  step: number;
  /** The dishes of the orders still open. */
  open: readonly string[];
  /** The level's dishes. */
  dishes: readonly string[];
  /** A draw from the episode's seeded generator. */
  random: () => number;
}
/** A list is read in order (the first entry is the opening order), then the seeded draw takes over. */
export type OrderSource = readonly string[] | ((context: OrderSourceContext) => string);

/** Tool settings that can be changed for an episode (for experiments and tests). */
export type ToolOverride = Partial<
  Pick<ToolSpec, 'capacity' | 'busySteps' | 'keepsAgentBusy' | 'pickableBeforeActivation'>
>;

/** CuisineWorld's `ResetOptions.options`. */
export interface CuisineOptions {
  /** Order-frequency factor of the timing formula (default 1.0, the paper's τ1). */
  alpha?: number;
  /** The paper's τ1…τ5, as a shorthand for the five α values; `alpha` wins when both are given. */
  tau?: 1 | 2 | 3 | 4 | 5;
  /** Order lifetime: one number for every dish, or per dish (others keep the formula's). */
  lifetime?: number | Record<string, number>;
  /** Steps between new orders, instead of the formula's (0: no new orders). */
  interval?: number;
  /** At most this many orders open at once; a due order is skipped while full (default 6). */
  orderCap?: number;
  orderSource?: OrderSource;
  /**
   * `refuse` (default, the public code): a put or activation that would make waste is refused.
   * `cook`: it goes through and the tool makes waste (the original game's harsher rule, which
   * the public code mentions and turned off).
   */
  wasteRule?: 'refuse' | 'cook';
  /** How turns and expiries count (default `ours`); see `Runner`. */
  runner?: Runner;
  tools?: Partial<Record<ToolType, ToolOverride>>;
}

/**
 * How a turn is counted. `ours`: every turn plays one game step and every expired order counts
 * as failed. `paper`: as MindAgent's runner (agents/chat_agent.py, overcooked/game.py): a turn
 * with no command at all (nothing could be read from the answer) uses up a turn of the budget
 * without moving the game, and a step counts at most one failed order however many expire in
 * it (the others leave the tally, as in the engine's `failed_count += 1`).
 */
export type Runner = 'ours' | 'paper';
/** The runners, default first. */
export const RUNNERS = ['ours', 'paper'] as const satisfies readonly Runner[];

/** Everything fixed for an episode. */
export interface WorldConfig {
  level: LevelSpec;
  agents: number;
  seed: string | number;
  maxSteps: number;
  alpha: number;
  interval: number;
  lifetimes: Record<string, number>;
  orderCap: number;
  orderSource?: OrderSource;
  wasteRule: 'refuse' | 'cook';
  runner: Runner;
  tools: Record<ToolType, ToolSpec>;
  /** The recipes this level's dishes need; only these cook (as in the public code). */
  recipes: readonly Recipe[];
  locations: ReadonlyArray<{ id: string; tool: ToolType }>;
}

function numberOption(options: Record<string, unknown>, key: string): number | undefined {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`CuisineWorld option ${key} must be a number`);
  }
  return value;
}

/** Builds an episode's settings from reset options, checking them. */
export function worldConfig(reset: ResetOptions): WorldConfig {
  const level = getLevel(reset.level);
  const options = (reset.options ?? {}) as Record<string, unknown> & CuisineOptions;
  if (!Number.isInteger(reset.agents) || reset.agents < 1) {
    throw new Error(
      `CuisineWorld needs a whole number of agents, at least 1 (got ${reset.agents})`,
    );
  }
  const maxSteps = reset.maxSteps ?? 60;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new Error('maxSteps must be 1 or more');
  const tau = numberOption(options, 'tau');
  if (tau !== undefined && !(Number.isInteger(tau) && tau >= 1 && tau <= 5)) {
    throw new Error('CuisineWorld option tau must be 1, 2, 3, 4 or 5');
  }
  const alpha = numberOption(options, 'alpha') ?? (tau ? TAU_ALPHAS[tau - 1]! : 1.0);
  if (alpha <= 0) throw new Error('CuisineWorld option alpha must be positive');
  const timing = levelTiming(level, alpha);
  const lifetimes = { ...timing.lifetimes };
  if (typeof options.lifetime === 'number') {
    for (const dish of level.dishes) lifetimes[dish] = options.lifetime;
  } else if (options.lifetime && typeof options.lifetime === 'object') {
    for (const [dish, value] of Object.entries(options.lifetime)) {
      if (!level.dishes.includes(dish))
        throw new Error(`lifetime given for ${dish}, not a dish of ${level.id}`);
      lifetimes[dish] = value;
    }
  }
  for (const [dish, value] of Object.entries(lifetimes)) {
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`lifetime of ${dish} must be a whole number ≥ 1`);
  }
  const interval = numberOption(options, 'interval') ?? timing.interval;
  const orderCap = numberOption(options, 'orderCap') ?? 6;
  if (!Number.isInteger(interval) || interval < 0)
    throw new Error('interval must be a whole number ≥ 0');
  if (!Number.isInteger(orderCap) || orderCap < 1)
    throw new Error('orderCap must be a whole number ≥ 1');
  const wasteRule = options.wasteRule ?? 'refuse';
  if (wasteRule !== 'refuse' && wasteRule !== 'cook')
    throw new Error('wasteRule must be refuse or cook');
  const runner = options.runner ?? 'ours';
  if (!RUNNERS.includes(runner)) throw new Error('runner must be ours or paper');
  const source = options.orderSource;
  if (source !== undefined && typeof source !== 'function' && !Array.isArray(source)) {
    throw new Error('orderSource must be a list of dishes or a function');
  }
  const tools = {} as Record<ToolType, ToolSpec>;
  for (const type of TOOL_TYPES) tools[type] = { ...TOOLS[type], ...(options.tools?.[type] ?? {}) };
  return {
    level,
    agents: reset.agents,
    seed: reset.seed,
    maxSteps,
    alpha,
    interval,
    lifetimes,
    orderCap,
    ...(source ? { orderSource: source } : {}),
    wasteRule,
    runner,
    tools,
    recipes: recipesFor(level.dishes),
    locations: kitchenLocations(level),
  };
}
