/**
 * Environments: simulated worlds a society acts in, step by step (MindAgent's CuisineWorld is
 * the first). An environment is deterministic for a seed, speaks a small command language, and
 * shows its state twice: as text for prompts and as structure for the editor.
 *
 * Commands are plain strings in the environment's grammar (`goto_agent0_storage0`), so a
 * planner's output, a person's answer and a baseline's choice all go through one door, and
 * every rejection comes back as feedback text a model can read.
 */

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
