/**
 * What a cassette miss says: of the recorded requests, the one nearest to the request that
 * missed, and the first place they part (`messages[1].content[0].text`), quoted around where
 * they part. A long prompt that differs in one question then reads as that question, not as a
 * key. Works on any JSON requests: chat requests and expert requests alike, normalized.
 */

/** Where the nearest recording parts from a request, both sides quoted around the place. */
export interface RequestDifference {
  /** A JSON path into the request: `messages[1].content[0].text`, `model`. */
  path: string;
  /** The request's side there, clipped: `"…options: What is the shape?"`; `(absent)` if none. */
  asked: string;
  /** The recording's side there, clipped the same way. */
  recorded: string;
}

/** A request's leaves (strings, numbers, booleans, null) by JSON path, in document order. */
function leaves(value: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      leaves(item, `${path}[${i}]`, out);
    });
    // After the items: where a list grew, the first item that differs says more than its length.
    out.set(`${path}.length`, value.length);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) leaves(item, path ? `${path}.${key}` : key, out);
    }
  } else out.set(path, value);
  return out;
}

/** Characters two strings share from their start. */
function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** How alike a recording is to the request: equal leaves, then the first unequal's shared start. */
function likeness(asked: Map<string, unknown>, recorded: Map<string, unknown>): [number, number] {
  let equal = 0;
  let partial = 0;
  let first = true;
  for (const [path, value] of asked) {
    const other = recorded.get(path);
    if (other === value) equal++;
    else if (first) {
      first = false;
      if (typeof value === 'string' && typeof other === 'string')
        partial = sharedPrefix(value, other);
    }
  }
  return [equal, partial];
}

/** The first path where the two differ: a leaf of either that the other lacks or holds otherwise. */
function firstDifference(
  asked: Map<string, unknown>,
  recorded: Map<string, unknown>,
): string | undefined {
  for (const [path, value] of asked) if (recorded.get(path) !== value) return path;
  for (const path of recorded.keys()) if (!asked.has(path)) return path;
  return undefined;
}

const BEFORE = 24;
const AFTER = 36;
/** How far a quote grows to take in the whole of a word it would cut. */
const WORD = 256;

/**
 * One side quoted from a little before `at` to a little after, on one line. A quote never cuts
 * a word: a key pasted into a prompt is quoted whole or not at all, so redaction, which knows
 * whole keys, still finds it.
 */
function quote(value: unknown, at: number): string {
  if (value === undefined) return '(absent)';
  if (typeof value !== 'string') return JSON.stringify(value);
  let start = Math.max(0, at - BEFORE);
  let end = Math.min(value.length, at + AFTER);
  for (let n = 0; n < WORD && start > 0 && /\S/.test(value[start - 1]!); n++) start--;
  for (let n = 0; n < WORD && end < value.length && /\S/.test(value[end]!); n++) end++;
  const text = `${start > 0 ? '…' : ''}${value.slice(start, end)}${end < value.length ? '…' : ''}`;
  return JSON.stringify(text.replace(/\s+/g, ' '));
}

/**
 * The recording nearest to `request` (the most equal leaves; then the longest shared start
 * of the first text that differs) and where it parts from it; undefined with no recordings.
 */
export function nearestDifference(
  request: unknown,
  recordings: Iterable<unknown>,
): RequestDifference | undefined {
  const asked = leaves(request);
  let best: { leaves: Map<string, unknown>; score: [number, number] } | undefined;
  for (const recording of recordings) {
    const candidate = leaves(recording);
    const score = likeness(asked, candidate);
    if (
      !best ||
      score[0] > best.score[0] ||
      (score[0] === best.score[0] && score[1] > best.score[1])
    ) {
      best = { leaves: candidate, score };
    }
  }
  if (!best) return undefined;
  const path = firstDifference(asked, best.leaves);
  if (path === undefined) return undefined;
  const mine = asked.get(path);
  const theirs = best.leaves.get(path);
  const at =
    typeof mine === 'string' && typeof theirs === 'string' ? sharedPrefix(mine, theirs) : 0;
  return { path, asked: quote(mine, at), recorded: quote(theirs, at) };
}

/** The difference as the end of a miss message: `; the nearest recording differs at …`. */
export function describeDifference(difference: RequestDifference | undefined): string {
  if (!difference) return '';
  return `; the nearest recording differs at ${difference.path}: ${difference.asked} here, ${difference.recorded} recorded`;
}
