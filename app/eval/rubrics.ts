/**
 * Rubrics: the scales people rate an eval's items on by hand (`society eval … --rubric itcma`,
 * `society rate RUN --scale ID=SCORE`, the Evals view's rating panel). A rubric is data: a name,
 * its scales (an id to type, a label to show, a description saying what a rater judges) and the
 * whole-number range every scale shares. Built-in rubrics are named here; a rubric of your own is
 * a JSON file of the same shape, checked by `RubricSchema`. Pure (no file access), so the editor's
 * API contract may use the schema.
 */
import { z } from 'zod';

/** A scale's id: what `--scale ID=SCORE` types and the store keys ratings by. */
const ScaleId = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'a scale id is up to 40 lower-case letters, digits, - or _');

export const RubricSchema = z
  .strictObject({
    name: z.string().regex(/^[\w.-]{1,40}$/, 'up to 40 letters, digits, dots, dashes or _'),
    scales: z
      .array(
        z.strictObject({
          id: ScaleId,
          label: z.string().min(1).max(60),
          description: z.string().min(1).max(400),
        }),
      )
      .min(1)
      .max(20),
    min: z.number().int().min(-100).max(100),
    max: z.number().int().min(-100).max(100),
  })
  .refine((r) => r.max > r.min, { message: 'max must be above min', path: ['max'] })
  .refine((r) => new Set(r.scales.map((s) => s.id)).size === r.scales.length, {
    message: 'two scales share an id',
    path: ['scales'],
  });

/** A rubric: scales rated on whole numbers from `min` to `max`. */
export type Rubric = z.infer<typeof RubricSchema>;

/**
 * ITCMA-S's human evaluation (Zhang et al., "Can Agents Spontaneously Form a Society?"): raters
 * read an agent's actions and thoughts and scored five dimensions on a 7-point Likert scale. The
 * descriptions are ours.
 */
const ITCMA: Rubric = {
  name: 'itcma',
  min: 1,
  max: 7,
  scales: [
    {
      id: 'personification',
      label: 'Personification',
      description: 'How much the actions read like what a person would do.',
    },
    {
      id: 'consistency',
      label: 'Consistency',
      description: "How well the actions match the agent's mood, needs and goals at the time.",
    },
    {
      id: 'logicality',
      label: 'Logicality',
      description: 'How sensibly one action follows from the previous ones.',
    },
    {
      id: 'exploration',
      label: 'Exploration',
      description: 'How much the agent goes out of its way to discover the world around it.',
    },
    {
      id: 'proactiveness',
      label: 'Proactiveness',
      description: 'How much the agent starts exchanges with the others, rather than waiting.',
    },
  ],
};

/** The built-in rubrics, by name. */
export const RUBRICS: Readonly<Record<string, Rubric>> = { itcma: ITCMA };

/** A rubric could not be found or read: one line saying why. */
export class RubricError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RubricError';
  }
}

/**
 * The rubric `nameOrFile` names: a built-in one (`itcma`), or a `.json` file holding one, read
 * with `readText` (the caller's file access). Throws a RubricError naming the field that is wrong.
 */
export function resolveRubric(nameOrFile: string, readText: (path: string) => string): Rubric {
  const builtIn = RUBRICS[nameOrFile];
  if (builtIn) return builtIn;
  if (!nameOrFile.endsWith('.json'))
    throw new RubricError(
      `no rubric "${nameOrFile}" (built in: ${Object.keys(RUBRICS).join(', ')}; or a .json file of your own)`,
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readText(nameOrFile));
  } catch (error) {
    throw new RubricError(`cannot read rubric ${nameOrFile}: ${(error as Error).message}`);
  }
  return parseRubric(raw, nameOrFile);
}

/** Checks a rubric read from `source` (a file, a stored eval). */
export function parseRubric(raw: unknown, source: string): Rubric {
  const parsed = RubricSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new RubricError(
    `${source}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
  );
}

/**
 * Checks scores against a rubric: every scale must be one of its own, every score a whole number
 * in its range. Returns the first problem as one line, or undefined when all are fine.
 */
export function scoreProblem(
  rubric: Rubric,
  scores: Readonly<Record<string, number>>,
): string | undefined {
  const known = rubric.scales.map((s) => s.id);
  for (const [scale, score] of Object.entries(scores)) {
    if (!known.includes(scale))
      return `no scale "${scale}" in rubric ${rubric.name} (its scales: ${known.join(', ')})`;
    if (!Number.isInteger(score) || score < rubric.min || score > rubric.max)
      return `${scale}: ${score} is not a whole number from ${rubric.min} to ${rubric.max}`;
  }
  return undefined;
}
