/**
 * Scorers: a prediction and a reference to a number in [0, 1] (or any number, for `number`'s
 * absolute error turned score). The text scorers normalise the way SQuAD-style evaluations do
 * (lower case, punctuation and articles dropped, spaces squeezed), so "The Eiffel Tower." and
 * "eiffel tower" agree.
 *
 * Scorers that need a model (`clip`, `bertscore`, `vit-distance`, `text-cosine`, `image-cosine`)
 * and scorer documents are run as societies
 * by the eval runner (graph-scorer.ts); `cos` scores an environment episode's order counts.
 */

import type { BlobStore } from '../runtime/blobs.ts';

/** What a scorer sees besides the prediction and reference: the item's row, for its options. */
export interface ScoreContext {
  row: Record<string, unknown>;
  /** The scored run's files (a picture it painted), for scorers that look at them. */
  blobs?: BlobStore;
  /** Every output of the scored run, for scorers that read more than the scored one. */
  outputs?: Record<string, unknown>;
}

export interface Scorer {
  name: string;
  /** Short, for tables: what the number means. */
  describe: string;
  score(prediction: unknown, reference: unknown, context: ScoreContext): number | Promise<number>;
}

/** Built-in scorers that need no model. */
export const TEXT_SCORERS = [
  'exact',
  'choice',
  'contains',
  'number',
  'f1',
  'rougeL',
  'cos',
] as const;
/**
 * Built-in scorers that ask a model through the metric node's kinds, each named for what it
 * computes: OpenAGI's three (CLIP score, BERTScore F1, the ViT distance, lower is better) and
 * the two embedding cosines.
 */
export const MODEL_SCORERS = {
  clip: 'clip-score',
  bertscore: 'bertscore',
  'vit-distance': 'vit-distance',
  'text-cosine': 'text-similarity',
  'image-cosine': 'image-similarity',
} as const;

/**
 * Names that used to promise the papers' metrics while computing embedding cosines: refused with
 * the two scorers each became.
 */
export const RENAMED_SCORERS: Readonly<Record<string, string>> = {
  bert: 'bertscore (BERTScore F1, as OpenAGI computes it) or text-cosine (the sentence-embedding cosine `bert` used to compute)',
  vit: "vit-distance (OpenAGI's ViT distance, lower is better) or image-cosine (the embedding cosine `vit` used to compute)",
};
export type ScorerName = (typeof TEXT_SCORERS)[number] | keyof typeof MODEL_SCORERS;
export const SCORER_NAMES: readonly string[] = [...TEXT_SCORERS, ...Object.keys(MODEL_SCORERS)];

