/**
 * A greedy dispatcher for CuisineWorld that needs no model: a yardstick for planners and a
 * source of worked demonstrations.
 *
 * Each step it reads the world afresh (it keeps no memory): it takes the open orders most
 * urgent first, drops those it reckons cannot be finished in time, and walks each remaining
 * order's recipe graph backwards, matching every need with something that already exists (a
 * dish on the serving table, an item an agent carries, a product waiting in a tool) or with
 * work: fetch an ingredient from storage, load it into a tool claimed for the recipe, switch
 * the tool on, carry the product on. Agents that carry something take it where it is needed;
 * the others take the most urgent jobs, those standing where a job is done first. Every
 * command is checked against the world before it is kept (a refused one becomes `noop`), so
 * the dispatcher only ever sends commands that run.
 *
 * It does not cook ahead for orders that have not arrived, though the public code's serving
 * table would accept such dishes and complete a later order with them at once.
 */
import { type Recipe, TOOLS, type ToolType, WASTE } from './data.ts';
import { isBaseIngredient } from './levels.ts';
import { type CuisineWorld, type PlaceState, type WorldState, without } from './world.ts';

type JobKind = 'deliver' | 'pickup' | 'fetch' | 'activate';

interface Job {
  kind: JobKind;
  /** Urgency: lower runs first. */
  rank: number;
  item?: string;
  /** Where the job starts (a tool to take from or activate; storage for a fetch). */
  at: string;
  /** Where the item goes. */
  to?: string;
  /** For a delivery: who carries the item. */
  agent?: string;
}

interface Supply {
  item: string;
  kind: 'held' | 'ready' | 'table';
  agent?: string;
  place?: string;
  busy: number;
  used: boolean;
}

const KIND_WEIGHT: Record<JobKind, number> = { activate: 0, pickup: 1, deliver: 1, fetch: 2 };

function isSubset(part: readonly string[], whole: readonly string[]): boolean {
  return without(part, whole).length === 0;
}

class Planner {
  readonly jobs: Job[] = [];
  readonly claimed = new Set<string>();
  readonly blocked = new Set<ToolType>();
  supplies: Supply[];
  #seq = 0;
  readonly recipes: Map<string, Recipe>;
  readonly storage: string;
  readonly serving: string;

  readonly state: Readonly<WorldState>;
  readonly world: CuisineWorld;

  constructor(state: Readonly<WorldState>, world: CuisineWorld) {
    this.state = state;
    this.world = world;
    const config = world.config;
    this.recipes = new Map(config.recipes.map((r) => [r.product, r]));
    this.storage = config.locations.find((l) => TOOLS[l.tool].role === 'storage')!.id;
    this.serving = config.locations.find((l) => TOOLS[l.tool].role === 'serving')!.id;
    this.supplies = [];
    for (const a of state.agents) {
      if (a.hold && a.hold !== WASTE) {
        this.supplies.push({ item: a.hold, kind: 'held', agent: a.id, busy: 0, used: false });
      }
    }
    for (const p of state.places) {
      const role = config.tools[p.tool].role;
      if (role === 'serving') {
        for (const item of p.contents) {
          this.supplies.push({ item, kind: 'table', place: p.id, busy: 0, used: false });
        }
      } else if (role === 'cooking' && p.cooked && p.contents.length === 1) {
        const item = p.contents[0]!;
        if (item !== WASTE) {
          this.supplies.push({ item, kind: 'ready', place: p.id, busy: p.busy, used: false });
        }
      }
    }
    // A product still being cooked is taken last, so free ones are used first.
    this.supplies.sort((a, b) => a.busy - b.busy);
  }

  #push(job: Omit<Job, 'rank'>, base: number): void {
    this.jobs.push({ ...job, rank: base + KIND_WEIGHT[job.kind] * 100 + (this.#seq++ % 100) });
  }

  #take(item: string, kinds: Supply['kind'][]): Supply | undefined {
    for (const kind of kinds) {
      const s = this.supplies.find((x) => !x.used && x.kind === kind && x.item === item);
      if (s) {
        s.used = true;
        return s;
      }
    }
    return undefined;
  }

  #agentAt(id: string): string {
    return this.state.agents.find((a) => a.id === id)!.at;
  }

