/**
 * The action language: the six primitives of the ITCMA-S sandbox (go, use, leave, take, put,
 * chat) and `rest`, read out of whatever a model wrote. Reading is tolerant: case, an
 * `Action:` prefix, list bullets, surrounding quotes and trailing punctuation do not matter,
 * a leading article before a name is skipped, and the first line that reads as an action wins
 * (lines marked `Action:` are tried first). Whether the action can be done now is the rules'
 * business (rules.ts); this module only reads it and names what it refers to.
 */
import { WORLD_BOUNDS } from './format.ts';
import type { Layout, NameKind } from './layout.ts';

/** An action with every name resolved to an id. */
export type Action =
  | { verb: 'go'; area: string }
  | { verb: 'leave-area'; area: string }
  | { verb: 'leave-person'; agent: string }
  /** `from` is absent when the text did not say; the rules look where the item lies. */
  | { verb: 'take'; item: string; from?: string }
  | { verb: 'put'; item: string; furniture: string }
  | { verb: 'use'; furniture: string }
  | { verb: 'chat'; agent: string; text: string }
  | { verb: 'rest' };

export type ReadAction =
  | { ok: true; action: Action }
  /** `syntax`: no line reads as an action; `name`: an action naming something that is not there. */
  | { ok: false; kind: 'syntax' | 'name'; message: string };

/** The action forms, as a model is told them when it writes something else. */
export const ACTION_FORMS =
  'go to AREA, leave AREA, leave PERSON, take ITEM from FURNITURE, put ITEM on FURNITURE, use FURNITURE, chat with PERSON: TEXT, rest';

/** The canonical text of an action (what the action space lists and results report). */
export function formatAction(action: Action, layout?: Layout): string {
  switch (action.verb) {
    case 'go':
      return `go to ${action.area}`;
    case 'leave-area':
      return `leave ${action.area}`;
    case 'leave-person':
      return `leave ${action.agent}`;
    case 'take':
      return action.from ? `take ${action.item} from ${action.from}` : `take ${action.item}`;
    case 'put':
      return `put ${action.item} ${preposition(layout, action.furniture)} ${action.furniture}`;
    case 'use':
      return `use ${action.furniture}`;
    case 'chat':
      return action.text
        ? `chat with ${action.agent}: ${action.text}`
        : `chat with ${action.agent}`;
    case 'rest':
      return 'rest';
    default:
      return action satisfies never;
  }
}

/** `on` or `in`, as the furniture holds things. */
export function preposition(layout: Layout | undefined, furniture: string): 'on' | 'in' {
  return layout?.furniture.get(furniture)?.holds ?? 'on';
}

/** Reads the first action in `text`. */
export function readAction(text: string, layout: Layout): ReadAction {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const marked = lines.filter((l) => ACTION_PREFIX.test(stripBullet(l)));
  let firstNameProblem: ReadAction | undefined;
  for (const line of [...marked, ...lines.filter((l) => !marked.includes(l))]) {
    const read = readLine(clean(line), layout);
    if (read.ok) return read;
    if (read.kind === 'name') firstNameProblem ??= read;
  }
  if (firstNameProblem) return firstNameProblem;
  const shown = lines[0] ? clip(clean(lines[0]), 80) : '';
  return {
    ok: false,
    kind: 'syntax',
    message: shown
      ? `"${shown}" is not an action; write one of: ${ACTION_FORMS}`
      : `no action given; write one of: ${ACTION_FORMS}`,
  };
}

const ACTION_PREFIX = /^(?:\*\*)?action\s*(?:\*\*)?\s*[:：-]\s*(?:\*\*)?\s*/i;
const BULLET = /^(?:[-*•>]|\d{1,3}[.)])\s+/;
const QUOTES = `"'\`“”‘’*`;

function stripBullet(line: string): string {
  return line.replace(BULLET, '');
}

/** A line without bullet, `Action:` prefix, or quotes around the whole of it. */
function clean(line: string): string {
  let out = stripBullet(line).replace(ACTION_PREFIX, '').trim();
  // Quotes around the whole line (a model quoting its choice), not an apostrophe inside it.
  while (out.length > 1 && QUOTES.includes(out[0]!)) {
    const end = out.lastIndexOf(out[0] === '“' ? '”' : out[0] === '‘' ? '’' : out[0]!);
    out = (end > 0 ? out.slice(1, end) + out.slice(end + 1) : out.slice(1)).trim();
  }
  return out;
}

