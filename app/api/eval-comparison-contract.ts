/**
 * What the evals part of the API contract (app/api/contract.ts) carries beyond the scores: each
 * variant against the first by a paired test, and the paper layout an eval was stored with,
 * printed as `society eval-show` prints it.
 */
import { z } from 'zod';

/** A variant against the eval's first (app/eval/types.ts `BaselineComparison`). */
export const BaselineComparisonSchema = z.object({
  baseline: z.string(),
  test: z.enum(['McNemar', 'paired bootstrap']),
  /** Pairs compared (item × repeat). */
  n: z.number(),
  /** Runs of either side with no partner yet. */
  unmatched: z.number(),
  /** Mean of this variant − the baseline over the pairs. */
  meanDiff: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  p: z.number(),
  /** p < 0.05. */
  significant: z.boolean(),
});
export type ApiBaselineComparison = z.infer<typeof BaselineComparisonSchema>;

/**
 * The paper layout an eval's record names (`config.table`), as text: the paper's figure, ours
 * with its 95% interval and the difference per cell. `error` instead of `text` when the layout
 * could not be printed (a malformed stored context); the eval's own table still shows.
 */
export const PaperTableSchema = z.object({
  kind: z.string(),
  text: z.string().optional(),
  error: z.string().optional(),
});
export type ApiPaperTable = z.infer<typeof PaperTableSchema>;
