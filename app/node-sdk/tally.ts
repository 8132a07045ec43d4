/**
 * The shape of a vote's result: plain JSON, reported as a `tally` report (`ctx.report('tally',
 * tally)`) by whatever node holds a vote (the vote node, a loop whose members vote), stored and
 * shown as is. Counting lives with the vote node (nodes/vote/tally.ts); these are its types and
 * schema, shared by the nodes that report tallies and by what reads them (the transcript, run
 * diff, the Votes tab).
 */
import { z } from 'zod';

/** How ballots are turned into a winner. */
export type VoteRule = 'plurality' | 'majority' | 'borda' | 'approval';

/** What decides between candidates tied at the top. */
export type TieBreak = 'first' | 'random' | 'chair';

/** How one ballot was read. */
export interface BallotReading {
  voter: string;
  /** The ballot exactly as cast. */
  value: unknown;
  /**
   * Candidates the ballot was read as, in the voter's order: one for plurality/majority, the
   * ranking for Borda, the approved set for approval. Empty when invalid.
   */
  choices: string[];
  valid: boolean;
  /** Why the ballot could not be counted; only on invalid ballots. */
  reason?: string;
  /** Parts of a list ballot that matched no candidate and were skipped. */
  unmatched?: string[];
}

/** How a tie at the top was broken. */
export interface TieBreakDetail {
  /** The tie-break rule that was asked for (a chair fallback still says `'chair'`). */
  rule: TieBreak;
  chosen: string;
  reason: string;
}

/** The majority test, reported for rule `'majority'` only. */
export interface MajorityOutcome {
  /** Votes needed: more than half of the valid ballots. */
  needed: number;
  reached: boolean;
  /** What decided the result when the majority was not reached; `null` when it was. */
  fallback: 'plurality' | 'none' | null;
}

/** The full, JSON-serialisable result of a vote. */
export interface VoteTally {
  rule: VoteRule;
  /** Candidates in candidate order (the given list, or first-seen ballot order). */
  candidates: string[];
  /** Every ballot, in the order cast, with how it was read. */
  ballots: BallotReading[];
  /** Candidate → score: votes (plurality/majority), points (Borda) or approvals. */
  counts: Record<string, number>;
  /**
   * Candidates by score, highest first, ties in candidate order. Not reordered by the
   * tie-break: the winner is in `winner`.
   */
  ranking: string[];
  winner: string | null;
  /** One sentence on how the winner (or the lack of one) came about. */
  reason: string;
  /** Candidates tied at the top before any tie-break; empty when there is no tie. */
  tied: string[];
  /** Present when a tie-break decided the winner. */
  tieBreak?: TieBreakDetail;
  /** Present for rule `'majority'`. */
  majority?: MajorityOutcome;
  totals: { ballots: number; valid: number };
}

const ballotReading = z.object({
  voter: z.string(),
  value: z.unknown(),
  choices: z.array(z.string()),
  valid: z.boolean(),
  reason: z.string().optional(),
  unmatched: z.array(z.string()).optional(),
});

/** A `tally` report: a vote's full result. */
export const voteTallySchema = z.object({
  rule: z.enum(['plurality', 'majority', 'borda', 'approval']),
  candidates: z.array(z.string()),
  ballots: z.array(ballotReading),
  counts: z.record(z.string(), z.number()),
  ranking: z.array(z.string()),
  winner: z.string().nullable(),
  reason: z.string(),
  tied: z.array(z.string()),
  tieBreak: z
    .object({ rule: z.enum(['first', 'random', 'chair']), chosen: z.string(), reason: z.string() })
    .optional(),
  majority: z
    .object({
      needed: z.number(),
      reached: z.boolean(),
      fallback: z.enum(['plurality', 'none']).nullable(),
    })
    .optional(),
  totals: z.object({ ballots: z.number(), valid: z.number() }),
}) satisfies z.ZodType<VoteTally>;

/** The report kind a tally goes by, for a spec to spread into its `reports`. */
export const tallyReports = { tally: voteTallySchema } as const;

/**
 * The tally a `report` event carries, or undefined for any other event (or a `tally` report
 * that is not a vote's result).
 */
export function tallyOf(event: {
  type: string;
  kind?: unknown;
  data?: unknown;
}): VoteTally | undefined {
  if (event.type !== 'report' || event.kind !== 'tally') return undefined;
  const parsed = voteTallySchema.safeParse(event.data);
  return parsed.success ? (parsed.data as VoteTally) : undefined;
}
