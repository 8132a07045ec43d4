/**
 * Reading free-text ballots: what a model wrote ("I'd go with (b)", "A > C > B", "red, blue")
 * turned into the candidates it names, against a given list or one collected from the ballots.
 * Pure, like the counting that uses it (./tally.ts).
 */
import type { BallotReading, VoteRule } from '../../app/node-sdk/tally.ts';
import type { Ballot } from './tally.ts';

// ---------------------------------------------------------------------------------------------
// Candidates

export interface CandidatePool {
  /** True for a given list; false when candidates are collected from the ballots. */
  readonly fixed: boolean;
  /** Display names in candidate order. */
  readonly list: string[];
  /** Normalised key → display name. */
  readonly byKey: Map<string, string>;
}

export function fixedPool(candidates: readonly string[]): CandidatePool {
  const pool: CandidatePool = { fixed: true, list: [], byKey: new Map() };
  for (const candidate of candidates) {
    const prepared = prepare(String(candidate));
    // A candidate made only of punctuation still needs a key of its own.
    const key = keyOf(prepared) || collapse(prepared).toLowerCase();
    if (key === '' || pool.byKey.has(key)) continue;
    pool.byKey.set(key, candidate);
    pool.list.push(candidate);
  }
  return pool;
}

export function derivedPool(): CandidatePool {
  return { fixed: false, list: [], byKey: new Map() };
}

// ---------------------------------------------------------------------------------------------
// Reading ballots

type Tier = 'exact' | 'letter' | 'phrase' | 'derived';

interface Resolved {
  candidate: string;
  tier: Tier;
}

export function readBallot(ballot: Ballot, rule: VoteRule, pool: CandidatePool): BallotReading {
  const { voter, value } = ballot;
  const invalid = (reason: string): BallotReading => ({
    voter,
    value,
    choices: [],
    valid: false,
    reason,
  });

  const unmatched: string[] = [];
  let items: string[];
  let text: string | undefined;
  if (Array.isArray(value)) {
    items = [];
    for (const item of value) {
      if (isScalar(item)) items.push(String(item));
      else unmatched.push(`<${describe(item)}>`);
    }
  } else if (isScalar(value)) {
    text = String(value);
    if (text.trim() === '') return invalid('empty ballot');
    items = splitText(text, rule, pool);
  } else {
    return invalid(`unreadable ballot value (${describe(value)})`);
  }

  const single = rule === 'plurality' || rule === 'majority';
  const choices: string[] = [];
  for (const item of items) {
    if (single && choices.length > 0) break;
    const found = rule === 'approval' ? readApprovalItem(item, pool) : readItem(item, pool);
    if (found.length === 0) {
      if (item.trim() !== '') unmatched.push(item.trim());
      continue;
    }
    for (const c of found) if (!choices.includes(c)) choices.push(c);
  }

  if (choices.length === 0) {
    if (items.every((item) => item.trim() === '') && unmatched.length === 0) {
      return invalid('empty ballot');
    }
    const what = text !== undefined ? `"${preview(text)}"` : `any of ${items.length} entries`;
    return invalid(
      pool.fixed ? `no candidate matched ${what}` : `could not read a choice from ${what}`,
    );
  }
  const reading: BallotReading = { voter, value, choices, valid: true };
  if (unmatched.length > 0) reading.unmatched = unmatched;
  return reading;
}

/** Splits a text ballot into the items the rule reads. */
function splitText(text: string, rule: VoteRule, pool: CandidatePool): string[] {
  if (rule === 'plurality' || rule === 'majority') {
    // Read the whole answer first; only if that fails treat "b > a" or lines as a ranking.
    if (!pool.fixed || resolve(text, pool) !== null) return [text];
    if (!RANKING_SEPARATOR.test(text) && !/\n/.test(text)) return [text];
    return listItems(splitList(text, rankingSeparators(text), pool));
  }
  const separators = rule === 'borda' ? rankingSeparators(text) : LIST_SEPARATORS;
  return listItems(splitList(text, separators, pool.fixed ? pool : null));
}

const RANKING_SEPARATOR = /-+>|=>|>+|≻|→/;
const RANKING_SPLIT = /\s*(?:-+>|=>|>+|≻|→)\s*/;
const LIST_SEPARATORS: readonly RegExp[] = [/\r?\n/, /;/, /,/];

function rankingSeparators(text: string): readonly RegExp[] {
  return RANKING_SEPARATOR.test(text) ? [RANKING_SPLIT] : LIST_SEPARATORS;
}

/**
 * Splits on the strongest separator present first (lines, then ";", then ","), leaving alone
 * any part that names a candidate exactly, so "Doe, Jane; Smith, John" keeps both names whole.
 */
