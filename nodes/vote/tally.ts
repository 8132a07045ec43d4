/**
 * Vote counting for the vote node and for democratic mindstorms.
 *
 * The NLSOM paper has critics vote on art proposals by naming an artist role and VQA agents vote
 * on answer options "(a)".."(d)", but it never says how free-text ballots are read or how ties
 * are broken. This module pins both down so a run is reproducible: the same ballots and options
 * always give the same tally, seeded random tie-breaks included. It is pure: no I/O, no clock, no
 * `Math.random`, and inputs are never mutated. The tally is plain JSON so it can be shown, stored
 * and diffed as is.
 */

import { seededRandom } from '../../app/node-sdk/random.ts';
import type {
  BallotReading,
  TieBreak,
  TieBreakDetail,
  VoteRule,
  VoteTally,
} from '../../app/node-sdk/tally.ts';
import { derivedPool, fixedPool, readBallot } from './ballots.ts';

export type {
  BallotReading,
  MajorityOutcome,
  TieBreak,
  TieBreakDetail,
  VoteRule,
  VoteTally,
} from '../../app/node-sdk/tally.ts';

/** Every vote rule, in display order (handy for schemas and menus). */
export const VOTE_RULES: readonly VoteRule[] = ['plurality', 'majority', 'borda', 'approval'];

/** Every tie-break rule, in display order. */
export const TIE_BREAKS: readonly TieBreak[] = ['first', 'random', 'chair'];

/**
 * One voter's ballot. `value` is usually model text; a `string[]` is a ranking for Borda, an
 * approved set for approval, and a list of preferences (first one counts) for plurality/majority.
 */
export interface Ballot {
  voter: string;
  value: unknown;
}

/** Options for {@link tallyVotes}. */
export interface TallyOptions {
  rule: VoteRule;
  tieBreak: TieBreak;
  /** Voter id whose ballot breaks ties under tie-break `'chair'`. */
  chair?: string;
  /**
   * Seed for `'random'` tie-breaks: same seed + same ballots => same winner. Numbers and their
   * decimal strings are the same seed (`7` and `'7'`).
   */
  seed: string | number;
  /**
   * Fixed candidate list (option texts, role names). When absent or empty, candidates are the
   * distinct ballot values in first-seen order.
   */
  candidates?: string[];
  /**
   * Majority rule when nobody has more than half of the valid ballots: the plurality leader wins
   * (`'plurality'`, the default) or nobody does (`'none'`).
   */
  noMajority?: 'plurality' | 'none';
}

/**
 * Counts ballots under a voting rule and explains the outcome.
 *
 * Reading a text ballot against a fixed candidate list (case-insensitive, ignoring surrounding
 * quotes/punctuation/markdown and "The answer is" style chatter): an exact candidate match wins;
 * else an option letter ("(b)", "b)", "b.", "B") picks the b-th candidate; else the candidate
 * named earliest in the text as a whole phrase; else the ballot is invalid. Without a list,
 * candidates are the distinct normalised ballot values in first-seen order, shown with their
 * first-seen spelling. Borda ballots are rankings (`string[]`, "A > B > C", "A, B, C" or one per
 * line): with n candidates the first gets n-1 points, unranked ones 0. Approval ballots are sets
 * (`string[]`, or comma/semicolon/newline/"and"-separated text), one point per distinct approved
 * candidate. Plurality and majority count each ballot's first choice; majority needs more than
 * half of the valid ballots. Every ballot counts, so callers should pass one ballot per voter.
 *
 * @throws TypeError when `rule`, `tieBreak` or `noMajority` is not a known value.
 */
