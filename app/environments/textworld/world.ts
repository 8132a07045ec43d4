/**
 * A text world in play: a loaded spec and its dynamic state, stepped by the agents' actions.
 * Deterministic: the same spec, seed and actions give the same state, to the byte, and the
 * state is plain JSON that `TextWorld.restore` turns back into the same world (a `world`
 * node carries it from round to round).
 */

import { seededRandom, shuffle } from '../../node-sdk/random.ts';
import { DocumentError, formatPath, type Problem } from '../../schema/problems.ts';
import type { WorldSpec } from './format.ts';
import type { Layout } from './layout.ts';
import { loadWorld } from './load.ts';
import { type Observation, observation, observe } from './observe.ts';
import { type ActionResult, actionSpace, applyAction, type Turn } from './rules.ts';
import {
  type Interaction,
  initialState,
  sortedStates,
  type TurnOrder,
  type WorldState,
  WorldStateSchema,
} from './state.ts';

export interface CreateOptions {
  /** Every random choice (the shuffled turn order) is drawn from this seed. Default 0. */
  seed?: string | number;
  /** How agents take turns within a step (default `fixed`, the world's agent order). */
  turnOrder?: TurnOrder;
}

/** One agent's action for a step; null (or absent from the list) is no action. */
export interface StepAction {
  agent: string;
  action: string | null;
}

/** What one agent's turn did. */
export interface TurnResult extends ActionResult {
  agent: string;
  /** The text it was given, as given. */
  given: string | null;
}

/** What a step did. */
export interface StepResult {
  /** The step just played (the first is 1). */
  step: number;
  /** Who acted, in turn order. */
  order: string[];
  /** Script entries due this step, done before the agents' turns. */
  script: TurnResult[];
  /** Each agent's turn, in turn order. */
  results: TurnResult[];
  /** The chats of this step, script's included, in the order they happened. */
  interactions: Interaction[];
}

export class TextWorld {
  readonly spec: WorldSpec;
  private readonly layout: Layout;
  private current: WorldState;
  /** Items taken since the current step began (for "X took it earlier this step"). */
  private taken = new Map<string, string>();

  private constructor(layout: Layout, state: WorldState) {
    this.layout = layout;
    this.spec = layout.spec;
    this.current = state;
  }

  /**
   * A world at step 0 from a spec (a parsed file, or JSON text). Throws a `DocumentError`
   * listing every problem when the spec is not a valid world.
   */
  static create(spec: unknown, options: CreateOptions = {}): TextWorld {
    const loaded = loadWorld(spec);
    if (!loaded.ok) throw new DocumentError(loaded.problems);
    return new TextWorld(
      loaded.layout,
      initialState(loaded.spec, options.seed ?? 0, options.turnOrder ?? 'fixed'),
    );
  }

  /** The world a saved state describes; throws a `DocumentError` when the state is not valid. */
  static restore(state: unknown): TextWorld {
    const parsed = WorldStateSchema.safeParse(state);
    if (!parsed.success) {
      throw new DocumentError(
        parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
      );
    }
    const loaded = loadWorld(parsed.data.spec);
    if (!loaded.ok) {
      throw new DocumentError(loaded.problems.map((p) => ({ ...p, path: `spec.${p.path}` })));
    }
    const problems: Problem[] = [];
    const { layout } = loaded;
    const agents: WorldState['agents'] = {};
    for (const id of layout.agents.keys()) {
      const agent = parsed.data.agents[id];
      if (!agent) problems.push({ path: `agents`, message: `no state for agent "${id}"` });
      else if (!layout.areas.has(agent.at))
        problems.push({ path: `agents.${id}.at`, message: `there is no area "${agent.at}"` });
      else agents[id] = { at: agent.at, doing: { ...agent.doing } };
    }
    const items: WorldState['items'] = {};
    for (const id of layout.items.keys()) {
      const item = parsed.data.items[id];
      if (!item) problems.push({ path: `items`, message: `no state for item "${id}"` });
      else if (!layout.furniture.has(item.at) && !layout.agents.has(item.at))
        problems.push({
          path: `items.${id}.at`,
          message: `there is no furniture or agent "${item.at}"`,
        });
      else items[id] = { at: item.at, states: sortedStates(item.states) };
    }
    for (const id of Object.keys(parsed.data.agents))
      if (!layout.agents.has(id)) problems.push({ path: 'agents', message: `no agent "${id}"` });
    for (const id of Object.keys(parsed.data.items))
      if (!layout.items.has(id)) problems.push({ path: 'items', message: `no item "${id}"` });
    if (problems.length > 0) throw new DocumentError(problems);
    return new TextWorld(layout, {
      format: parsed.data.format,
      step: parsed.data.step,
      seed: parsed.data.seed,
      turnOrder: parsed.data.turnOrder,
      agents,
      items,
      heard: parsed.data.heard.map((h) => ({ ...h })),
      spec: loaded.spec,
    });
  }

