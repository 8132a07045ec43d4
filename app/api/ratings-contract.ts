/**
 * The ratings half of the API contract (spread into app/api/contract.ts): a person's scores of an
 * eval item's run on its eval's rubric, for the Evals view's rating panel. Ratings carry names,
 * scores and notes, never a key.
 */
import { z } from 'zod';
import { RubricSchema } from '../eval/rubrics.ts';

/** One scale's ratings over a variant's items (app/eval/types.ts `ScaleRating`). */
export const ScaleRatingSchema = z.object({
  scale: z.string(),
  /** Items rated on the scale (an item rated by several people counts once). */
  n: z.number(),
  mean: z.number(),
  /** The 95% Student t interval of the mean, from n = 2. */
  ci95: z.tuple([z.number(), z.number()]).optional(),
});

/** A person's score of a run on one scale (app/eval/types.ts `RatingRecord`). */
const Rating = z.object({
  runId: z.string(),
  /** The agent of the run whose trajectory was rated (`society rate … --agent`); absent for the run. */
  agent: z.string().optional(),
  rater: z.string(),
  scale: z.string(),
  score: z.number(),
  note: z.string().optional(),
  ratedAt: z.number(),
});
export type ApiRating = z.infer<typeof Rating>;

/** A run's ratings, with the rubric they are on (its eval's, when it has one). */
const RunRatings = z.object({
  runId: z.string(),
  rubric: RubricSchema.optional(),
  ratings: z.array(Rating),
});
export type ApiRunRatings = z.infer<typeof RunRatings>;

export const ratingsContract = {
  /** A run's ratings (every rater's) and the rubric of the eval it answered an item of. */
  'ratings.list': {
    params: z.object({ runId: z.string().min(1).max(200) }),
    result: RunRatings,
  },
  /**
   * Stores one rater's scores of a run on its eval's rubric, as `society rate` does: a scale the
   * rubric lacks or a score out of its range is refused, and nothing is stored. Rating a scale
   * again replaces the rater's score. Returns the run's ratings after.
   */
  'ratings.put': {
    params: z.strictObject({
      runId: z.string().min(1).max(200),
      rater: z
        .string()
        .trim()
        .regex(/^[^\p{Cc}]{1,80}$/u, 'a name of 1 to 80 characters on one line'),
      scores: z
        .record(z.string().min(1).max(40), z.number().int())
        .refine((s) => Object.keys(s).length > 0, 'give a score on at least one scale'),
      note: z.string().max(2000).optional(),
    }),
    result: RunRatings,
  },
} as const;
