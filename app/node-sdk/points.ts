/**
 * What a node may report for the run's analytics (`NodeContext.series` and `.interaction`),
 * checked before it enters the event log: node code is ours, but the figures it reports often
 * come from a model or a world file, and a NaN or an unnamed series would only surface later as
 * a blank chart. A bad point fails the node with one line naming the field.
 */
import { z } from 'zod';
import type { Interaction, SeriesPoint } from './reported.ts';

/** Longest name, key, label or unit, in characters; longer ones are refused. */
const NAME_MAX = 120;
/** Most keys one point may carry (a chart with more lines than this is unreadable anyway). */
const KEYS_MAX = 500;
/** An interaction's text is kept for tooltips and exports, clipped to this many characters. */
export const INTERACTION_TEXT_MAX = 500;

const name = z.string().trim().min(1, 'must not be empty').max(NAME_MAX);
const value = z.union([z.number(), z.string().max(NAME_MAX), z.null()], {
  error: 'must be a finite number, a string or null',
});
const step = z.number({ error: 'must be a finite number (the step)' });

const SeriesPointSchema = z.strictObject({
  name,
  x: step,
  values: z
    .record(name, value)
    .refine((v) => Object.keys(v).length <= KEYS_MAX, `at most ${KEYS_MAX} keys`),
  label: z.string().max(NAME_MAX).optional(),
  unit: z.string().max(NAME_MAX).optional(),
});

const InteractionSchema = z.strictObject({
  from: name,
  to: name,
  kind: name,
  x: step.optional(),
  text: z.string().optional(),
});

const ParticipantsSchema = z.array(name).max(KEYS_MAX);

/** The names a `participants` event lists, or an error naming the one that is wrong. */
export function parseParticipants(names: unknown): string[] {
  const result = ParticipantsSchema.safeParse(names);
  if (!result.success) throw new Error(`participants: ${firstIssue(result.error)}`);
  return [...new Set(result.data)];
}

/** A series point as it is logged, or an error naming the field that is wrong. */
export function parseSeriesPoint(point: unknown): SeriesPoint {
  const result = SeriesPointSchema.safeParse(point);
  if (!result.success) throw new Error(`series point: ${firstIssue(result.error)}`);
  return result.data;
}

/** An interaction as it is logged (its text clipped), or an error naming the wrong field. */
export function parseInteraction(interaction: unknown): Interaction {
  const result = InteractionSchema.safeParse(interaction);
  if (!result.success) throw new Error(`interaction: ${firstIssue(result.error)}`);
  const { text, ...rest } = result.data;
  return text === undefined
    ? rest
    : {
        ...rest,
        text: text.length > INTERACTION_TEXT_MAX ? `${text.slice(0, INTERACTION_TEXT_MAX)}…` : text,
      };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys')
    return `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return `${issue.path.map(String).join('.') || 'value'}: ${issue.message}`;
}