  /** A free tool of the recipe's type: empty, or holding only part of this recipe. */
  #choosePlace(recipe: Recipe): PlaceState | undefined {
    let best: PlaceState | undefined;
    for (const p of this.state.places) {
      if (p.tool !== recipe.tool || this.claimed.has(p.id) || p.cooked) continue;
      if (!isSubset(p.contents, recipe.ingredients)) continue;
      if (!best || p.contents.length > best.contents.length) best = p;
    }
    return best;
  }

  /**
   * Plans getting one `item` to location `to`; returns a rough count of steps it will take
   * (Infinity when no tool is free for it now).
   */
  need(item: string, to: string, base: number): number {
    if (to === this.serving && this.#take(item, ['table'])) return 1;
    const held = this.#take(item, ['held']);
    if (held) {
      this.#push({ kind: 'deliver', item, at: to, to, agent: held.agent! }, base);
      return this.#agentAt(held.agent!) === to ? 1 : 2;
    }
    const ready = this.#take(item, ['ready']);
    if (ready) {
      this.#push({ kind: 'pickup', item, at: ready.place!, to }, base);
      return Math.max(ready.busy, 1) + 3;
    }
    if (isBaseIngredient(item)) {
      this.#push({ kind: 'fetch', item, at: this.storage, to }, base);
      return 4;
    }
    const recipe = this.recipes.get(item);
    if (!recipe) return Number.POSITIVE_INFINITY;
    const place = this.#choosePlace(recipe);
    if (!place) {
      this.blocked.add(recipe.tool);
      return Number.POSITIVE_INFINITY;
    }
    return this.#load(place, recipe, base) + 3;
  }

  /** Plans filling `place` for `recipe` and switching it on; steps until its product is ready. */
  #load(place: PlaceState, recipe: Recipe, base: number): number {
    this.claimed.add(place.id);
    const missing = without(recipe.ingredients, place.contents);
    let prep = 0;
    if (missing.length === 0) this.#push({ kind: 'activate', at: place.id }, base);
    for (const ingredient of missing) prep = Math.max(prep, this.need(ingredient, place.id, base));
    const tool = this.world.config.tools[recipe.tool];
    return prep + 1 + Math.max(tool.busySteps - 1, 0);
  }

  /** Runs `plan`, and undoes it when it returns false. */
  attempt(plan: () => boolean): void {
    const jobs = this.jobs.length;
    const claimed = new Set(this.claimed);
    const used = this.supplies.map((s) => s.used);
    if (plan()) return;
    this.jobs.length = jobs;
    this.claimed.clear();
    for (const id of claimed) this.claimed.add(id);
    this.supplies.forEach((s, i) => {
      s.used = used[i]!;
    });
  }

  /**
   * Frees tools of a type some order is waiting for: a product nobody needs is carried away, a
   * half-loaded tool is completed to some recipe and switched on.
   */
  unblock(base: number): void {
    for (const p of this.state.places) {
      if (!this.blocked.has(p.tool) || this.claimed.has(p.id) || p.contents.length === 0) continue;
      if (p.cooked) {
        const s = this.supplies.find((x) => !x.used && x.kind === 'ready' && x.place === p.id);
        if (s || p.contents.includes(WASTE)) {
          if (s) s.used = true;
          this.claimed.add(p.id);
          this.#push({ kind: 'pickup', item: p.contents[0]!, at: p.id }, base);
        }
        continue;
      }
      const recipe = this.world.config.recipes.find(
        (r) => r.tool === p.tool && isSubset(p.contents, r.ingredients),
      );
      if (recipe) this.attempt(() => this.#load(p, recipe, base) < Number.POSITIVE_INFINITY);
    }
  }
}

/** Where an item nobody needs goes: an ordered dish onto the serving table, the rest to storage. */
function dropSpot(world: CuisineWorld, item: string, planner: Planner): string {
  return world.config.level.dishes.includes(item) ? planner.serving : planner.storage;
}

/**
 * One command per agent, each checked to run; agents in order `agent0`, `agent1`, … With
 * `only`, commands for just those agents (the others are played by people, whose commands
 * come after these).
 */
export function greedyCommands(world: CuisineWorld, only?: readonly string[]): string[] {
  const state = world.view();
  const controls = (id: string) => !only || only.includes(id);
  const planner = new Planner(state, world);

  // Orders, most urgent first. One that cannot be finished in time is planned only after all
  // the others: what is made for it may still serve a later order of the same dish.
  const late: number[] = [];
  state.orders.forEach((order, index) => {
    planner.attempt(() => {
      const steps = planner.need(order.dish, planner.serving, index * 1000);
      if (steps <= order.lifetime + 1) return true;
      late.push(index);
      return false;
    });
  });
  for (const index of late) {
    const order = state.orders[index]!;
    planner.need(order.dish, planner.serving, (state.orders.length + index) * 1000);
  }
  planner.unblock(1_000_000);

  // Who does what: carriers take their deliveries; empty-handed agents take the other jobs,
  // first those standing where one is done, then the rest by urgency.
  const jobs = [...planner.jobs].sort((a, b) => a.rank - b.rank);
  const assigned = new Map<string, Job>();
  const taken = new Set<Job>();
  for (const job of jobs) {
    if (job.kind === 'deliver' && !assigned.has(job.agent!)) {
      assigned.set(job.agent!, job);
      taken.add(job);
    }
  }
  const free = state.agents.filter((a) => controls(a.id) && !a.hold && a.busy === 0);
  const open = () => jobs.filter((j) => j.kind !== 'deliver' && !taken.has(j));
  for (const agent of free) {
    const near = open()
      .slice(0, free.length + 1)
      .find((j) => j.at === agent.at);
    if (near) {
      assigned.set(agent.id, near);
      taken.add(near);
    }
  }
  for (const agent of free) {
    if (assigned.has(agent.id)) continue;
    const next = open()[0];
    if (!next) break;
    assigned.set(agent.id, next);
    taken.add(next);
  }
  const workLeft = open().length > 0;

  const commands: string[] = [];
  let preview = world;
  for (const agent of state.agents) {
    if (!controls(agent.id)) continue;
    const now = preview.view().agents.find((a) => a.id === agent.id)!;
    const job = assigned.get(agent.id);
    const candidates: string[] = [];
    const go = (where: string, then: string) =>
      candidates.push(now.at === where ? then : `goto_${agent.id}_${where}`);
    if (job) {
      if (job.kind === 'deliver') go(job.to!, `put_${agent.id}_${job.to}`);
      else if (job.kind === 'fetch') go(job.at, `get_${agent.id}_${job.item}_${job.at}`);
      else if (job.kind === 'activate') go(job.at, `activate_${agent.id}_${job.at}`);
      else go(job.at, `get_${agent.id}_${job.at}`);
    } else if (now.hold && (workLeft || now.hold === WASTE)) {
      // Carrying something nobody needs while there is work: put it away.
      const spot = dropSpot(world, now.hold, planner);
      go(spot, `put_${agent.id}_${spot}`);
    }
    candidates.push(`noop_${agent.id}`);
    for (const command of candidates) {
      const trial = preview.preview([command]);
      if (trial.validation.ok) {
        commands.push(command);
        preview = trial.world;
        break;
      }
    }
  }
  return commands;
}