function splitList(
  text: string,
  separators: readonly RegExp[],
  pool: CandidatePool | null,
): string[] {
  const [separator, ...weaker] = separators;
  if (separator === undefined || (pool !== null && resolve(text, pool)?.tier === 'exact')) {
    return [text];
  }
  return text.split(separator).flatMap((part) => splitList(part, weaker, pool));
}

/** Drops blank items and header lines such as "My ranking:" that only introduce the list. */
function listItems(parts: string[]): string[] {
  return parts.filter((p) => p.trim() !== '' && !/:\s*$/.test(p));
}

function readItem(item: string, pool: CandidatePool): string[] {
  const found = resolve(item, pool);
  return found ? [found.candidate] : [];
}

/** Approval items may name several candidates: "Monet and Picasso", "(a) & (c)". */
function readApprovalItem(item: string, pool: CandidatePool): string[] {
  const whole = resolve(item, pool);
  // Derived candidates are never split on "and": "Rock and Roll" could be one answer.
  if (whole && (whole.tier === 'exact' || whole.tier === 'derived')) return [whole.candidate];
  const parts = item.split(/\s+and\s+|\s*&\s*/i).filter((p) => p.trim() !== '');
  if (parts.length > 1) {
    const found: string[] = [];
    for (const part of parts) {
      const hit = resolve(part, pool);
      if (hit) found.push(hit.candidate);
    }
    if (found.length > 0) return found;
  }
  return whole ? [whole.candidate] : [];
}

/** Reads one answer as one candidate, or null. Adds new candidates to a derived pool. */
function resolve(raw: string, pool: CandidatePool): Resolved | null {
  const full = prepare(raw);
  if (full === '') return null;
  const focus = focusOn(full);

  if (!pool.fixed) {
    const display = derivedName(focus) || derivedName(full);
    if (display === '') return null;
    const key = display.toLowerCase();
    const known = pool.byKey.get(key);
    if (known !== undefined) return { candidate: known, tier: 'derived' };
    pool.byKey.set(key, display);
    pool.list.push(display);
    return { candidate: display, tier: 'derived' };
  }

  const texts = focus === full ? [full] : [focus, full];
  for (const text of [full, focus]) {
    const hit = pool.byKey.get(keyOf(text));
    if (hit !== undefined) return { candidate: hit, tier: 'exact' };
  }
  for (const text of texts) {
    const index = optionLetter(text, pool.list.length);
    if (index !== null) return { candidate: pool.list[index]!, tier: 'letter' };
  }
  for (const text of texts) {
    const hit = phraseMatch(text, pool);
    if (hit !== null) return { candidate: hit, tier: 'phrase' };
  }
  return null;
}

// Cues after which the actual answer follows; the text after the LAST one is the answer, since
// models often reason first ("... so the answer is (b)").
const CUE =
  /(?<![\p{L}\p{N}])(?:answer|vote|choice|pick|selection|verdict|winner|ranking|order|preference|approval)s?[\s*_]*(?:(?:is|are|goes\s+to|would\s+be|will\s+be)(?![\p{L}\p{N}])|[:=])[\s*_:]*|(?<![\p{L}\p{N}])i(?:\s+would|\s+will|'d|'ll)?\s+(?:vote|choose|pick|select|go|approve|rank|support|back)(?:\s+(?:for|with|of|on))?(?![\p{L}\p{N}])[\s:]*/giu;

// Filler that may precede the answer itself ("I think it's option (b)").
const FILLER =
  /^(?:i\s+(?:think|believe|guess|say|would\s+say)(?:\s+that)?|i'd\s+say|in\s+my\s+(?:opinion|view)|so|thus|therefore|hence|overall|definitely|clearly|probably|obviously|surely|well|ok(?:ay)?|and|or|then|it\s+is|it's|that\s+is|that's|this\s+is|(?:the\s+)?(?:(?:correct|best|right|final)\s+)?(?:answer|option|choice|candidate|letter)(?:\s+is)?)(?![\p{L}\p{N}])[\s,:;=-]*/iu;

const LIST_MARKER = /^(?:\d{1,3}\s*[.)]|[-•+])\s+/u;

/** The part of an answer that carries the choice; the whole text when nothing is stripped. */
function focusOn(full: string): string {
  let end = -1;
  for (const match of full.matchAll(CUE)) end = match.index + match[0].length;
  let text = end >= 0 && full.slice(end).trim() !== '' ? full.slice(end) : full;
  for (;;) {
    const next = text.replace(EDGE_START, '').replace(LIST_MARKER, '').replace(FILLER, '');
    if (next === text) break;
    text = next;
  }
  text = text.trim();
  return text === '' ? full : text;
}

