/**
 * What a node reports through its context for the run's views (an environment's step, a point
 * of a series, an interaction), as plain data. The SDK owns these shapes so that node code and
 * the engine's events share them without the SDK reaching up into the engine.
 */

/** One command that a validation stage refused, and why, in words for the model. */
export interface Rejection {
  /** The command as given (or the raw fragment, for a syntax error). */
  command: string;
  /** Which agent it was for, when that could be read. */
  agent?: string;
  /** The stage that refused it. */
  stage: 'syntax' | 'vocabulary' | 'assignment' | 'precondition';
  /** A short machine-readable reason, for counting (`unknown-verb`, `not-at-location`…). */
  reason: string;
  /** The feedback sentence shown to the model. */
  message: string;
}

/** What happened in one step of an environment episode. */
export interface EnvironmentStepReport {
  /** The step that was played (0-based). */
  step: number;
  /** The commands given, in order, and who gave each (`model`, `person`, `rules`). */
  commands: Array<{ command: string; by: string }>;
  /** What validation refused. */
  rejections: Rejection[];
  feedback: string[];
  completed: string[];
  failed: string[];
  /** The state after the step, as the environment shows it to the editor. */
  state: Record<string, unknown>;
  /** Attempts before the commands were committed (retry-before-commit), 1 otherwise. */
  attempts: number;
  /** What was refused in the attempts that were not committed (retry-before-commit). */
  retried?: Rejection[];
  done: boolean;
  /** True once any of the episode's commands came from made-up (simulated) answers. */
  simulated: boolean;
}

/**
 * One point of a node's keyed series at step `x`: the values it reports now, by key (an agent's
 * resources, by agent). Values are numbers, or strings for a category (an area's topic); null
 * says the key has no value at this step. Points of one `name` from any node make one series.
 */
export interface SeriesPoint {
  /** The series, e.g. `resources`; the same name from several points (or nodes) is one series. */
  name: string;
  /** Where the point lies on the horizontal axis: the step, the round. */
  x: number;
  values: Record<string, number | string | null>;
  /** What charts call the series (default: its name). */
  label?: string;
  /** The values' unit, shown beside them. */
  unit?: string;
}

/**
 * One participant acting on another: `from` chats to `to`. Reduced into an initiator ×
 * receiver heat map per `kind`.
 */
export interface Interaction {
  from: string;
  to: string;
  /** What kind of interaction it is (`chat`); heat maps count one kind at a time. */
  kind: string;
  /** The step it happened at. */
  x?: number;
  /** What was said or done, for a tooltip or an export. */
  text?: string;
}
