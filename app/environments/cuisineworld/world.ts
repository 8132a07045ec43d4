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
 * waste) follow the authors' public code, re-written here. Where this code departs from that
 * code it says so.
 *
 * The world is in parts: config.ts (an episode's settings), state.ts, commands.ts (reading a
 * command), rules.ts (what a command needs and does), orders.ts, render.ts and briefing.ts.
 * This module is the `Environment` that steps them.
 */
import { seededRandom } from '../../node-sdk/random.ts';
import type {
  Environment,
  EpisodeMetrics,
  ResetOptions,
  StepResult,
  Validation,
} from '../types.ts';
import { briefing } from './briefing.ts';
import { type WorldConfig, worldConfig } from './config.ts';
import { WASTE } from './data.ts';
import { addOrder, passTime, settleOrders } from './orders.ts';
import { renderWorld, worldSnapshot } from './render.ts';
import { runCommands } from './rules.ts';
import { copyState, episodeMetrics, initialState, type WorldState } from './state.ts';

export { COMMAND_PATTERN, type ParsedCommand, parseCommand, VERBS, type Verb } from './commands.ts';
export {
  type CuisineOptions,
  type OrderSource,
  type OrderSourceContext,
  RUNNERS,
  type Runner,
  type ToolOverride,
  type WorldConfig,
  worldConfig,
} from './config.ts';
export { cookedProduct, fits, without } from './rules.ts';
export type { AgentState, OrderState, PlaceState, Tally, WorldState } from './state.ts';

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
    this.#state = initialState(config);
    // The episode opens with one order.
    addOrder(this.#state, config, this.#draw);
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
    if (config.runner === 'paper' && commands.length === 0) {
      // MindAgent's runner steps the game only when it read a command; the turn still counts.
      state.turns++;
      state.done = state.turns >= config.maxSteps;
      return {
        step: state.step,
        validation: { ok: false, accepted: [], rejections: [] },
        feedback: ['No command was given, so the game did not move; the turn still counts.'],
        suggestions: this.suggestions(),
        completed: [],
        failed: [],
        done: state.done,
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

    const { completed, failed } = settleOrders(state, config);
    passTime(state, config, this.#draw);

    const t = state.tally;
    t.completed += completed.length;
    // The paper's engine adds one failure per step in which any order expired.
    t.failed += config.runner === 'paper' ? Math.min(failed.length, 1) : failed.length;
    if (failed.length > 0) t.failedSteps++;
    for (const r of validation.rejections) t.invalid[r.reason] = (t.invalid[r.reason] ?? 0) + 1;
    t.noops += ran.filter((c) => c.verb === 'noop').length;
    if (ran.every((c) => c.verb === 'noop')) t.idleSteps++;
    state.turns++;
    state.done = state.turns >= config.maxSteps;

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
    return renderWorld(this.#s, this.config);
  }

  snapshot(): Record<string, unknown> {
    return worldSnapshot(this.kind, this.#s, this.config, this.metrics());
  }

  metrics(): EpisodeMetrics {
    return episodeMetrics(this.#s);
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
    return briefing(this.config, this.agents());
  }

  #draw = (): number => {
    this.#s.draws++;
    return this.#random();
  };
}
