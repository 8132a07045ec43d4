/**
 * A dispatcher that reads nothing but its prompt: the rules and recipes the briefing states, and
 * the state text of the current step (`at`, `hold`, `inside`, `occupy`, the open orders). It is
 * what simulated runs answer with, so a simulated episode plays, and it never looks at the
 * world itself: what the prompt does not say (how long a tool stays busy, orders to come), it
 * does not know.
 *
 * The policy is greedy and keeps no memory: each step it walks the most urgent orders' recipes
 * backwards, matching every need with what the state shows (an item held, a product waiting in
 * a tool) or with work (fetch from storage, load a tool, switch it on, carry the product on),
 * and gives each agent the first job it can do. Cruder than the greedy baseline, which checks
 * every command on a copy of the world; its refusals are the feedback a model would get.
 */

interface Recipe {
  ingredients: string[];
  tool: string;
}

interface AgentView {
  id: string;
  at: string;
  hold: string | null;
  busy: boolean;
}

interface PlaceView {
  id: string;
  tool: string;
  contents: string[];
  busy: boolean;
}

/** What the prompt says of the kitchen. */
interface KitchenView {
  agents: AgentView[];
  places: PlaceView[];
  /** Open orders' dishes, most urgent first. */
  orders: string[];
  recipes: Map<string, Recipe>;
  base: Set<string>;
  storage: string;
  serving: string;
  /** The agents to command (the prompt's "You command …"), in order. */
  controlled: string[];
}

type Job =
  | { kind: 'deliver'; agent: string; to: string }
  | { kind: 'fetch'; item: string }
  | { kind: 'pickup'; place: string }
  | { kind: 'activate'; place: string };

const toolOf = (place: string) => place.replace(/\d+$/, '');
const items = (text: string) =>
  text.trim() === 'nothing' ? [] : text.split('&').map((s) => s.trim());

