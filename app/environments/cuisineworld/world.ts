/**
 * CuisineWorld: MindAgent's text kitchen (Gong et al., Sec. 3), as a deterministic simulator.
 *
 * Agents walk between storage, the serving table and cooking tools, carry one thing at a time,
 * load tools, switch them on and serve dishes for orders that arrive over time and expire. A
 * step takes one command per agent, `verb_agentN[_item][_location]`; the commands run one after
 * another, so an agent can use what another has just put down.
 *
 * The paper fixes the entities, predicates and verbs; the rules it defers to its appendix
 * (preconditions, capacities, busy times, the step order, order timing, the six-order cap,
 * waste) follow the authors' public code, re-written here. Where this file departs from that
 * code it says so.
 */
import { seededRandom } from '../../runtime/random.ts';
import type {
  Environment,
  EpisodeMetrics,
  Rejection,
  ResetOptions,
  StepResult,
  Validation,
} from '../types.ts';
import {
  BASE_INGREDIENTS,
  type LevelSpec,
  type Recipe,
  TOOL_TYPES,
  TOOLS,
  type ToolSpec,
  type ToolType,
  WASTE,
} from './data.ts';
import {
  getLevel,
  isBaseIngredient,
  kitchenLocations,
  knownItems,
  levelTiming,
  recipesFor,
  TAU_ALPHAS,
} from './levels.ts';

export const VERBS = ['noop', 'goto', 'get', 'put', 'activate'] as const;
export type Verb = (typeof VERBS)[number];

/** Finds commands in free text (a model's answer): every match, in order, is one command. */
/**
 * What a command looks like in free text. Any verb-shaped word is read, not only the five
 * actions, so an unknown verb reaches the vocabulary stage and is refused with a reason instead
 * of vanishing silently.
 */
export const COMMAND_PATTERN = /\b[A-Za-z]+_agent\d+(?:_[A-Za-z0-9]+)*/g;

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
  tools?: Partial<Record<ToolType, ToolOverride>>;
}

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
  step: number;
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
  tools: Record<ToolType, ToolSpec>;
  /** The recipes this level's dishes need; only these cook (as in the public code). */
  recipes: readonly Recipe[];
  locations: ReadonlyArray<{ id: string; tool: ToolType }>;
}

/** One command read from its text. */
export interface ParsedCommand {
  text: string;
  verb: Verb;
  agent: string;
  agentIndex: number;
  location?: string;
  item?: string;
}

const ITEMS = knownItems();

function cookKey(contents: readonly string[], tool: ToolType): string {
  return `${[...contents].sort().join('&')}@${tool}`;
}

/** Items of `items` left after taking out `taken` (as multisets). */
export function without(items: readonly string[], taken: readonly string[]): string[] {
  const rest = [...items];
  for (const t of taken) {
    const i = rest.indexOf(t);
    if (i >= 0) rest.splice(i, 1);
  }
  return rest;
}

function byUrgency(a: OrderState, b: OrderState): number {
  if (a.lifetime !== b.lifetime) return a.lifetime - b.lifetime;
  return a.dish < b.dish ? -1 : a.dish > b.dish ? 1 : 0;
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
    tools,
    recipes: recipesFor(level.dishes),
    locations: kitchenLocations(level),
  };
}

const ARITY: Record<Verb, { min: number; max: number; form: string }> = {
  noop: { min: 0, max: 0, form: 'noop_agentN' },
  goto: { min: 1, max: 1, form: 'goto_agentN_location' },
  activate: { min: 1, max: 1, form: 'activate_agentN_location' },
  put: { min: 1, max: 2, form: 'put_agentN_location' },
  get: { min: 1, max: 2, form: 'get_agentN_location, or get_agentN_item_storage0 at storage' },
};

type Parse = { ok: true; command: ParsedCommand } | { ok: false; rejection: Rejection };

/**
 * Reads one command and checks its words against the world: the syntax stage (the shape
 * `verb_agentN[_arg][_arg]` and the verb's number of arguments) and the vocabulary stage
 * (known verb, an agent that exists, a location in this kitchen, a known item, an item for a
 * storage `get`).
 */
