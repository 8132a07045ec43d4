/**
 * Recall at k with a tolerance, as NLSOM scores egocentric retrieval (Zhuge et al., App. I,
 * after Ego4D's natural-language queries): a query is a hit at (k, τ) when one of the first k
 * predicted timestamps lies in the ground-truth window widened by τ on each side,
 * [start − τ, end + τ]. Over many queries R_k@τ is the share of hits; for one query it is 1 or 0.
 * Pure arithmetic on numbers read from the inputs: no model, no randomness.
 */

/** The k and τ (seconds) the paper reports, for the report's table. */
export const PAPER_KS = [1, 3, 5] as const;
export const PAPER_TOLERANCES = [1, 10] as const;

/** A time as seconds: `75`, `75.5`, `1:15` (m:ss) or `0:01:15` (h:mm:ss). */
const TIME = /(?<![\d.:])(?:(\d+):([0-5]\d)(?::([0-5]\d))?|(\d+(?:\.\d+)?))(?![\d:])/g;

/**
 * The timestamps a prediction gives, in order, as seconds. A list is read item by item; a text
 * gives every time in it in order of appearance (so ask for timestamps only, best first); a
 * negative number keeps its sign, so the "w. exec." step can drop it.
 */
export function readTimestamps(value: unknown): number[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(readTimestamps);
  if (typeof value !== 'string') return [];
  const times: number[] = [];
  for (const match of value.matchAll(TIME)) {
    const negative = value[match.index - 1] === '-' && !/\d/.test(value[match.index - 2] ?? '');
    const seconds = match[4]
      ? Number(match[4])
      : match[3] !== undefined
        ? Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])
        : Number(match[1]) * 60 + Number(match[2]);
    times.push(negative ? -seconds : seconds);
  }
  return times;
}

export interface TimeWindow {
  start: number;
  end: number;
}

/**
 * The ground-truth window: `{ "start": 30, "end": 42 }`, `[30, 42]`, or a text with two times
 * ("30-42", "0:30 to 0:42"). One line naming what was wrong otherwise.
 */
export function readWindow(value: unknown): TimeWindow {
  let pair: number[] = [];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { start, end } = value as { start?: unknown; end?: unknown };
    pair = [...readTimestamps(start), ...readTimestamps(end)];
  } else if (typeof value === 'string') {
    // "30-42" is a range, not 30 and −42.
    pair = readTimestamps(value.replace(/(\d)\s*-\s*(\d)/g, '$1 $2'));
  } else pair = readTimestamps(value);
  if (pair.length !== 2) {
    throw new Error(
      `the ground-truth window must be two times (start and end), e.g. {"start": 30, "end": 42} or "30-42"; got ${pair.length}`,
    );
  }
  const [start, end] = pair as [number, number];
  if (end < start)
    throw new Error(`the ground-truth window ends (${end}) before it starts (${start})`);
  return { start, end };
}

/** 1 when one of the first k timestamps lies in [start − τ, end + τ], else 0. */
export function hitAt(
  predictions: readonly number[],
  window: TimeWindow,
  k: number,
  tolerance: number,
): 0 | 1 {
  return predictions
    .slice(0, k)
    .some((t) => t >= window.start - tolerance && t <= window.end + tolerance)
    ? 1
    : 0;
}

/**
 * The paper's table for one query (Table 7's columns): plain `R1`, `R3`, `R5` (τ = 0: a time
 * inside the window itself), then `R1@1`, `R3@1`, … `R5@10`, each 1 or 0.
 */
export function recallTable(
  predictions: readonly number[],
  window: TimeWindow,
): Record<string, 0 | 1> {
  const table: Record<string, 0 | 1> = {};
  for (const k of PAPER_KS) table[`R${k}`] = hitAt(predictions, window, k, 0);
  for (const tolerance of PAPER_TOLERANCES) {
    for (const k of PAPER_KS)
      table[`R${k}@${tolerance}`] = hitAt(predictions, window, k, tolerance);
  }
  return table;
}
