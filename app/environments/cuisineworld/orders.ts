/**
 * Orders over an episode: where the next one comes from, how served dishes complete them and
 * expired ones fail, and how time brings new ones (every `interval` steps, up to the cap).
 */
import type { WorldConfig } from './config.ts';
import type { OrderState, WorldState } from './state.ts';

/** Least lifetime first, ties by dish name: the order the world keeps open orders in. */
export function byUrgency(a: OrderState, b: OrderState): number {
  if (a.lifetime !== b.lifetime) return a.lifetime - b.lifetime;
  return a.dish < b.dish ? -1 : a.dish > b.dish ? 1 : 0;
}

/** The next order's dish: the order source's while it lasts, else a seeded draw via `draw`. */
function nextDish(state: WorldState, config: WorldConfig, draw: () => number): string {
  const source = config.orderSource;
  if (typeof source === 'function') {
    return source({
      step: state.step,
      open: state.orders.map((o) => o.dish),
      dishes: config.level.dishes,
      random: draw,
    });
  }
  if (source && state.sourceUsed < source.length) return source[state.sourceUsed++]!;
  // Uniform over the level's dishes, as the public code draws them.
  return config.level.dishes[Math.floor(draw() * config.level.dishes.length)]!;
}

/** Opens an order for the next dish; a source giving a dish the level lacks is an error. */
export function addOrder(state: WorldState, config: WorldConfig, draw: () => number): void {
  const dish = nextDish(state, config, draw);
  if (!config.level.dishes.includes(dish)) {
    throw new Error(`order source gave ${dish}, not a dish of ${config.level.id}`);
  }
  state.orders.push({
    id: state.nextOrderId++,
    dish,
    lifetime: config.lifetimes[dish]!,
    arrivedAt: state.step,
  });
  state.orders.sort(byUrgency);
}

/**
 * Orders out of time fail; then each open order, most urgent first, takes its dish from a
 * serving table if one is there (the dish is used up). Returns the dishes of both.
 */
export function settleOrders(
  state: WorldState,
  config: WorldConfig,
): { completed: string[]; failed: string[] } {
  const failed: string[] = [];
  const completed: string[] = [];
  const open: OrderState[] = [];
  for (const order of state.orders) {
    if (order.lifetime <= 0) failed.push(order.dish);
    else open.push(order);
  }
  const remaining: OrderState[] = [];
  for (const order of open) {
    const table = state.places.find(
      (p) => config.tools[p.tool].role === 'serving' && p.contents.includes(order.dish),
    );
    if (table) {
      table.contents.splice(table.contents.indexOf(order.dish), 1);
      completed.push(order.dish);
    } else remaining.push(order);
  }
  state.orders = remaining;
  state.accomplished.push(...completed);
  state.expired.push(...failed);
  return { completed, failed };
}

/**
 * Time moves on: lifetimes shrink and, every interval steps, an order arrives if fewer than
 * the cap are open.
 */
export function passTime(state: WorldState, config: WorldConfig, draw: () => number): void {
  state.step++;
  for (const order of state.orders) order.lifetime--;
  if (
    config.interval > 0 &&
    state.step % config.interval === 0 &&
    state.orders.length < config.orderCap
  ) {
    addOrder(state, config, draw);
  }
  state.orders.sort(byUrgency);
}