export function parseCommand(raw: string, config: WorldConfig): Parse {
  const text = raw.trim();
  const fail = (
    stage: Rejection['stage'],
    reason: string,
    message: string,
    agent?: string,
  ): Parse => ({
    ok: false,
    rejection: { command: raw, ...(agent ? { agent } : {}), stage, reason, message },
  });
  // `agent01` is not agent1: ids are written without leading zeros, so a seat cannot be dodged.
  const m = /^([A-Za-z]+)_agent(0|[1-9]\d*)((?:_[A-Za-z0-9]+)*)$/.exec(text);
  if (!m) {
    return fail(
      'syntax',
      'bad-syntax',
      `"${raw}" is not a command; write verb_agentN[_item][_location], e.g. goto_agent0_storage0`,
    );
  }
  const verbWord = m[1]!;
  const agentIndex = Number(m[2]);
  const agent = `agent${agentIndex}`;
  const args = m[3] ? m[3].slice(1).split('_') : [];
  const verb = (VERBS as readonly string[]).includes(verbWord) ? (verbWord as Verb) : undefined;
  if (verb) {
    const arity = ARITY[verb];
    if (args.length < arity.min || args.length > arity.max) {
      return fail(
        'syntax',
        'bad-arity',
        `"${raw}" has ${args.length} argument${args.length === 1 ? '' : 's'} after the agent; ${verb} is written ${arity.form}`,
        agent,
      );
    }
  } else if (args.length > 2) {
    return fail('syntax', 'bad-syntax', `"${raw}" has too many parts to be a command`, agent);
  }
  if (!verb) {
    return fail(
      'vocabulary',
      'unknown-verb',
      `${verbWord} is not an action; the actions are noop, goto, get, put and activate`,
      agent,
    );
  }
  if (agentIndex >= config.agents) {
    return fail(
      'vocabulary',
      'unknown-agent',
      `there is no ${agent}; the agents are agent0 to agent${config.agents - 1}`,
      agent,
    );
  }
  const command: ParsedCommand = { text, verb, agent, agentIndex };
  if (verb === 'noop') return { ok: true, command };
  const location = args[args.length - 1]!;
  const place = config.locations.find((l) => l.id === location);
  if (!place) {
    return fail(
      'vocabulary',
      'unknown-location',
      `for ${agent}, ${location} is not in this kitchen`,
      agent,
    );
  }
  command.location = location;
  if (args.length === 2) {
    const item = args[0]!;
    if (!ITEMS.has(item) && item !== WASTE) {
      return fail(
        'vocabulary',
        'unknown-item',
        `for ${agent}, ${item} is not an item of this world`,
        agent,
      );
    }
    command.item = item;
  }
  if (verb === 'get' && config.tools[place.tool].role === 'storage' && !command.item) {
    return fail(
      'vocabulary',
      'missing-item',
      `for ${agent}, say which ingredient to get from ${location}: get_${agent}_<ingredient>_${location}`,
      agent,
    );
  }
  return { ok: true, command };
}

function names(items: readonly string[]): string {
  return items.length === 0 ? 'nothing' : items.join(' & ');
}

/**
 * The rules of one command, checked against the state as it is when the command's turn comes
 * and applied if they hold. Checks come in the public code's order, and the first that fails is
 * the one reported (the public code sometimes reports several at once).
 */
