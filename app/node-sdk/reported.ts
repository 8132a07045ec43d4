/**
 * What a node reports through its context for the run's views (a point of a series, an
 * interaction), as plain data. The SDK owns these shapes so that node code and
 * the engine's events share them without the SDK reaching up into the engine.
 *
 * Series points, interactions and participants are a vocabulary several node types share (a
 * world, a state, a matrix, an outside simulator): a spec spreads `analyticsReports` into its
 * `reports` and reports them with `ctx.report('series', point)` and so on. Whatever reads them
 * (the Analytics tab, `society show --series/--heatmap`) reads `report` events of these kinds,
 * from any node.
 */
import { z } from 'zod';

/** Longest name, key, label or unit, in characters; longer ones are refused. */
const NAME_MAX = 120;
/** Most keys one point may carry (a chart with more lines than this is unreadable anyway). */
const KEYS_MAX = 500;
/** An interaction's text is kept for tooltips and exports, clipped to this many characters. */
export const INTERACTION_TEXT_MAX = 500;

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

// The figures a node reports often come from a model or a world file; a NaN or an unnamed
// series would only surface later as a blank chart, so the schemas refuse them at the report.
const name = z.string().trim().min(1, 'must not be empty').max(NAME_MAX);
const value = z.union([z.number(), z.string().max(NAME_MAX), z.null()], {
  error: 'must be a finite number, a string or null',
});
const step = z.number({ error: 'must be a finite number (the step)' });

/** A `series` report: one point of a keyed series. */
export const seriesPointSchema: z.ZodType<SeriesPoint> = z.strictObject({
  name,
  x: step,
  values: z
    .record(name, value)
    .refine((v) => Object.keys(v).length <= KEYS_MAX, `at most ${KEYS_MAX} keys`),
  label: z.string().max(NAME_MAX).optional(),
  unit: z.string().max(NAME_MAX).optional(),
});

/** An `interaction` report, its text clipped to `INTERACTION_TEXT_MAX` characters. */
export const interactionSchema: z.ZodType<Interaction> = z
  .strictObject({
    from: name,
    to: name,
    kind: name,
    x: step.optional(),
    text: z.string().optional(),
  })
  .transform(({ text, ...rest }) =>
    text === undefined
      ? rest
      : {
          ...rest,
          text:
            text.length > INTERACTION_TEXT_MAX ? `${text.slice(0, INTERACTION_TEXT_MAX)}…` : text,
        },
  );

/** A `participants` report: who takes part (a heat map gives each a row, chats or not), once each. */
export const participantsSchema: z.ZodType<string[]> = z
  .array(name)
  .max(KEYS_MAX)
  .transform((names) => [...new Set(names)]);

/** The shared analytics report kinds, for a spec to spread into its `reports`. */
export const analyticsReports = {
  series: seriesPointSchema,
  interaction: interactionSchema,
  participants: participantsSchema,
} as const;

/** The analytics report kinds by name: what the Analytics tab and `society show` read. */
export type AnalyticsKind = keyof typeof analyticsReports;

/** A report as the analytics read it: any node's, of one of the shared kinds. */
export type AnalyticsReport =
  | { kind: 'series'; data: SeriesPoint }
  | { kind: 'interaction'; data: Interaction }
  | { kind: 'participants'; data: string[] };

/**
 * The analytics report a `report` event carries, or undefined for any other event or a report
 * whose data does not fit the shared schema (a node that used a kind name for something else).
 */
export function analyticsReportOf(event: {
  type: string;
  kind?: unknown;
  data?: unknown;
}): AnalyticsReport | undefined {
  if (event.type !== 'report' || typeof event.kind !== 'string') return undefined;
  if (!Object.hasOwn(analyticsReports, event.kind)) return undefined;
  const kind = event.kind as AnalyticsKind;
  const parsed = analyticsReports[kind].safeParse(event.data);
  return parsed.success ? ({ kind, data: parsed.data } as AnalyticsReport) : undefined;
}