/** A name without trailing punctuation or quotes. */
function bare(text: string): string {
  return text
    .trim()
    .replace(/[.!?;,:"“”`*]+$/u, '')
    .trim();
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

type Resolved = { ok: true; id: string } | { ok: false; kind: 'name'; message: string };

const KIND_WORD: Record<NameKind, string> = {
  area: 'an area',
  furniture: 'furniture',
  item: 'an item',
  agent: 'a person',
};
const NO_SUCH: Record<NameKind, string> = {
  area: 'area',
  furniture: 'furniture',
  item: 'item',
  agent: 'person',
};

/** Finds a name of one of `kinds`, with or without a leading article. */
function resolve(text: string, kinds: readonly NameKind[], layout: Layout): Resolved {
  const name = bare(text);
  const candidates = [name, name.replace(/^(?:the|a|an|my)\s+/i, '')];
  for (const candidate of candidates) {
    const named = layout.names.get(candidate.toLowerCase());
    if (!named) continue;
    if (kinds.includes(named.kind)) return { ok: true, id: named.id };
    return {
      ok: false,
      kind: 'name',
      message: `"${named.id}" is ${KIND_WORD[named.kind]}, not ${kinds.map((k) => KIND_WORD[k]).join(' or ')}`,
    };
  }
  return {
    ok: false,
    kind: 'name',
    message: `there is no ${kinds.map((k) => NO_SUCH[k]).join(' or ')} "${clip(name, 60)}"`,
  };
}

const GO = /^(?:go|walk|move|head|return|run)\s+(?:back\s+)?(?:in)?to\s+(.+)$|^goto\s+(.+)$/i;
const LEAVE = /^leave\s+(.+)$/i;
const TAKE = /^(?:take|pick\s+up|grab|get)\s+(.+)$/i;
const TAKE_FROM = /\s+(?:from|off|out\s+of)\s+/gi;
const PUT = /^(?:put|place|drop|set)\s+(.+)$/i;
const PUT_ON = /\s+(?:on|onto|upon|in|into|inside)\s+/gi;
const USE = /^use\s+(.+)$/i;
const CHAT = /^(?:chat|talk|speak)\s+(?:with|to)\s+(.+)$/is;
const REST = /^(?:rest|wait|do nothing|stay|sleep|idle)\b[\s.!]*$/i;

/** Reads one cleaned line; a syntax failure means "not an action at all". */
function readLine(line: string, layout: Layout): ReadAction {
  if (REST.test(line)) return { ok: true, action: { verb: 'rest' } };
  const chat = CHAT.exec(line);
  if (chat) return readChat(chat[1]!, layout);
  const go = GO.exec(line);
  if (go) {
    const area = resolve(go[1] ?? go[2]!, ['area'], layout);
    return area.ok ? { ok: true, action: { verb: 'go', area: area.id } } : area;
  }
  const leave = LEAVE.exec(line);
  if (leave) {
    const target = resolve(leave[1]!, ['area', 'agent'], layout);
    if (!target.ok) return target;
    return {
      ok: true,
      action: layout.agents.has(target.id)
        ? { verb: 'leave-person', agent: target.id }
        : { verb: 'leave-area', area: target.id },
    };
  }
  const take = TAKE.exec(line);
  if (take) {
    const split = splitAt(take[1]!, TAKE_FROM, layout, 'item', 'furniture');
    if (split?.ok) return { ok: true, action: { verb: 'take', item: split.a, from: split.b } };
    // `take toy 1`, without saying from where: the rules look where it lies.
    const item = resolve(take[1]!, ['item'], layout);
    if (item.ok) return { ok: true, action: { verb: 'take', item: item.id } };
    return split ?? item;
  }
  const put = PUT.exec(line);
  if (put) {
    const split = splitAt(put[1]!, PUT_ON, layout, 'item', 'furniture');
    if (split?.ok) return { ok: true, action: { verb: 'put', item: split.a, furniture: split.b } };
    return (
      split ?? { ok: false, kind: 'name', message: 'say where to put it: put ITEM on FURNITURE' }
    );
  }
  const use = USE.exec(line);
  if (use) {
    const furniture = resolve(use[1]!, ['furniture'], layout);
    return furniture.ok
      ? { ok: true, action: { verb: 'use', furniture: furniture.id } }
      : furniture;
  }
  return { ok: false, kind: 'syntax', message: '' };
}

type Split = { ok: true; a: string; b: string } | { ok: false; kind: 'name'; message: string };

/**
 * Splits `A JOIN B` where A and B name a `first` and a `second` thing. Names may contain the
 * joining word themselves, so every place it occurs is tried; the first split whose two parts
 * both name the right kinds wins. Undefined when the joining word does not occur.
 */
function splitAt(
  rest: string,
  joiner: RegExp,
  layout: Layout,
  first: NameKind,
  second: NameKind,
): Split | undefined {
  let problem: Split | undefined;
  for (const m of rest.matchAll(joiner)) {
    const a = resolve(rest.slice(0, m.index), [first], layout);
    const b = resolve(rest.slice(m.index + m[0].length), [second], layout);
    if (a.ok && b.ok) return { ok: true, a: a.id, b: b.id };
    problem ??= a.ok ? (b as Split) : a;
  }
  return problem;
}

/** `chat with NAME: TEXT`, `chat with NAME "TEXT"`, or `chat with NAME` alone. */
function readChat(rest: string, layout: Layout): ReadAction {
  const colon = rest.indexOf(':');
  let who = colon >= 0 ? rest.slice(0, colon) : rest;
  let text = colon >= 0 ? rest.slice(colon + 1) : '';
  if (colon < 0) {
    // No colon: the longest known person's name at the start, the rest is what is said.
    const lower = rest.toLowerCase().replace(/^(?:the\s+)/, '');
    let best = '';
    for (const [name, named] of layout.names) {
      if (named.kind !== 'agent' || name.length <= best.length) continue;
      if (lower.startsWith(name) && /^(?:$|[\s,;"“'‘—-])/.test(lower.slice(name.length)))
        best = name;
    }
    if (best) {
      const offset = rest.length - lower.length;
      who = rest.slice(0, offset + best.length);
      text = rest.slice(offset + best.length).replace(/^[\s,;—-]+/, '');
    }
  }
  const agent = resolve(who, ['agent'], layout);
  if (!agent.ok) return agent;
  return { ok: true, action: { verb: 'chat', agent: agent.id, text: chatText(text) } };
}

/** What is said, without surrounding quotes, on one line, and cut to the bound. */
function chatText(text: string): string {
  let out = text.replace(/\s+/g, ' ').trim();
  const pairs: Record<string, string> = { '"': '"', '“': '”', "'": "'", '‘': '’' };
  const close = pairs[out[0] ?? ''];
  if (close && out.length > 1 && out.endsWith(close)) out = out.slice(1, -1).trim();
  return clip(out, WORLD_BOUNDS.chatLength);
}