function apply(state: WorldState, config: WorldConfig, cmd: ParsedCommand): Rejection | null {
  const refuse = (reason: string, message: string): Rejection => ({
    command: cmd.text,
    agent: cmd.agent,
    stage: 'precondition',
    reason,
    message,
  });
  const agent = state.agents[cmd.agentIndex]!;
  if (cmd.verb === 'noop') return null;
  const loc = cmd.location!;
  const place = state.places.find((p) => p.id === loc)!;
  const tool = config.tools[place.tool];
  const busyAgent = () =>
    refuse('agent-busy', `${agent.id} is occupied and can only noop until it is free`);
  if (cmd.verb === 'goto') {
    if (agent.busy > 0) return busyAgent();
    agent.at = loc;
    return null;
  }
  if (agent.at !== loc) return refuse('not-at-location', `${agent.id} is not at ${loc}`);

  if (cmd.verb === 'get') {
    const pickable =
      tool.role === 'storage' ||
      (tool.role === 'cooking' && (tool.pickableBeforeActivation || place.cooked));
    if (!pickable) {
      return refuse(
        'not-pickable',
        tool.role === 'serving'
          ? `nothing can be taken back from ${loc}`
          : `${agent.id} cannot take anything from ${loc} before it has been activated`,
      );
    }
    if (agent.busy > 0) return busyAgent();
    if (agent.hold) {
      return refuse(
        'hands-full',
        `${agent.id} is holding ${agent.hold} and cannot take anything more`,
      );
    }
    if (place.busy > 0) {
      return refuse(
        'location-busy',
        `${loc} is occupied, so ${agent.id} cannot take anything from it`,
      );
    }
    if (tool.role === 'storage') {
      if (!cmd.item || !isBaseIngredient(cmd.item)) {
        return refuse(
          'not-base-ingredient',
          `${agent.id} can only take base ingredients from ${loc}, and ${cmd.item} is not one`,
        );
      }
      agent.hold = cmd.item;
      return null;
    }
    if (place.contents.length === 0) {
      return refuse('empty-location', `${loc} is empty, there is nothing to take`);
    }
    // The public code takes whatever is inside (the item named in the command is ignored). A
    // mixture comes out as waste, the rule of an older version of that code; under the refusal
    // rule a tool never holds a mixture that can be taken, only the cooking rule makes one.
    agent.hold = place.contents.length === 1 ? place.contents[0]! : WASTE;
    place.contents = [];
    place.cooked = false;
    return null;
  }

  if (cmd.verb === 'put') {
    const held = agent.hold;
    if (tool.role === 'serving' && held && !config.level.dishes.includes(held)) {
      return refuse(
        'not-level-dish',
        `${held} is not a dish this level needs, so it cannot go on ${loc}`,
      );
    }
    if (
      tool.role === 'cooking' &&
      held &&
      config.wasteRule === 'refuse' &&
      !fits(config, place, held)
    ) {
      return refuse('put-waste', `putting ${held} into ${loc} would make waste`);
    }
    if (agent.busy > 0) return busyAgent();
    if (!held) return refuse('hands-empty', `${agent.id} holds nothing to put into ${loc}`);
    if (place.busy > 0) {
      return refuse('location-busy', `${loc} is occupied, so nothing can be put into it now`);
    }
    const merges = tool.role !== 'serving' && place.contents.includes(held);
    if (tool.capacity !== null && place.contents.length >= tool.capacity && !merges) {
      return refuse('full', `${loc} is full (it holds at most ${tool.capacity})`);
    }
    agent.hold = null;
    // Storage takes anything back (it is gone). Elsewhere a second copy of an item already
    // inside merges with it, so it is lost too; only the serving table keeps duplicates (an
    // order may be for two of a dish). Both as in the public code.
    if (tool.role === 'storage' || merges) return null;
    place.contents.push(held);
    return null;
  }

  // activate
  if (tool.role !== 'cooking') {
    // The public code answers "is empty" or "would make waste" here; we say what is meant.
    return refuse('not-activatable', `${loc} is not a cooking tool and cannot be activated`);
  }
  if (agent.busy > 0) return busyAgent();
  if (agent.hold) {
    return refuse('hands-full', `${agent.id} is holding ${agent.hold} and cannot activate ${loc}`);
  }
  if (place.busy > 0)
    return refuse('location-busy', `${loc} is occupied and cannot be activated again yet`);
  if (place.contents.length === 0)
    return refuse('empty-location', `${loc} is empty, there is nothing to activate`);
  const product = cookedProduct(config, place.contents, place.tool);
  if (product === WASTE && config.wasteRule === 'refuse') {
    return refuse(
      'activate-waste',
      `activating ${loc} would make waste: ${names(place.contents)} is no recipe of this level for a ${place.tool}`,
    );
  }
  // The content turns into the product at once; the tool (and, for a chopboard, the agent)
  // is then occupied for its busy steps.
  place.contents = [product];
  place.cooked = true;
  place.busy = tool.busySteps;
  if (tool.keepsAgentBusy) agent.busy = Math.max(agent.busy, tool.busySteps);
  return null;
}

const cookBooks = new WeakMap<readonly Recipe[], Map<string, string>>();

/** What activating a tool of `type` holding `contents` makes (waste when no recipe fits). */
export function cookedProduct(
  config: WorldConfig,
  contents: readonly string[],
  type: ToolType,
): string {
  let book = cookBooks.get(config.recipes);
  if (!book) {
    book = new Map(config.recipes.map((r) => [cookKey(r.ingredients, r.tool), r.product]));
    cookBooks.set(config.recipes, book);
  }
  return book.get(cookKey(contents, type)) ?? WASTE;
}

