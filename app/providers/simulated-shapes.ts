/**
 * The simulated provider's shaped answers: one of the offered options, a ballot, a JSON value.
 * Nothing here is random: choices go to what the prompt talks about most (the words an option
 * shares with the rest of the prompt: the question, the notes, the transcript), and only ties
 * are broken by the request's seed. A made-up answer is then at least the one its context
 * points at, as the NLSOM replay's "a red circle" after the members said "red".
 */

/** A seeded integer in [0, n). */
export type Draw = (n: number) => number;

// Words too common to say what an option is about.
const STOP = new Set(
  (
    'the and for with that this from what which who whom whose are was were been being have has had ' +
    'not but its it’s into onto about than then there their they them you your our out one two any ' +
    'all can could would should will shall may might must does did doing done how why when where ' +
    'answer option options letter only please choose pick reply question most more some each very ' +
    'simulated'
  ).split(' '),
);

/** The content words of a text, lower case, in order (repeats kept). */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (w) => w.length >= 3 && !STOP.has(w),
  );
}

/**
 * How strongly a context talks about an option: for each distinct word of the option, how often
 * the context says it, summed.
 */
function overlap(option: string, counts: Map<string, number>): number {
  let score = 0;
  for (const word of new Set(contentWords(option))) score += counts.get(word) ?? 0;
  return score;
}

function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of contentWords(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * The indices of `options` from the most to the least talked about in `context`; equal scores
 * in a seeded order.
 */
export function rankByContext(options: readonly string[], context: string, draw: Draw): number[] {
  const counts = wordCounts(context);
  const keyed = options.map((option, index) => ({
    index,
    score: overlap(option, counts),
    tie: draw(1 << 16),
  }));
  keyed.sort((a, b) => b.score - a.score || a.tie - b.tie || a.index - b.index);
  return keyed.map((k) => k.index);
}

/**
 * Candidates from the most to the least talked about, counting what sets each apart: a word
 * shared by several candidates ("Artist" in 15 style names) counts at most once, a word of its
 * own as often as it is said, and a name's score is the mean over its words, so a long name is not favoured for being
 * long. A context that names every candidate alike (a ballot listing them all) leaves them
 * tied, and each voter's seeded draw decides: voters differ as real ones would.
 */
function rankCandidates(candidates: readonly string[], context: string, draw: Draw): number[] {
  const counts = wordCounts(context);
  // One draw picks where ties start, so any of many candidates can come first (the seed holds
  // only 16 independent draws, too few to draw for each of 26 candidates).
  const start = draw(candidates.length);
  const spread = new Map<string, number>();
  for (const candidate of candidates)
    for (const word of new Set(contentWords(candidate)))
      spread.set(word, (spread.get(word) ?? 0) + 1);
  const keyed = candidates.map((candidate, index) => {
    const words = [...new Set(contentWords(candidate))];
    const sum = words.reduce((s, w) => s + weigh(counts.get(w) ?? 0, spread.get(w)!), 0);
    const tie = (index - start + candidates.length) % candidates.length;
    return { index, score: words.length > 0 ? sum / words.length : 0, tie };
  });
  keyed.sort((a, b) => b.score - a.score || a.tie - b.tie);
  return keyed.map((k) => k.index);
}

/** A word's weight: how often it is said, for a word one candidate owns; at most 1 if shared. */
function weigh(count: number, candidatesWithIt: number): number {
  return candidatesWithIt === 1 ? count : Math.min(1, count / candidatesWithIt);
}

/** One option a prompt offers: its letter and what follows it. */
export interface OfferedOption {
  letter: string;
  text: string;
}

const OPTION = /\(([a-z])\)[ \t]*([^\n]*?)(?=[ \t]*\([a-z]\)|\n|$)/gi;

/**
 * The options a text offers as "(a) …", "(b) …": each letter once, in order of first mention,
 * with the most telling text found after it ("Answer with (a), (b) or (c): (a) bridge" gives
 * (b) its text "bridge" and not "or"). `rest` is the text with every option taken out, the
 * context the options are weighed against.
 */
export function offeredOptions(text: string): { options: OfferedOption[]; rest: string } {
  const found = new Map<string, string>();
  for (const match of text.matchAll(OPTION)) {
    const letter = match[1]!.toLowerCase();
    const said = match[2]!.replace(/^[\s,.;:]+|[\s,.;:]+$/g, '');
    const before = found.get(letter);
    const better =
      before === undefined ||
      contentWords(said).length > contentWords(before).length ||
      (contentWords(said).length === contentWords(before).length && said.length > before.length);
    if (better) found.set(letter, said);
  }
  return {
    options: [...found].map(([letter, said]) => ({ letter, text: said })),
    rest: text.replace(OPTION, ' '),
  };
}

/** The letter of the option the context talks about most, as "(b)". */
export function chooseOption(options: OfferedOption[], context: string, draw: Draw): string {
  const best = rankByContext(
    options.map((o) => o.text),
    context,
    draw,
  )[0]!;
  return `(${options[best]!.letter})`;
}

/** How a candidate is written on a ballot: a one-letter candidate as "(a)", so it reads as one. */
function onBallot(candidate: string): string {
  return /^[a-z]$/i.test(candidate.trim()) ? `(${candidate.trim()})` : candidate;
}

/**
 * A ballot over `candidates`, chosen by what the context says of them: the name of the one it
 * talks about most, every candidate ranked ("A > B > C"), or the approved few (the best, and
 * up to two more that the context mentions too).
 */
export function castBallot(
  candidates: readonly string[],
  form: 'single' | 'ranking' | 'approval',
  context: string,
  draw: Draw,
): string {
  const order = rankCandidates(candidates, context, draw).map((i) => candidates[i]!);
  switch (form) {
    case 'single':
      return onBallot(order[0]!);
    case 'ranking':
      return order.map(onBallot).join(' > ');
    case 'approval': {
      const counts = wordCounts(context);
      const mentioned = order.slice(1).filter((c) => overlap(c, counts) > 0);
      return [order[0]!, ...mentioned.slice(0, 2)].map(onBallot).join(', ');
    }
    default:
      return form satisfies never;
  }
}

/**
 * The first JSON object or array written in a text (an example of the answer a prompt wants),
 * or undefined.
 */
export function jsonExample(text: string): unknown {
  for (let start = 0; start < text.length; start++) {
    const open = text[start];
    if (open !== '{' && open !== '[') continue;
    const end = closingBracket(text, start);
    if (end < 0) continue;
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (value !== null && typeof value === 'object') return value;
    } catch {
      // not JSON (a template brace, a list in prose): look further
    }
  }
  return undefined;
}

/** Index of the bracket closing the one at `start`, skipping strings; -1 when never closed. */
function closingBracket(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if ((ch === '}' || ch === ']') && --depth === 0) return i;
  }
  return -1;
}

/**
 * A value shaped like `example`: the same keys and nesting, every string a labelled made-up
 * phrase from `say`, numbers and booleans as the example has them.
 */
export function likeExample(example: unknown, say: (path: string) => string, path = ''): unknown {
  if (typeof example === 'string') return say(path);
  if (Array.isArray(example)) {
    return example.slice(0, 3).map((item, i) => likeExample(item, say, `${path}[${i}]`));
  }
  if (example !== null && typeof example === 'object') {
    return Object.fromEntries(
      Object.entries(example).map(([key, value]) => [
        key,
        likeExample(value, say, `${path}.${key}`),
      ]),
    );
  }
  return example;
}
