/**
 * What a live run may spend (spread into app/api/contract.ts): the estimate the studio shows
 * before a live run, and the threshold above which it asks first (Settings → Live runs). The
 * estimate is the CLI's (`society run FILE --estimate`, app/costs/estimate.ts), made by the
 * backend from the document, its parameters and its inputs; the page never estimates itself.
 */
import { z } from 'zod';

/** Below this worst-case estimate a live run starts without asking, until the user sets another. */
export const DEFAULT_ASK_ABOVE_USD = 0.5;

/** The user's setting for live runs. */
export const LiveRunSettingsSchema = z.object({
  /** A live run whose worst-case estimate is above this many dollars is asked about first. */
  askAboveUsd: z.number().min(0).max(1_000_000),
});
export type LiveRunSettings = z.infer<typeof LiveRunSettingsSchema>;

const Figures = z.object({
  /** Model and expert calls. */
  calls: z.number(),
  /** Of `calls`, those to expert models (they have no tokens and no price). */
  expertCalls: z.number(),
  tokens: z.number(),
  /** Dollars at the price table; calls to models in `unpriced` add nothing. */
  costUsd: z.number(),
});

export const spendingContract = {
  /**
   * The estimate of a live run of this document with these parameters and inputs, likely and
   * worst case, and whether it is above the user's threshold (then the page asks first, and
   * `run.start` refuses a live run that was not confirmed).
   */
  'run.estimate': {
    params: z.object({
      document: z.record(z.string(), z.unknown()),
      inputs: z.record(z.string(), z.unknown()).default({}),
      params: z.record(z.string(), z.unknown()).default({}),
    }),
    result: z.object({
      likely: Figures,
      worstCase: Figures,
      /** Models without a price: their calls are counted, their cost is not. */
      unpriced: z.array(z.string()),
      askAboveUsd: z.number(),
      /** The worst case is above `askAboveUsd`: the run starts only once the person agrees. */
      ask: z.boolean(),
    }),
  },
  'settings.liveRuns.get': {
    params: z.object({}),
    result: LiveRunSettingsSchema,
  },
  'settings.liveRuns.set': {
    params: LiveRunSettingsSchema,
    result: LiveRunSettingsSchema,
  },
} as const;
