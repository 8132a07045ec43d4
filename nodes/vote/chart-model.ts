/**
 * A vote's tally as the editor charts it: one bar per candidate in ranking order, the winner
 * and the candidates tied at the top marked, how the winner came about, and every ballot as read.
 */
/**
 * A tally as the charts read it: any part may be missing (a run stored by an older build), and
 * names are plain strings. A `tally` report's data is read as one (run-view.tsx).
 */
export interface TallyLike {
  rule?: string;
  candidates?: string[];
  counts?: Record<string, number>;
  ranking?: string[];
  winner?: string | null;
  reason?: string;
  totals?: { ballots: number; valid: number };
  ballots?: Array<{
    voter: string;
    value: unknown;
    choices?: string[];
    valid?: boolean;
    reason?: string;
  }>;
  /** Candidates tied at the top before any tie-break. */
  tied?: string[];
  /** How a tie at the top was broken. */
  tieBreak?: { rule?: string; chosen?: string; reason?: string };
}

export interface TallyView {
  seq: number;
  node: string;
  instance: string;
  tally: TallyLike;
}

export interface TallyBar {
  candidate: string;
  count: number;
  winner: boolean;
  /** Tied at the top before the tie-break. */
  tied: boolean;
}

/**
 * Candidates by score, most first; equal scores keep the tally's ranking (then the candidates'
 * order), so a tie reads as the vote node broke it.
 */
export function tallyBars(tally: TallyLike): TallyBar[] {
  const counts = tally.counts ?? {};
  const tied = new Set(tally.tied ?? []);
  const order = [
    ...new Set([...(tally.ranking ?? []), ...(tally.candidates ?? []), ...Object.keys(counts)]),
  ];
  return order
    .map((candidate) => ({
      candidate,
      count: counts[candidate] ?? 0,
      winner: tally.winner === candidate,
      tied: tied.has(candidate),
    }))
    .sort((a, b) => b.count - a.count);
}

/**
 * The bars worth drawing and the candidates left out of the chart: with 26 candidates and 50
 * ballots most candidates get nothing, and a bar of zero for each would push the ones that
 * count out of sight. The winner and any tied candidate are always drawn.
 */
export function chartedBars(bars: readonly TallyBar[]): { drawn: TallyBar[]; unvoted: string[] } {
  const drawn = bars.filter((b) => b.count > 0 || b.winner || b.tied);
  // A vote nobody cast a valid ballot in still shows its candidates.
  if (drawn.length === 0) return { drawn: [...bars], unvoted: [] };
  return {
    drawn,
    unvoted: bars.filter((b) => !drawn.includes(b)).map((b) => b.candidate),
  };
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
