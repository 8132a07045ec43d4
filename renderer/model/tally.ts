/**
 * A vote's tally as the editor charts it: one bar per candidate in ranking order, the winner
 * and the candidates tied at the top marked, how the winner came about, and every ballot as read.
 */
import type { TallyLike } from './run.ts';

export interface TallyBar {
  candidate: string;
  count: number;
  winner: boolean;
  /** Tied at the top before the tie-break. */
  tied: boolean;
}

/** Candidates by score (the tally's ranking), then any candidate the ranking left out. */
export function tallyBars(tally: TallyLike): TallyBar[] {
  const counts = tally.counts ?? {};
  const tied = new Set(tally.tied ?? []);
  const order = [
    ...new Set([...(tally.ranking ?? []), ...(tally.candidates ?? []), ...Object.keys(counts)]),
  ];
  return order.map((candidate) => ({
    candidate,
    count: counts[candidate] ?? 0,
    winner: tally.winner === candidate,
    tied: tied.has(candidate),
  }));
}

export interface TallyOutcome {
  winner: string | null;
  /** One sentence from the vote node on how the winner (or none) came about. */
  reason: string;
  /** How a tie at the top was broken, when it was. */
  tieBreak?: string;
  tied: string[];
}

export function tallyOutcome(tally: TallyLike): TallyOutcome {
  const tieBreak = tally.tieBreak?.reason
    ? `${tally.tieBreak.rule ? `${tally.tieBreak.rule}: ` : ''}${tally.tieBreak.reason}`
    : undefined;
  return {
    winner: tally.winner ?? null,
    reason: tally.reason ?? '',
    ...(tieBreak ? { tieBreak } : {}),
    tied: tally.tied ?? [],
  };
}

export interface BallotLine {
  voter: string;
  /** The ballot as cast, shortened to a line. */
  cast: string;
  /** What it was read as: one choice, a ranking, or the approved set. */
  readAs: string;
  valid: boolean;
  reason?: string;
}

/** Every ballot, in the order cast: as cast and as read. */
export function ballotLines(tally: TallyLike): BallotLine[] {
  const joiner = tally.rule === 'borda' ? ' > ' : ', ';
  return (tally.ballots ?? []).map((b) => {
    const cast = typeof b.value === 'string' ? b.value : JSON.stringify(b.value);
    return {
      voter: b.voter,
      cast: oneLine(cast ?? '', 160),
      readAs: (b.choices ?? []).join(joiner),
      valid: b.valid !== false,
      ...(b.reason ? { reason: b.reason } : {}),
    };
  });
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