const LETTER_PREFIX = /^(?:[([{]\s*([a-z])\s*[)\]}]|([a-z])(?:[).:,\]]|\s+[-–—:])(?=\s|$))/i;
const LETTER_ANYWHERE = /[([{]\s*([a-z])\s*[)\]}]/gi;

/** Index of the candidate an option letter points at ("(b)", "b)", "b.", "B"), or null. */
function optionLetter(text: string, count: number): number | null {
  const indexOf = (letter: string): number | null => {
    const index = letter.toLowerCase().charCodeAt(0) - 97;
    return index < count ? index : null;
  };
  const trimmed = text.replace(EDGE_START, '');
  const prefix = LETTER_PREFIX.exec(trimmed);
  const leading = prefix?.[1] ?? prefix?.[2];
  if (leading !== undefined) return indexOf(leading);
  const key = keyOf(trimmed);
  if (/^[a-z]$/.test(key)) return indexOf(key);
  // "(b)" somewhere in a longer answer counts only when no other in-range letter is named.
  const named = new Set<number>();
  for (const match of trimmed.matchAll(LETTER_ANYWHERE)) {
    const index = indexOf(match[1]!);
    if (index !== null) named.add(index);
  }
  return named.size === 1 ? [...named][0]! : null;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The candidate named earliest in the text as a whole phrase (longest on a shared start). */
function phraseMatch(text: string, pool: CandidatePool): string | null {
  const haystack = collapse(text).toLowerCase();
  let best: { at: number; length: number; candidate: string } | null = null;
  for (const [key, candidate] of pool.byKey) {
    // One-character keys ("a" from "(a)") would match ordinary words; letters handle those.
    if (key.length < 2) continue;
    const at = findPhrase(haystack, key);
    if (at < 0) continue;
    if (best === null || at < best.at || (at === best.at && key.length > best.length)) {
      best = { at, length: key.length, candidate };
    }
  }
  return best?.candidate ?? null;
}

function findPhrase(haystack: string, needle: string): number {
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack.charAt(at - 1);
    const after = haystack.charAt(at + needle.length);
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return at;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Text normalisation

const EDGE_START = /^[\s"'`*_~.…¿¡«»‹›„‚]+/u;
const EDGE_END = /[\s"'`*_~.,;:!?…«»‹›„‚。、]+$/u;
const BRACKETS: ReadonlyMap<string, string> = new Map([
  ['(', ')'],
  ['[', ']'],
  ['{', '}'],
]);

/** Unicode-normalises, drops reasoning blocks and straightens curly quotes. */
function prepare(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/[\u2018\u2019\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201F\u2033]/g, '"')
    .trim();
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A candidate's name read from a ballot: without wrapping quotes or closing punctuation, unless
 * removing them would cut a quotation in half (`… given "the plan".` keeps its closing `".`).
 */
function derivedName(text: string): string {
  const stripped = collapse(stripWrapping(text));
  return occurrences(stripped, '"') % 2 === 0 ? stripped : collapse(text);
}

/** Comparison key: no surrounding quotes, brackets or punctuation, collapsed, lower case. */
function keyOf(text: string): string {
  return collapse(stripWrapping(text)).toLowerCase();
}

/**
 * Removes surrounding quotes, markdown emphasis, sentence punctuation and brackets that wrap
 * the whole text or are unbalanced, so "(a)" and "**a.**" read as "a" while "Paris (France)"
 * and "C#" keep their shape.
 */
function stripWrapping(text: string): string {
  let s = text;
  for (;;) {
    const before = s;
    s = s.replace(EDGE_START, '').replace(EDGE_END, '');
    const open = s.charAt(0);
    const close = BRACKETS.get(open);
    if (close !== undefined) {
      const end = matchingClose(s, open, close);
      if (end === s.length - 1) s = s.slice(1, -1);
      else if (end === -1) s = s.slice(1);
    }
    const last = s.charAt(s.length - 1);
    for (const [o, c] of BRACKETS) {
      if (last === c && occurrences(s, c) > occurrences(s, o)) {
        s = s.slice(0, -1);
        break;
      }
    }
    if (s === before) return s;
  }
}

/** Index of the bracket closing the one at index 0, or -1 when it is never closed. */
function matchingClose(text: string, open: string, close: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === open) depth++;
    else if (ch === close && --depth === 0) return i;
  }
  return -1;
}

function occurrences(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

function isScalar(value: unknown): value is string | number | boolean | bigint {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function preview(text: string): string {
  const flat = collapse(text);
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
