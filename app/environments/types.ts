/**
 * Environments: worlds a society acts in, step by step (CuisineWorld, the text worlds, a
 * simulator outside the product). Every one meets one contract, `EnvironmentEpisode`: start,
 * observe, act, step, done, report (and save, to carry an episode from one round to the next),
 * so an environment is a folder registered in ./registry.ts and a node drives any of them by
 * kind without naming it.
 *
 * A local environment is deterministic for a seed and shows its state twice: as text for
 * prompts and as structure for the editor.
 *
 * Commands are plain strings in the environment's grammar (`goto_agent0_storage0`), so a
 * planner's output, a person's answer and a baseline's choice all go through one door, and
 * every rejection comes back as feedback text a model can read.
 */

import type { z } from 'zod';
import type { Rejection } from './step-report.ts';

export type { Rejection };

/** How an environment is set up for an episode. */
export interface ResetOptions {
  /** The level (or map) id, e.g. `level_3`. */
  level: string;
  /** How many agents act in the world. */
  agents: number;
  /** Every random choice (which order arrives) is drawn from this seed. */
  seed: string | number;
  /** Episode length in steps; the environment's default when absent. */
  maxSteps?: number;
  /** Environment-specific settings (CuisineWorld: `alpha`, the order-frequency factor). */
  options?: Record<string, unknown>;
}

/** What validating a list of commands found, without changing the world. */
export interface Validation {
  /** True when every command passed every stage. */
  ok: boolean;
  /** The commands that would run, in order (after the stages that drop a whole step). */
  accepted: string[];
  rejections: Rejection[];
}

/** What one step did. */
export interface StepResult {
  /** The step number after this step. */
  step: number;
  /** The validation of the commands given. */
  validation: Validation;
  /** Feedback sentences for the next prompt: rejections and anything else worth saying. */
  feedback: string[];
  /** Hints the environment offers (CuisineWorld: "put the waste into the storage"). */
  suggestions: string[];
  /** Goals (orders) completed and failed during this step. */
  completed: string[];
  failed: string[];
  /** True when the episode is over. */
  done: boolean;
}

/** Counts for an episode so far. */
export interface EpisodeMetrics {
  steps: number;
  /** Turns of the budget used, when the environment counts turns apart from steps. */
  turns?: number;
  completed: number;
  failed: number;
  /** Goals still open. */
  open: number;
  /** Rejected commands by reason. */
  invalid: Record<string, number>;
  /** Steps in which no command ran. */
  idleSteps: number;
}

/** A world that can be reset, stepped, validated against, shown and copied. */
export interface Environment {
  /** Which environment this is (`cuisineworld`). */
  readonly kind: string;
  reset(options: ResetOptions): void;
  /** Checks commands on a copy of the state, stage by stage; changes nothing. */
  validate(commands: string[]): Validation;
  /** Runs the accepted commands and advances time by one step. */
  step(commands: string[]): StepResult;
  /** The agents' ids, in order (`agent0`, `agent1`…). */
  agents(): string[];
  /** The state as text, for prompts. */
  render(): string;
  /** The state as plain JSON, for the editor and events. */
  snapshot(): Record<string, unknown>;
  metrics(): EpisodeMetrics;
  /** An independent copy (for look-ahead). */
  clone(): Environment;
}

// ---- the contract every environment meets ---------------------------------------------------

/** What an agent (or the whole society) is shown at a moment of an episode. */
export interface EnvironmentView {
  /** The world as text, for a prompt: one agent's view when an agent was named. */
  text: string;
  /** The actions on offer, when the environment lists them. */
  actions?: string[];
}

/** What one step of an episode did. */
export interface EnvironmentOutcome {
  /** Steps played, this one included. */
  step: number;
  /** Sentences for the next prompt: what happened, what was refused and why. */
  feedback: string[];
  /** The step's reward, when the environment gives one. */
  reward?: number;
  /** True when the episode is over. */
  done: boolean;
  /** True when the episode ended at its step limit rather than by the world's own end. */
  truncated?: boolean;
  /** Anything else the environment said of the step, passed on as it is. */
  info?: Record<string, unknown>;
}

/** An episode as plain JSON, for run views and events. */
export interface EnvironmentReport {
  kind: string;
  /** Steps played so far. */
  step: number;
  done: boolean;
  /** The environment's own state as it shows it to the editor. */
  state: Record<string, unknown>;
  /**
   * Where an episode outside the product stands (the simulator's URL as messages show it, the
   * session it named), for messages and a node's episode value; absent for a local world.
   */
  standing?: Record<string, unknown>;
}

/**
 * One episode of an environment, driven step by step. Every environment meets this contract:
 * a node starts it, reads what an agent sees, queues the agents' actions, plays them as one
 * step, asks whether the episode is over and reports it, and never needs to know which
 * environment it drives.
 */
export interface EnvironmentEpisode {
  /** The environment's kind, as the registry names it (`cuisineworld`). */
  readonly kind: string;
  /** Starts the episode (a reset): the world before the first step. */
  start(): Promise<EnvironmentView>;
  /** What `agent` sees now; the whole world when no agent is named. */
  observe(agent?: string): EnvironmentView;
  /** Queues an agent's action for the next step; an agent acting again replaces its action. */
  act(agent: string, action: string): void;
  /** Plays the queued actions as one step. */
  step(): Promise<EnvironmentOutcome>;
  /** True once the episode is over (the world said so, or its step limit was reached). */
  done(): boolean;
  report(): EnvironmentReport;
  /**
   * Where the episode stands, as plain JSON for `EnvironmentType.resume` (a node's output
   * between rounds): never its settings, so nothing secret in them (a URL's token) is stored.
   */
  save(): unknown;
  /** Lets go of what the episode holds (an outside simulator's connection). */
  close(): void;
}

/** What an episode may reach of the run that drives it. */
export interface EnvironmentContext {
  /** The run's signal: cancelling the run abandons a request in flight. */
  signal?: AbortSignal;
  /** The origins the user allowed; an environment outside the product reaches only these. */
  allowedOrigins?: ReadonlySet<string>;
}

/**
 * An environment's name and settings, apart from how its episodes run: what the editor needs to
 * offer it and check a node's settings (./registry.ts lists them), with nothing that reaches out.
 */
export interface EnvironmentSettings<S = unknown> {
  readonly kind: string;
  readonly title: string;
  /** The settings an episode opens with, checked at the door (a node's data, a file). */
  readonly settings: z.ZodType<S>;
}

/** An environment as ./episodes.ts holds it: its settings and how an episode opens. */
export interface EnvironmentType<S = unknown> extends EnvironmentSettings<S> {
  /** A new episode, not started yet. */
  open(settings: S, context: EnvironmentContext): EnvironmentEpisode;
  /**
   * The episode opened with `settings` that `save` gave, to go on with it; a value that is not
   * one fails in one line.
   */
  resume(settings: S, saved: unknown, context: EnvironmentContext): EnvironmentEpisode;
}
