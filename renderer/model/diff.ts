/**
 * Two runs side by side: the backend's diff (`runs.diff`, the data `society diff` prints)
 * arranged for two columns, each sender's messages grouped by round as the transcript groups them.
 */
import type { ApiRunDiff } from '../../app/api/contract.ts';

export type MessageDiffRow = ApiRunDiff['messages'][number];

export interface DiffSection {
  key: string;
  title: string;
  rows: MessageDiffRow[];
  /** Rows that differ (changed, or said in one run only). */
  differing: number;
}

/** Messages grouped by loop, round and stage, in the order each group was first heard. */
export function diffSections(messages: readonly MessageDiffRow[]): DiffSection[] {
  const sections = new Map<string, DiffSection>();
  for (const m of messages) {
    const key = `${m.loop ?? ''}:${m.round ?? ''}:${m.round === undefined ? (m.stage ?? '') : ''}`;
    let section = sections.get(key);
    if (!section) {
      const where = m.loop ? ` · ${m.loop}` : '';
      const title =
        m.round !== undefined
          ? `Round ${m.round}${where}`
          : m.stage
            ? `${m.stage === 'init' ? 'Before the rounds' : 'After the rounds'} (${m.stage})${where}`
            : 'Messages';
      section = { key, title, rows: [], differing: 0 };
      sections.set(key, section);
    }
    section.rows.push(m);
    if (m.change !== 'same') section.differing++;
  }
  return [...sections.values()];
}

export function diffCounts(messages: readonly MessageDiffRow[]) {
  const counts = { same: 0, changed: 0, onlyA: 0, onlyB: 0 };
  for (const m of messages) counts[m.change]++;
  return counts;
}

/** An output value as one readable string (images by reference, never inlined). */
export function showValue(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && '$image' in value) {
    return `[image ${(value as { mime?: string }).mime ?? ''}]`;
  }
  return JSON.stringify(value, null, 2);
}
