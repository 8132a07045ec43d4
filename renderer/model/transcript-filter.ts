/**
 * Narrowing a transcript down: to one member (a node), to one copy of a replicated node or group
 * (`artists#3`, named by its item: "artists#3 (Cubism)"), and to one round or stage. The choices
 * offered are read from the messages themselves, so they grow while a run goes on and work the
 * same on a finished run; item names come from the document's `replicate` lists.
 */
import type { TranscriptMessage } from './run.ts';

/** Where in a loop a message was said: before the rounds, a round, after them, or outside any loop. */
export type RoundKey = 'before' | `r${number}` | 'after' | 'outside';

export interface TranscriptFilter {
  /** A node id: messages its instances sent. */
  node: string | null;
  /** A copy (`artists#3`, `artists#3/member#1`): messages sent from inside it. */
  copy: string | null;
  round: RoundKey | null;
}

export const NO_FILTER: TranscriptFilter = { node: null, copy: null, round: null };

export interface FilterOption<T extends string = string> {
  value: T;
  label: string;
}

export interface FilterOptions {
  members: FilterOption[];
  copies: FilterOption[];
  rounds: Array<FilterOption<RoundKey>>;
}

/** What the editor knows of a node to name it: its label and the items it is replicated over. */
export interface NodeNames {
  label?: string;
  items?: readonly unknown[];
}

/** The round key of a message. */
export function roundKeyOf(m: Pick<TranscriptMessage, 'round' | 'stage' | 'loop'>): RoundKey {
  if (m.round !== undefined) return `r${m.round}`;
  if (!m.loop) return 'outside';
  return m.stage === 'init' ? 'before' : 'after';
}

/**
 * The copies an instance id lies in, outermost first: `artists#3/questioner@r2` lies in
 * `artists#3`; `teams#1/speaker#2@r1` in `teams#1` and `teams#1/speaker#2`.
 */
export function copiesOf(instance: string): string[] {
  const copies: string[] = [];
  const path: string[] = [];
  for (const segment of instance.split('/')) {
    const bare = segment.replace(/@.*$/, '');
    path.push(bare);
    if (/#\d+$/.test(bare)) copies.push(path.join('/'));
  }
  return copies;
}

/** "artists#3 (Cubism)": a copy with the item each of its replications stands for. */
export function copyLabel(copy: string, names: ReadonlyMap<string, NodeNames>): string {
  const items: string[] = [];
  for (const segment of copy.split('/')) {
    const match = /^(.*)#(\d+)$/.exec(segment);
    if (!match) continue;
    const item = names.get(match[1]!)?.items?.[Number(match[2])];
    if (item !== undefined) items.push(typeof item === 'string' ? item : JSON.stringify(item));
  }
  return items.length ? `${copy} (${items.join(' · ')})` : copy;
}

/** The item a message's sender stands for, innermost copy first ("Cubism"), if any. */
export function senderItem(
  from: string,
  names: ReadonlyMap<string, NodeNames>,
): string | undefined {
  const copy = copiesOf(from).at(-1);
  if (!copy) return undefined;
  const label = copyLabel(copy, names);
  return label === copy ? undefined : label.slice(copy.length + 2, -1);
}

const inCopy = (from: string, copy: string) =>
  from === copy || from.startsWith(`${copy}/`) || from.startsWith(`${copy}@`);

/** The messages that pass the filter, in their order. */
export function filterMessages(
  messages: readonly TranscriptMessage[],
  filter: TranscriptFilter,
): TranscriptMessage[] {
  if (!filter.node && !filter.copy && !filter.round) return messages as TranscriptMessage[];
  return messages.filter(
    (m) =>
      (!filter.node || m.node === filter.node) &&
      (!filter.copy || inCopy(m.from, filter.copy)) &&
      (!filter.round || roundKeyOf(m) === filter.round),
  );
}

const ROUND_ORDER = (key: RoundKey): number =>
  key === 'before' ? -1 : key === 'after' ? 1e9 : key === 'outside' ? 2e9 : Number(key.slice(1));

/**
 * The choices each filter offers for these messages: members in the order they first spoke,
 * copies in index order (only those of the chosen member, when one is), rounds in run order.
 * The current choice stays offered even before a message of it arrives.
 */
export function filterOptions(
  messages: readonly TranscriptMessage[],
  names: ReadonlyMap<string, NodeNames>,
  current: TranscriptFilter = NO_FILTER,
): FilterOptions {
  const members = new Set<string>();
  const copies = new Set<string>();
  const rounds = new Set<RoundKey>();
  for (const m of messages) {
    members.add(m.node);
    rounds.add(roundKeyOf(m));
    if (!current.node || m.node === current.node) for (const c of copiesOf(m.from)) copies.add(c);
  }
  if (current.node) members.add(current.node);
  if (current.copy) copies.add(current.copy);
  if (current.round) rounds.add(current.round);
  return {
    members: [...members].map((id) => {
      const label = names.get(id)?.label;
      return { value: id, label: label && label !== id ? `${label} (${id})` : id };
    }),
    copies: [...copies]
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .map((c) => ({ value: c, label: copyLabel(c, names) })),
    rounds: [...rounds]
      .sort((a, b) => ROUND_ORDER(a) - ROUND_ORDER(b))
      .map((key) => ({ value: key, label: roundLabel(key) })),
  };
}

function roundLabel(key: RoundKey): string {
  switch (key) {
    case 'before':
      return 'Before the rounds';
    case 'after':
      return 'After the rounds';
    case 'outside':
      return 'Outside any loop';
    default:
      return `Round ${key.slice(1)}`;
  }
}