/**
 * Whether `item` can go into a tool without spoiling it: some recipe of this level for the
 * tool still lacks it, given what is inside; or the same item is already inside (it merges).
 */
export function fits(config: WorldConfig, place: PlaceState, item: string): boolean {
  for (const recipe of config.recipes) {
    if (recipe.tool !== place.tool) continue;
    if (!place.contents.every((c) => recipe.ingredients.includes(c))) continue;
    if (without(recipe.ingredients, place.contents).includes(item)) return true;
  }
  return place.contents.includes(item);
}

/** Runs commands on `state` in order; returns the validation and the commands that ran. */
function runCommands(
  state: WorldState,
  config: WorldConfig,
  commands: readonly string[],
): { validation: Validation; ran: ParsedCommand[]; parsed: ParsedCommand[] } {
  const rejections: Rejection[] = [];
  const parsed: ParsedCommand[] = [];
  for (const raw of commands) {
    const result = parseCommand(raw, config);
    if (result.ok) parsed.push(result.command);
    else rejections.push(result.rejection);
  }
  // A step with a malformed or unknown command is refused whole, as in the public code.
  if (rejections.length === 0) {
    const seen = new Set<string>();
    for (const cmd of parsed) {
      if (seen.has(cmd.agent)) {
        rejections.push({
          command: cmd.text,
          agent: cmd.agent,
          stage: 'assignment',
          reason: 'duplicate-agent',
          message: `agent ids cannot be the same: ${cmd.agent} was given more than one command`,
        });
      }
      seen.add(cmd.agent);
    }
  }
  if (rejections.length > 0) {
    return { validation: { ok: false, accepted: [], rejections }, ran: [], parsed };
  }
  const ran: ParsedCommand[] = [];
  for (const cmd of parsed) {
    const refused = apply(state, config, cmd);
    if (refused) rejections.push(refused);
    else ran.push(cmd);
  }
  return {
    validation: { ok: rejections.length === 0, accepted: ran.map((c) => c.text), rejections },
    ran,
    parsed,
  };
}

function copyState(state: WorldState): WorldState {
  return structuredClone(state);
}

const SUGGEST_WASTE = 'put the waste into the storage';

/** The CuisineWorld environment. Call `reset` before anything else. */
export class CuisineWorld implements Environment {
  readonly kind = 'cuisineworld';
  #config: WorldConfig | undefined;
  #state: WorldState | undefined;
  #random: () => number = () => 0;

  constructor(options?: ResetOptions) {
    if (options) this.reset(options);
  }