  /** The state as plain JSON (a deep copy: changing it changes nothing here). */
  state(): WorldState {
    return structuredClone(this.current);
  }

  /** Steps played so far (0 before the first). */
  stepsPlayed(): number {
    return this.current.step;
  }

  /** The agents' ids, in world order. */
  agents(): string[] {
    return [...this.layout.agents.keys()];
  }

  /** Where an agent is now (an area id), or undefined for an unknown agent. */
  whereIs(agent: string): string | undefined {
    return this.current.agents[agent]?.at;
  }

  /** The actions `agent` can take now, in canonical words (`chat with X` takes `: TEXT`). */
  actionSpace(agent: string): string[] {
    return actionSpace(this.layout, this.current, agent);
  }

  /** The observation of `agent` as text for a prompt. */
  observe(agent: string): string {
    return observe(this.layout, this.current, agent);
  }

  /** The observation of `agent` as JSON for the editor. */
  observation(agent: string): Observation | undefined {
    return observation(this.layout, this.current, agent);
  }

  /**
   * Does one action now, within the step being played, without advancing the step (for an
   * editor trying an action, or a person's turn). `step` calls this for every turn.
   */
  apply(agent: string, text: string | null): ActionResult {
    return applyAction(this.layout, this.current, agent, text, this.turn());
  }

  /**
   * The turn order of the next step: the world's agent order (`fixed`), or a shuffle of it
   * drawn from the seed and the step number (`shuffled`), so replaying a step, or restoring a
   * saved state and stepping, gives the same order. For `given`, the world's order.
   */
  turnOrder(): string[] {
    const agents = this.agents();
    if (this.current.turnOrder !== 'shuffled') return agents;
    const random = seededRandom(`${this.current.seed}:turns:${this.current.step + 1}`);
    return shuffle(agents, (n) => Math.floor(random() * n));
  }

  /**
   * Plays one step: the script entries due at it, then each agent's action in turn order.
   * An agent missing from `actions` takes no action; an unknown agent, or a second action for
   * the same agent, is refused in the result and changes nothing.
   */
  step(actions: readonly StepAction[]): StepResult {
    const step = this.current.step + 1;
    this.taken = new Map();
    this.current.heard = [];
    const script = (this.spec.script ?? [])
      .filter((entry) => entry.step === step)
      .map((entry) => ({
        agent: entry.agent,
        given: entry.action,
        ...this.apply(entry.agent, entry.action),
      }));
    const byAgent = new Map<string, string | null>();
    const refused: TurnResult[] = [];
    for (const { agent, action } of actions) {
      if (!this.layout.agents.has(agent) || byAgent.has(agent)) {
        const feedback = byAgent.has(agent)
          ? `${agent} has already acted this step.`
          : `There is no agent "${agent}".`;
        refused.push({ agent, given: action, ok: false, action: null, feedback });
      } else byAgent.set(agent, action);
    }
    const order =
      this.current.turnOrder === 'given'
        ? [...byAgent.keys(), ...this.agents().filter((a) => !byAgent.has(a))]
        : this.turnOrder();
    const results = order.map((agent) => {
      const given = byAgent.get(agent) ?? null;
      return { agent, given, ...this.apply(agent, given) };
    });
    this.current.step = step;
    this.taken = new Map();
    return {
      step,
      order,
      script,
      results: [...results, ...refused],
      interactions: this.current.heard.map((h) => ({ ...h })),
    };
  }

  private turn(): Turn {
    return { step: this.current.step + 1, taken: this.taken };
  }
}
