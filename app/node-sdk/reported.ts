/**
 * What a node reports through its context for the run's views (a point of a series, an
 * interaction), as plain data. The SDK owns these shapes so that node code and
 * the engine's events share them without the SDK reaching up into the engine.
 */

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