/** A value as text: strings as they are, an object's `answer`/`text`/`value` field, else JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value && typeof value === 'object') {
    for (const key of ['answer', 'text', 'value', 'winner', 'choice']) {
      const field = (value as Record<string, unknown>)[key];
      if (typeof field === 'string' || typeof field === 'number') return String(field);
    }
  }
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** Lower case, no punctuation, no articles (a, an, the), single spaces. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const tokens = (text: string) => normalize(text).split(' ').filter(Boolean);

/** Token-overlap F1 of two texts (SQuAD's). */
export function tokenF1(prediction: string, reference: string): number {
  const p = tokens(prediction);
  const r = tokens(reference);
  if (p.length === 0 || r.length === 0) return p.length === r.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of r) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const left = counts.get(t) ?? 0;
    if (left > 0) {
      common++;
      counts.set(t, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** ROUGE-L F-measure (longest common subsequence of tokens; Lin 2004, β = 1). */
export function rougeL(prediction: string, reference: string): number {
  const p = tokens(prediction);
  const r = tokens(reference);
  if (p.length === 0 || r.length === 0) return p.length === r.length ? 1 : 0;
  let previous = new Array<number>(r.length + 1).fill(0);
  for (const token of p) {
    const row = new Array<number>(r.length + 1).fill(0);
    for (let j = 1; j <= r.length; j++)
      row[j] = token === r[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, row[j - 1]!);
    previous = row;
  }
  const lcs = previous[r.length]!;
  if (lcs === 0) return 0;
  const precision = lcs / p.length;
  const recall = lcs / r.length;
  return (2 * precision * recall) / (precision + recall);
}

/** The first number in a text ("about 1,250 people" → 1250), or undefined. */
export function firstNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const match = /-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?|-?\.\d+/i.exec(textOf(value));
  if (!match) return undefined;
  const n = Number(match[0].replace(/,/g, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** The options of a multiple-choice item: the row's `choices` (or `options`) list. */
function optionsOf(row: Record<string, unknown>): string[] {
  const list = row.choices ?? row.options;
  return Array.isArray(list) ? list.map((o) => String(o)) : [];
}

/**
 * The option letter an answer names: "(B)", "B.", "Answer: B", "the answer is b", or the text
 * of exactly one option ("a toothpick" when one option is "toothpick"). Undefined when it names
 * none or several.
 */
export function choiceLetter(answer: unknown, options: readonly string[]): string | undefined {
  // A simulated answer's label is not part of it; "(a)" in parentheses is a letter, whatever
  // its case (NLSOM's leaders answer "(a)" … "(d)").
  const text = textOf(answer)
    .trim()
    .replace(/^\[simulated\]\s*/, '')
    .replace(/^\(([a-z])\)/, (_, letter: string) => `(${letter.toUpperCase()})`);
  const count = Math.max(options.length, 4);
  const letters = `ABCDEFGHIJKLMNOPQRSTUVWXYZ`.slice(0, count);
  // "A toothpick" starts with an article, not a letter: a bare letter ends or is marked. A
  // lone letter in either case is an option (a vote's winner among "(b)" ballots reads "b").
  const explicit =
    /^\(([A-Z])\)|^([A-Z])(?:[.):]|$)|^([a-z])$/.exec(text) ??
    new RegExp(
      `\\b(?:answer|option|choice)(?:\\s+is)?\\s*[:(]?\\s*\\(?([${letters}])\\)?(?![A-Za-z])`,
      'i',
    ).exec(text);
  const letter = (explicit?.[1] ?? explicit?.[2] ?? explicit?.[3])?.toUpperCase();
  if (letter && letters.includes(letter)) return letter;
  const said = normalize(text);
  const named = options
    .map((option, i) => ({ i, option: normalize(option) }))
    .filter(
      ({ option }) => option !== '' && new RegExp(`(^| )${escapeRegExp(option)}( |$)`).test(said),
    );
  // "icing" inside "ice cream icing"? The longest option named wins when one contains another.
  const longest = named.filter((n) => !named.some((m) => m !== n && m.option.includes(n.option)));
  return longest.length === 1 ? letters[longest[0]!.i] : undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The reference as an option letter: a letter, a 0-based index, or an option's text. */
function referenceLetter(reference: unknown, options: readonly string[]): string | undefined {
  if (typeof reference === 'number' && Number.isInteger(reference))
    return String.fromCharCode(65 + reference);
  const text = textOf(reference).trim();
  if (/^\d+$/.test(text)) return String.fromCharCode(65 + Number(text));
  if (/^[A-Za-z]$/.test(text)) return text.toUpperCase();
  return choiceLetter(text, options);
}

/** The scorer `name` (one of TEXT_SCORERS); `tolerance` for `number`. */
export function textScorer(name: string, options: { tolerance?: number } = {}): Scorer {
  switch (name) {
    case 'exact':
      return {
        name,
        describe: 'exact match after normalising case, punctuation and articles',
        score: (p, r) => (normalize(textOf(p)) === normalize(textOf(r)) ? 1 : 0),
      };
    case 'contains':
      return {
        name,
        describe: 'the reference appears in the prediction',
        score: (p, r) => {
          const want = normalize(textOf(r));
          return want !== '' && ` ${normalize(textOf(p))} `.includes(` ${want} `) ? 1 : 0;
        },
      };
    case 'choice':
      return {
        name,
        describe: 'the option letter of a multiple-choice answer',
        score: (p, r, { row }) => {
          const options = optionsOf(row);
          const want = referenceLetter(r, options);
          return want !== undefined && choiceLetter(p, options) === want ? 1 : 0;
        },
      };
    case 'number': {
      const tolerance = options.tolerance ?? 0;
      return {
        name,
        describe: `the first number equals the reference within ${tolerance}`,
        score: (p, r) => {
          const a = firstNumber(p);
          const b = firstNumber(r);
          return a !== undefined && b !== undefined && Math.abs(a - b) <= tolerance + 1e-12 ? 1 : 0;
        },
      };
    }
    case 'f1':
      return {
        name,
        describe: 'token-overlap F1',
        score: (p, r) => tokenF1(textOf(p), textOf(r)),
      };
    case 'rougeL':
      return {
        name,
        describe: 'ROUGE-L F-measure',
        score: (p, r) => rougeL(textOf(p), textOf(r)),
      };
    case 'cos':
      return {
        name,
        describe:
          'orders completed of all orders in the episode (MindAgent CoS, open orders counted)',
        score: (p) => episodeCompletion(p),
      };
    default:
      throw new Error(`no scorer "${name}" (scorers: ${SCORER_NAMES.join(', ')})`);
  }
}

/**
 * An episode's completed orders over all its orders (completed + failed + open): one τ cell of
 * MindAgent's collaboration score. A prediction without order counts scores 0.
 */
function episodeCompletion(prediction: unknown): number {
  const m = (prediction ?? {}) as Record<string, unknown>;
  const n = (key: string) => (typeof m[key] === 'number' ? (m[key] as number) : 0);
  const total = n('completed') + n('failed') + n('open');
  return total > 0 ? n('completed') / total : 0;
}
