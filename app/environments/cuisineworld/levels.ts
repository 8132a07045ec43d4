/**
 * Looking levels up, checking them, and timing their orders.
 *
 * Timing follows the public MindAgent code (the paper defers it to an appendix it does not
 * print): a dish's wait is the busy time of each cooking step it needs (less the activating
 * step) plus three steps (fetch, walk, put) for every node of its recipe graph; orders of it
 * live `ceil(2.5·α·wait·0.3)` steps and the level adds one order every `ceil(α·wait·0.3)`
 * steps, taking the largest interval among its dishes. The runner sweeps five α values, which
 * the paper calls τ1…τ5 (τ1 the most hurried).
 */
import {
  BASE_INGREDIENTS,
  LEVELS,
  type LevelSpec,
  RECIPES,
  type Recipe,
  TOOL_TYPES,
  TOOLS,
  type ToolType,
} from './data.ts';

const BASE = new Set<string>(BASE_INGREDIENTS);
const BY_PRODUCT = new Map(RECIPES.map((r) => [r.product, r]));

/** Whether an item comes raw from storage. */
export function isBaseIngredient(item: string): boolean {
  return BASE.has(item);
}

/** The recipe that makes `item`, if it is made at all. */
export function recipeFor(item: string): Recipe | undefined {
  return BY_PRODUCT.get(item);
}

/** Every item name the world knows: the base ingredients and every recipe's product. */
export function knownItems(): Set<string> {
  return new Set([...BASE_INGREDIENTS, ...RECIPES.map((r) => r.product)]);
}

/** The five α values of the paper's τ1…τ5, most hurried first. */
export const TAU_ALPHAS = [1.0, 1.5, 2.0, 2.5, 3.0] as const;

/** A level by id; `L3` and `3` are read as `level_3`. */
export function findLevel(id: string): LevelSpec | undefined {
  const short = /^L?(\d+)$/i.exec(id.trim());
  const key = short ? `level_${short[1]}` : id.trim();
  return LEVELS.find((l) => l.id === key);
}

/** Like `findLevel`, but an unknown id is an error that lists the known ones. */
export function getLevel(id: string): LevelSpec {
  const level = findLevel(id);
  if (!level) {
    throw new Error(
      `unknown CuisineWorld level "${id}"; known: ${LEVELS.map((l) => l.id).join(', ')}`,
    );
  }
  return level;
}

/** The kitchen's location ids in a fixed order: storage, serving table, then tools by type. */
export function kitchenLocations(level: LevelSpec): Array<{ id: string; tool: ToolType }> {
  const out: Array<{ id: string; tool: ToolType }> = [
    { id: 'storage0', tool: 'storage' },
    { id: 'servingtable0', tool: 'servingtable' },
  ];
  for (const tool of TOOL_TYPES) {
    if (tool === 'storage' || tool === 'servingtable') continue;
    const count = level.kitchen[tool] ?? 0;
    for (let i = 0; i < count; i++) out.push({ id: `${tool}${i}`, tool });
  }
  return out;
}

/**
 * The recipe graph of a dish: every item it needs, itself included, each once, in the order a
 * breadth-first walk from the dish meets them.
 */
export function recipeNodes(dish: string): string[] {
  const seen = new Set<string>();
  const queue = [dish];
  while (queue.length > 0) {
    const item = queue.shift()!;
    if (seen.has(item)) continue;
    seen.add(item);
    const recipe = recipeFor(item);
    if (recipe) queue.push(...recipe.ingredients);
  }
  return [...seen];
}

/** The recipes a set of dishes needs, the dishes' own and all their intermediates'. */
export function recipesFor(dishes: readonly string[]): Recipe[] {
  const out = new Map<string, Recipe>();
  for (const dish of dishes) {
    for (const node of recipeNodes(dish)) {
      const recipe = recipeFor(node);
      if (recipe) out.set(recipe.product, recipe);
    }
  }
  return [...out.values()];
}

/** The cooking tools a dish's recipe graph uses. */
export function toolsFor(dish: string): ToolType[] {
  const tools = new Set<ToolType>();
  for (const node of recipeNodes(dish)) {
    const recipe = recipeFor(node);
    if (recipe) tools.add(recipe.tool);
  }
  return [...tools];
}

export interface DishTiming {
  /** Steps a dish is reckoned to take: busy time of its cooking steps plus 3 per graph node. */
  waitTime: number;
  /** How long an order of it stays open. */
  lifetime: number;
  /** How often a level of only this dish would add an order. */
  interval: number;
}

/** The order timing of one dish at a given α (public code's formula, same float order). */
export function dishTiming(dish: string, alpha: number): DishTiming {
  if (!recipeFor(dish)) throw new Error(`no recipe for "${dish}"`);
  const nodes = recipeNodes(dish);
  let busy = 0;
  for (const node of nodes) {
    const recipe = recipeFor(node);
    if (recipe) busy += Math.max(TOOLS[recipe.tool].busySteps - 1, 0);
  }
  const waitTime = busy + 3 * nodes.length;
  // Evaluated as the original does, left to right in doubles: α·wait first, then ·0.3, and the
  // lifetime as 2.5 times that product. Folding the constants instead can land just above a
  // whole number and round up one too many (0.75·2.2·60 is 99.00000000000001; this gives 99).
  const base = alpha * waitTime * 0.3;
  return { waitTime, lifetime: Math.ceil(2.5 * base), interval: Math.ceil(base) };
}

export interface LevelTiming {
  alpha: number;
  /** Steps between new orders: the largest interval among the level's dishes. */
  interval: number;
  /** Each dish's order lifetime. */
  lifetimes: Record<string, number>;
}

export function levelTiming(level: LevelSpec, alpha: number): LevelTiming {
  const lifetimes: Record<string, number> = {};
  let interval = 0;
  for (const dish of level.dishes) {
    const t = dishTiming(dish, alpha);
    lifetimes[dish] = t.lifetime;
    interval = Math.max(interval, t.interval);
  }
  return { alpha, interval, lifetimes };
}

export interface LevelIssue {
  level: string;
  kind: 'missing-tool' | 'unknown-dish' | 'not-in-paper';
  dish?: string;
  message: string;
}

/** What is odd about a level: dishes its kitchen cannot make, and levels the paper never ran. */
export function checkLevel(level: LevelSpec): LevelIssue[] {
  const issues: LevelIssue[] = [];
  for (const dish of level.dishes) {
    if (!recipeFor(dish)) {
      issues.push({
        level: level.id,
        kind: 'unknown-dish',
        dish,
        message: `${dish} has no recipe`,
      });
      continue;
    }
    const missing = toolsFor(dish).filter((tool) => !level.kitchen[tool]);
    if (missing.length > 0) {
      issues.push({
        level: level.id,
        kind: 'missing-tool',
        dish,
        message: `${dish} needs ${missing.join(', ')}, which this kitchen does not have; its orders can only fail`,
      });
    }
  }
  if (level.source === 'final' && level.class === null) {
    issues.push({
      level: level.id,
      kind: 'not-in-paper',
      message: `${level.title} is in the public code but in none of the paper's tables`,
    });
  }
  return issues;
}

/** Whether a dish can be made in a level's kitchen at all. */
export function canMake(level: LevelSpec, dish: string): boolean {
  return !!recipeFor(dish) && toolsFor(dish).every((tool) => !!level.kitchen[tool]);
}