  get config(): WorldConfig {
    if (!this.#config) throw new Error('CuisineWorld: call reset() first');
    return this.#config;
  }

  get #s(): WorldState {
    if (!this.#state) throw new Error('CuisineWorld: call reset() first');
    return this.#state;
  }

  reset(options: ResetOptions): void {
    const config = worldConfig(options);
    this.#config = config;
    this.#random = seededRandom(config.seed);
    this.#state = {
      step: 0,
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
    // The episode opens with one order.
    this.#addOrder();
  }

  agents(): string[] {
    return this.#s.agents.map((a) => a.id);
  }

  /** The state itself, read-only by agreement (for planners; use `snapshot` to keep it). */
  view(): Readonly<WorldState> {
    return this.#s;
  }

  validate(commands: string[]): Validation {
    return runCommands(copyState(this.#s), this.config, commands).validation;
  }

  /** A copy of the world after the commands ran, before time moves on (for look-ahead). */
  preview(commands: string[]): { world: CuisineWorld; validation: Validation } {
    const world = this.clone();
    const validation = runCommands(world.#s, world.config, commands).validation;
    return { world, validation };
  }

  step(commands: string[]): StepResult {
    const state = this.#s;
    const config = this.config;
    if (state.done) {
      return {
        step: state.step,
        validation: { ok: false, accepted: [], rejections: [] },
        feedback: ['the episode is over'],
        suggestions: [],
        completed: [],
        failed: [],
        done: true,
      };
    }
    const { validation, ran, parsed } = runCommands(state, config, commands);
    const feedback = validation.rejections.map((r) => r.message);
    const refusedWhole = validation.rejections.some((r) => r.stage !== 'precondition');
    if (refusedWhole) {
      feedback.push(
        'The whole step was refused, so no agent acted; give one well-formed command per agent.',
      );
    } else if (parsed.length > 0 && parsed.every((c) => c.verb === 'noop')) {
      feedback.push('No agent did anything this step, which is unusual.');
    }

    // Tools and agents count down their busy time.
    for (const agent of state.agents) if (agent.busy > 0) agent.busy--;
    for (const place of state.places) if (place.busy > 0) place.busy--;

    // Orders: those out of time fail; then each open order, most urgent first, takes its dish
    // from a serving table if one is there (the dish is used up).
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

    // Time moves on: lifetimes shrink and, every interval steps, an order arrives if fewer than
    // the cap are open.
    state.step++;
    for (const order of state.orders) order.lifetime--;
    if (
      config.interval > 0 &&
      state.step % config.interval === 0 &&
      state.orders.length < config.orderCap
    ) {
      this.#addOrder();
    }
    state.orders.sort(byUrgency);

    const t = state.tally;
    t.completed += completed.length;
    t.failed += failed.length;
    if (failed.length > 0) t.failedSteps++;
    for (const r of validation.rejections) t.invalid[r.reason] = (t.invalid[r.reason] ?? 0) + 1;
    t.noops += ran.filter((c) => c.verb === 'noop').length;
    if (ran.every((c) => c.verb === 'noop')) t.idleSteps++;
    state.done = state.step >= config.maxSteps;

    return {
      step: state.step,
      validation,
      feedback,
      suggestions: this.suggestions(),
      completed,
      failed,
      done: state.done,
    };
  }

  /** Hints about the current state: the public code's one, to clear waste. */
  suggestions(): string[] {
    const s = this.#s;
    const waste =
      s.agents.some((a) => a.hold === WASTE) || s.places.some((p) => p.contents.includes(WASTE));
    return waste ? [SUGGEST_WASTE] : [];
  }

  render(): string {
    const s = this.#s;
    const c = this.config;
    const lines: string[] = [];
    const cls = c.level.class ? `, ${c.level.class}` : '';
    lines.push(`level: ${c.level.id} (${c.level.title}${cls})`);
    lines.push(`step: ${s.step} of ${c.maxSteps}`);
    lines.push('orders (dish: steps left), most urgent first:');
    if (s.orders.length === 0) lines.push('  none open');
    for (const o of s.orders) lines.push(`  ${o.dish}: ${o.lifetime}`);
    lines.push('agents:');
    for (const a of s.agents) {
      lines.push(`  at(${a.id}, ${a.at})`);
      lines.push(`  hold(${a.id}, ${a.hold ?? 'nothing'})`);
      if (a.busy > 0) lines.push(`  occupy(${a.id})`);
    }
    lines.push('kitchen:');
    for (const p of s.places) {
      lines.push(`  inside(${p.id}, ${names(p.contents)})`);
      if (p.busy > 0) lines.push(`  occupy(${p.id})`);
    }
    lines.push(
      `accomplished: ${s.accomplished.length > 0 ? s.accomplished.join(', ') : 'none yet'}`,
    );
    return lines.join('\n');
  }

  snapshot(): Record<string, unknown> {
    const s = this.#s;
    const c = this.config;
    return {
      kind: this.kind,
      level: c.level.id,
      levelClass: c.level.class,
      step: s.step,
      maxSteps: c.maxSteps,
      done: s.done,
      orders: s.orders.map((o) => ({
        id: o.id,
        dish: o.dish,
        lifetime: o.lifetime,
        arrivedAt: o.arrivedAt,
      })),
      agents: s.agents.map((a) => ({ id: a.id, at: a.at, hold: a.hold, occupied: a.busy > 0 })),
      locations: s.places.map((p) => ({
        id: p.id,
        tool: p.tool,
        contents: [...p.contents],
        occupied: p.busy > 0,
        busy: p.busy,
        cooked: p.cooked,
      })),
      accomplished: [...s.accomplished],
      failed: [...s.expired],
      timing: {
        alpha: c.alpha,
        interval: c.interval,
        lifetimes: { ...c.lifetimes },
        orderCap: c.orderCap,
      },
      metrics: { ...this.metrics(), noops: s.tally.noops, failedSteps: s.tally.failedSteps },
    };
  }

  metrics(): EpisodeMetrics {
    const s = this.#s;
    return {
      steps: s.step,
      completed: s.tally.completed,
      failed: s.tally.failed,
      open: s.orders.length,
      invalid: { ...s.tally.invalid },
      idleSteps: s.tally.idleSteps,
    };
  }

  clone(): CuisineWorld {
    const copy = new CuisineWorld();
    copy.#config = this.#config;
    copy.#state = this.#state ? copyState(this.#state) : undefined;
    if (this.#config) {
      copy.#random = seededRandom(this.#config.seed);
      for (let i = 0; i < (this.#state?.draws ?? 0); i++) copy.#random();
    }
    return copy;
  }

  /**
   * What a dispatcher should be told about this world, in our words: the rules, the level's
   * recipes and a few hints (MindAgent's "inference knowledge").
   */
  briefing(): { rules: string; knowledge: string; hints: string[] } {
    const c = this.config;
    const locations = c.locations.map((l) => l.id).join(', ');
    const tools = [...new Set(c.locations.map((l) => l.tool))]
      .filter((t) => c.tools[t].role === 'cooking')
      .map((t) => {
        const spec = c.tools[t];
        const busy = Math.max(spec.busySteps - 1, 0);
        return `- ${t}: holds up to ${spec.capacity ?? 'any number of'} items; ${
          busy > 0
            ? `occupied for ${busy} step${busy === 1 ? '' : 's'} after activation`
            : 'ready again at once'
        }${spec.keepsAgentBusy ? '; the agent works it by hand' : ''}${
          spec.pickableBeforeActivation ? '; things can be taken off it at any time' : ''
        }`;
      });
    const rules = [
      'You run a kitchen. Orders for dishes arrive over time and each must be served before its lifetime runs out.',
      `Agents: ${this.agents().join(', ')}. Locations: ${locations}.`,
      'Each step, give one command per agent; they run in the order given, so an agent can use what an earlier one has just done.',
      'Commands:',
      '- goto_agentN_location: walk to a location (one step, from anywhere).',
      '- get_agentN_ingredient_storage0: take one base ingredient from storage.',
      '- get_agentN_location: take what is inside a tool (cooking tools only after activation).',
      '- put_agentN_location: put what you hold into a tool, onto the serving table (ordered dishes only) or back into storage (it is thrown away).',
      '- activate_agentN_location: switch a cooking tool on; what is inside turns into the recipe’s product.',
      '- noop_agentN: do nothing.',
      'An agent holds one thing at a time, must stand at a location to use it, and cannot use an occupied tool.',
      `Base ingredients in storage: ${BASE_INGREDIENTS.join(', ')}.`,
      'Tools here:',
      ...tools,
    ].join('\n');
    const knowledge = c.recipes
      .map(
        (r) => `${r.product}: put ${r.ingredients.join(' + ')} into a ${r.tool}, then activate it`,
      )
      .join('\n');
    const hints = [
      'Only put into a tool what one of its recipes needs; anything else would make waste and is refused.',
      'Do not activate a tool until everything its recipe needs is inside.',
      'While a tool is occupied nothing can be put in or taken out; use the time for other work.',
      'Serve the most urgent order first, and split the fetching between agents.',
      'Read the feedback: a refused command did nothing.',
    ];
    return { rules, knowledge, hints };
  }

  #addOrder(): void {
    const s = this.#s;
    const c = this.config;
    const dish = this.#drawDish();
    if (!c.level.dishes.includes(dish)) {
      throw new Error(`order source gave ${dish}, not a dish of ${c.level.id}`);
    }
    s.orders.push({ id: s.nextOrderId++, dish, lifetime: c.lifetimes[dish]!, arrivedAt: s.step });
    s.orders.sort(byUrgency);
  }

  #draw = (): number => {
    this.#s.draws++;
    return this.#random();
  };

  #drawDish(): string {
    const s = this.#s;
    const c = this.config;
    const source = c.orderSource;
    if (typeof source === 'function') {
      return source({
        step: s.step,
        open: s.orders.map((o) => o.dish),
        dishes: c.level.dishes,
        random: this.#draw,
      });
    }
    if (source && s.sourceUsed < source.length) return source[s.sourceUsed++]!;
    // Uniform over the level's dishes, as the public code draws them.
    return c.level.dishes[Math.floor(this.#draw() * c.level.dishes.length)]!;
  }
}
