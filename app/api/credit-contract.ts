/**
 * The credit half of the API contract (spread into app/api/contract.ts): each member's influence
 * on a stored run, as `society credit RUN` reports it (app/runs/credit.ts). The backend forks the
 * run once per member with that member left out, through its own providers (the page never sees
 * a key); each fork is an ordinary stored run the page can open.
 */
import { z } from 'zod';
import { LiveConsent } from './spending-contract.ts';

/** One member's row (app/runs/credit.ts `MemberInfluence`). */
const MemberCredit = z.object({
  member: z.string(),
  /** The fork that left it out. */
  runId: z.string(),
  leftOut: z.number(),
  /** Calls asked again because their request changed. */
  resent: z.number(),
  /** The run's calls the fork kept or answered from its record. */
  fromRecord: z.number(),
  outputChanged: z.boolean(),
  output: z.unknown(),
  score: z.number().optional(),
  scoreDelta: z.number().optional(),
  /** The first call whose request changed: where the member's absence was first heard. */
  decisive: z.object({ instance: z.string(), seq: z.number() }).optional(),
  error: z.string().optional(),
});
export type ApiMemberCredit = z.infer<typeof MemberCredit>;

export const creditContract = {
  /**
   * Credits a finished run's members: forks it once per member without it, re-sends only the
   * calls whose request changed (the rest from the run's record) and compares `output` (default
   * the run's first). Scored with `metric` against `expect`, or by the run's own score (the
   * number in `scoreOutput`). A simulated run's forks are simulated, as with `simulate`; a live
   * credit checks the keys, the hosts and the spending threshold (each fork bounded by the run's
   * estimate) like a live fork.
   */
  'runs.credit': {
    params: z.object({
      runId: z.string().min(1).max(200),
      output: z.string().min(1).max(200).optional(),
      metric: z.string().min(1).max(40).optional(),
      expect: z.string().max(20_000).optional(),
      scoreOutput: z.string().min(1).max(200).optional(),
      simulate: z.boolean().default(false),
      ...LiveConsent,
    }),
    result: z.object({
      runId: z.string(),
      /** The output compared, and its value in the run. */
      output: z.string(),
      value: z.unknown(),
      /** The run's score, when scored. */
      score: z.number().optional(),
      /** The forks' new calls were simulated. */
      simulated: z.boolean(),
      members: z.array(MemberCredit),
    }),
  },
};