/** The items of `need` not in `have`, as multisets. */
function missing(need: readonly string[], have: readonly string[]): string[] {
  const left = [...have];
  return need.filter((item) => {
    const i = left.indexOf(item);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/**
 * Reads the kitchen from the prompt's texts (oldest first), or undefined when they hold no
 * briefing and state: the rules from the message that lists the recipes, the state from the
 * last message that shows one.
 */
export function readKitchen(texts: readonly string[]): KitchenView | undefined {
  const rules = texts.find((t) => /^Recipes:$/m.test(t));
  const state = texts.findLast((t) => /^agents:$/m.test(t) && /^kitchen:$/m.test(t));
  if (!rules || !state) return undefined;
  const recipes = new Map<string, Recipe>();
  const recipeText = rules.slice(rules.search(/^Recipes:$/m)).split(/\n\s*\n/)[0]!;
  for (const m of recipeText.matchAll(/^(\w+): put (.+) into an? (\w+), then activate it$/gm)) {
    recipes.set(m[1]!, { ingredients: m[2]!.split(' + ').map((s) => s.trim()), tool: m[3]! });
  }
  const base = new Set(
    (/^Base ingredients in storage: (.+)\.$/m.exec(rules)?.[1] ?? '').split(/,\s*/),
  );
  const locations = (/Locations: ([^\n]+)\.$/m.exec(rules)?.[1] ?? '').split(/,\s*/);
  const agents: AgentView[] = [];
  for (const m of state.matchAll(/^\s*at\((agent\d+), (\w+)\)$/gm)) {
    agents.push({ id: m[1]!, at: m[2]!, hold: null, busy: false });
  }
  for (const a of agents) {
    const held = new RegExp(`^\\s*hold\\(${a.id}, (\\w+)\\)$`, 'm').exec(state)?.[1];
    a.hold = held && held !== 'nothing' ? held : null;
    a.busy = new RegExp(`^\\s*occupy\\(${a.id}\\)$`, 'm').test(state);
  }
  const places: PlaceView[] = [];
  for (const m of state.matchAll(/^\s*inside\((\w+), ([^)]*)\)$/gm)) {
    const id = m[1]!;
    const busy = new RegExp(`^\\s*occupy\\(${id}\\)$`, 'm').test(state);
    places.push({ id, tool: toolOf(id), contents: items(m[2]!), busy });
  }
  const orderBlock = /^orders[^\n]*:\n((?:[ \t]+[^\n]*\n)*)/m.exec(state)?.[1] ?? '';
  const orders = [...orderBlock.matchAll(/^\s+(\w+): \d+$/gm)].map((m) => m[1]!);
  const named = /You command \d+ agents? \(([^)]*)\)/.exec(texts.join('\n'))?.[1];
  const controlled = named ? named.split(/,\s*/) : agents.map((a) => a.id);
  const storage = locations.find((l) => toolOf(l) === 'storage') ?? 'storage0';
  const serving = locations.find((l) => toolOf(l) === 'servingtable') ?? 'servingtable0';
  return { agents, places, orders, recipes, base, storage, serving, controlled };
}

/** Plans the jobs that bring the open orders closer, most urgent first. */
class JobPlan {
  readonly jobs: Job[] = [];
  readonly #claimed = new Set<string>();
  readonly #heldUsed = new Set<string>();
  readonly #readyUsed = new Set<string>();
  readonly #k: KitchenView;

  constructor(kitchen: KitchenView) {
    this.#k = kitchen;
  }

  /** A product waiting in a tool of its recipe's type (what an activation left there). */
  #ready(place: PlaceView): string | undefined {
    const [only] = place.contents;
    if (place.contents.length !== 1 || !only) return undefined;
    return this.#k.recipes.get(only)?.tool === place.tool ? only : undefined;
  }

  /** Plans bringing `item` to `to`; false when no free tool can make it now. */
  need(item: string, to: string): boolean {
    const holder = this.#k.agents.find((a) => a.hold === item && !this.#heldUsed.has(a.id));
    if (holder) {
      this.#heldUsed.add(holder.id);
      this.jobs.push({ kind: 'deliver', agent: holder.id, to });
      return true;
    }
    const waiting = this.#k.places.find(
      (p) => this.#ready(p) === item && !this.#readyUsed.has(p.id) && !this.#claimed.has(p.id),
    );
    if (waiting) {
      this.#readyUsed.add(waiting.id);
      this.jobs.push({ kind: 'pickup', place: waiting.id });
      return true;
    }
    if (this.#k.base.has(item)) {
      this.jobs.push({ kind: 'fetch', item });
      return true;
    }
    const recipe = this.#k.recipes.get(item);
    if (!recipe) return false;
    // A free tool of the recipe's type, empty or part-loaded for this recipe: fullest first.
    const place = this.#k.places
      .filter(
        (p) =>
          p.tool === recipe.tool &&
          !this.#claimed.has(p.id) &&
          !this.#ready(p) &&
          missing(p.contents, recipe.ingredients).length === 0,
      )
      .sort((a, b) => b.contents.length - a.contents.length)[0];
    if (!place) return false;
    this.#claimed.add(place.id);
    const lacking = missing(recipe.ingredients, place.contents);
    if (lacking.length === 0) {
      this.jobs.push({ kind: 'activate', place: place.id });
      return true;
    }
    return lacking.every((ingredient) => this.need(ingredient, place.id));
  }

  /** Plans one order's dish, undoing the plan when it cannot be made now. */
  order(dish: string): void {
    const saved = {
      jobs: this.jobs.length,
      claimed: new Set(this.#claimed),
      held: new Set(this.#heldUsed),
      ready: new Set(this.#readyUsed),
    };
    if (this.need(dish, this.#k.serving)) return;
    this.jobs.length = saved.jobs;
    for (const [set, before] of [
      [this.#claimed, saved.claimed],
      [this.#heldUsed, saved.held],
      [this.#readyUsed, saved.ready],
    ] as const) {
      set.clear();
      for (const x of before) set.add(x);
    }
  }

  /** Where an item the plan does not use goes: an ordered dish to the table, the rest away. */
  dropSpot(item: string): string {
    return this.#k.orders.includes(item) ? this.#k.serving : this.#k.storage;
  }
}

/** The command that moves `agent` on with `job`: walk there first, then act. */
function commandFor(agent: AgentView, job: Job, kitchen: KitchenView): string {
  const go = (where: string, then: string) =>
    agent.at === where ? then : `goto_${agent.id}_${where}`;
  switch (job.kind) {
    case 'deliver':
      return go(job.to, `put_${agent.id}_${job.to}`);
    case 'fetch':
      return go(kitchen.storage, `get_${agent.id}_${job.item}_${kitchen.storage}`);
    case 'pickup': {
      const busy = kitchen.places.find((p) => p.id === job.place)?.busy;
      return go(job.place, busy ? `noop_${agent.id}` : `get_${agent.id}_${job.place}`);
    }
    case 'activate':
      return go(job.place, `activate_${agent.id}_${job.place}`);
    default:
      return job satisfies never;
  }
}

/** Where a job is done, to prefer the jobs an agent already stands at. */
function jobPlace(job: Job, kitchen: KitchenView): string {
  switch (job.kind) {
    case 'deliver':
      return job.to;
    case 'fetch':
      return kitchen.storage;
    default:
      return job.place;
  }
}

/** One command per controlled agent, from the kitchen the prompt shows. */
export function commandsFromKitchen(kitchen: KitchenView): string[] {
  const plan = new JobPlan(kitchen);
  for (const dish of kitchen.orders) plan.order(dish);
  const open = plan.jobs.filter((j) => j.kind !== 'deliver');
  const commands: string[] = [];
  for (const id of kitchen.controlled) {
    const agent = kitchen.agents.find((a) => a.id === id);
    if (!agent) continue;
    if (agent.busy) {
      commands.push(`noop_${id}`);
      continue;
    }
    if (agent.hold) {
      const delivery = plan.jobs.find((j) => j.kind === 'deliver' && j.agent === id);
      const to = delivery?.kind === 'deliver' ? delivery.to : plan.dropSpot(agent.hold);
      commands.push(agent.at === to ? `put_${id}_${to}` : `goto_${id}_${to}`);
      continue;
    }
    const job = open.find((j) => jobPlace(j, kitchen) === agent.at) ?? open[0];
    if (!job) {
      commands.push(`noop_${id}`);
      continue;
    }
    open.splice(open.indexOf(job), 1);
    commands.push(commandFor(agent, job, kitchen));
  }
  return commands;
}

/**
 * The commands for this step read from a dispatcher's prompt (its messages' texts, oldest
 * first), one per line; empty when the prompt shows no kitchen.
 */
export function commandsFromPrompt(texts: readonly string[]): string[] {
  const kitchen = readKitchen(texts);
  return kitchen ? commandsFromKitchen(kitchen) : [];
}