export function tallyVotes(ballots: readonly Ballot[], options: TallyOptions): VoteTally {
  assertOptions(options);
  const { rule } = options;
  const pool =
    options.candidates && options.candidates.length > 0
      ? fixedPool(options.candidates)
      : derivedPool();
  const readings = ballots.map((ballot) => readBallot(ballot, rule, pool));

  // Copied after reading: a derived pool grows while ballots are read.
  const candidates = [...pool.list];
  const score = new Map<string, number>(candidates.map((c) => [c, 0]));
  const add = (candidate: string, points: number): void => {
    score.set(candidate, (score.get(candidate) ?? 0) + points);
  };
  for (const reading of readings) {
    if (!reading.valid) continue;
    if (rule === 'borda') {
      for (const [i, c] of reading.choices.entries()) add(c, candidates.length - 1 - i);
    } else if (rule === 'approval') {
      for (const c of reading.choices) add(c, 1);
    } else {
      add(reading.choices[0]!, 1);
    }
  }
  const scoreOf = (c: string): number => score.get(c) ?? 0;
  // Array#sort is stable, so equal scores keep candidate order.
  const ranking = [...candidates].sort((a, b) => scoreOf(b) - scoreOf(a));
  const valid = readings.filter((r) => r.valid).length;

  const tally: VoteTally = {
    rule,
    candidates,
    ballots: readings,
    counts: Object.fromEntries(score),
    ranking,
    winner: null,
    reason: '',
    tied: [],
    totals: { ballots: ballots.length, valid },
  };
  const needed = Math.floor(valid / 2) + 1;
  const noMajority = options.noMajority ?? 'plurality';

  if (valid === 0) {
    if (rule === 'majority') tally.majority = { needed, reached: false, fallback: noMajority };
    tally.reason =
      ballots.length === 0
        ? 'no ballots were cast'
        : `no valid ballots: ${ballots.length === 1 ? 'the one ballot' : `none of the ${ballots.length} ballots`} could be read as a vote`;
    return tally;
  }

  const top = scoreOf(ranking[0]!);
  const leaders = ranking.filter((c) => scoreOf(c) === top);
  if (leaders.length > 1) tally.tied = leaders;
  const unit = (n: number) => `${n} ${UNITS[rule]}${n === 1 ? '' : 's'}`;

  let prefix = '';
  if (rule === 'majority') {
    const reached = top >= needed;
    tally.majority = { needed, reached, fallback: reached ? null : noMajority };
    if (reached) {
      // More than half the votes cannot be shared, so there is exactly one leader here.
      tally.winner = leaders[0]!;
      tally.reason = `"${tally.winner}" won a majority: ${top} of ${valid} valid votes (needed ${needed})`;
      return tally;
    }
    const shortfall = `no majority: the leader has ${top} of ${valid} valid votes (needed ${needed})`;
    if (noMajority === 'none') {
      tally.reason = `${shortfall}; no winner`;
      return tally;
    }
    prefix = `${shortfall}; plurality fallback: `;
  }

  if (leaders.length === 1) {
    tally.winner = leaders[0]!;
    tally.reason = `${prefix}"${tally.winner}" leads with ${unit(top)}`;
    return tally;
  }
  const detail = breakTie(leaders, options, readings);
  tally.tieBreak = detail;
  tally.winner = detail.chosen;
  tally.reason = `${prefix}${leaders.length} candidates tied at ${unit(top)}; ${detail.reason}`;
  return tally;
}

/** What a rule counts, in the singular ("2 votes", "1 point"). */
const UNITS: Record<VoteRule, string> = {
  plurality: 'vote',
  majority: 'vote',
  borda: 'point',
  approval: 'approval',
};

function assertOptions(options: TallyOptions): void {
  if (!VOTE_RULES.includes(options.rule)) {
    throw new TypeError(`unknown vote rule: ${String(options.rule)}`);
  }
  if (!TIE_BREAKS.includes(options.tieBreak)) {
    throw new TypeError(`unknown tie-break: ${String(options.tieBreak)}`);
  }
  const { noMajority } = options;
  if (noMajority !== undefined && noMajority !== 'plurality' && noMajority !== 'none') {
    throw new TypeError(`unknown noMajority policy: ${String(noMajority)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Tie-breaking

function breakTie(
  tied: string[],
  options: TallyOptions,
  readings: readonly BallotReading[],
): TieBreakDetail {
  const first = tied[0]!;
  const firstReason = `"${first}" comes first in candidate order`;
  if (options.tieBreak === 'first') return { rule: 'first', chosen: first, reason: firstReason };

  if (options.tieBreak === 'random') {
    const seed = String(options.seed);
    // The tied set is part of the seed so different ties in one run do not share a draw.
    const next = seededRandom(`${seed}\u0000${tied.join('\u0000')}`);
    const chosen = tied[Math.floor(next() * tied.length)]!;
    return {
      rule: 'random',
      chosen,
      reason: `seeded random pick among the tied (seed ${JSON.stringify(seed)}): "${chosen}"`,
    };
  }

  const fallBack = (why: string): TieBreakDetail => ({
    rule: 'chair',
    chosen: first,
    reason: `${why}; fell back to "first": ${firstReason}`,
  });
  const { chair } = options;
  if (chair === undefined || chair === '') return fallBack('no chair was set');
  const own = readings.filter((r) => r.voter === chair);
  const ballot = own.find((r) => r.valid);
  if (!ballot) {
    return fallBack(
      own.length === 0
        ? `chair "${chair}" cast no ballot`
        : `chair "${chair}" cast no valid ballot`,
    );
  }
  // Choices are in the chair's preference order, so the first tied one is its favourite.
  const chosen = ballot.choices.find((c) => tied.includes(c));
  if (chosen === undefined) {
    return fallBack(`chair "${chair}" voted for none of the tied candidates`);
  }
  const how =
    ballot.choices.length > 1
      ? `ranked "${chosen}" highest among the tied`
      : `voted for "${chosen}"`;
  return { rule: 'chair', chosen, reason: `chair "${chair}" ${how}` };
}
