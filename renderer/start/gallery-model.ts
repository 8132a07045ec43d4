/**
 * The gallery's pure parts: what a search matches, how cards are grouped (by paper or by kind),
 * and the words of a card's badges.
 */
import type {
  TemplateEntry,
  TemplateKind,
  TemplatePaper,
} from '../../app/api/templates-contract.ts';
import { plural } from '../model/plural.ts';

/** Headings, in the order the gallery shows them. */
export const PAPERS: ReadonlyArray<{ id: TemplatePaper; title: string }> = [
  { id: 'nlsom', title: 'NLSOM: natural-language societies of mind' },
  { id: 'openagi', title: 'OpenAGI: language models with expert models' },
  { id: 'mindagent', title: 'MindAgent: CuisineWorld' },
  { id: 'itcma', title: 'ITCMA-S: a society forming' },
  { id: 'other', title: 'Other societies' },
];

export const KINDS: ReadonlyArray<{ id: TemplateKind | null; title: string }> = [
  { id: 'plans', title: 'Plans and tool chains' },
  { id: 'debates', title: 'Debates and votes' },
  { id: 'games', title: 'Games' },
  { id: 'sandboxes', title: 'Sandboxes' },
  { id: null, title: 'Other' },
];

export type Grouping = 'paper' | 'kind';

/** Whether every word of `query` is in the card's title, summary, citation or node types. */
export function matches(entry: TemplateEntry, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const paper = PAPERS.find((p) => p.id === entry.paper)?.title ?? '';
  const haystack = [
    entry.name,
    entry.summary,
    entry.description,
    paper,
    entry.kind ?? '',
    ...new Set(entry.outline.nodes.map((n) => n.type)),
  ]
    .join('\n')
    .toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** The entries matching `query`, under their headings; empty groups are left out. */
export function groupEntries(
  entries: readonly TemplateEntry[],
  query: string,
  by: Grouping,
): Array<{ id: string; title: string; entries: TemplateEntry[] }> {
  const found = entries.filter((e) => matches(e, query));
  const headings = by === 'paper' ? PAPERS : KINDS;
  return headings
    .map((h) => ({
      id: h.id ?? 'other',
      title: h.title,
      entries: found.filter((e) => (by === 'paper' ? e.paper : e.kind) === h.id),
    }))
    .filter((g) => g.entries.length > 0);
}

/** A key's badge: `OpenAI key` for OPENAI_API_KEY; a variable this page does not know by name. */
export function keyLabel(variable: string): string {
  const known: Record<string, string> = {
    OPENAI_API_KEY: 'OpenAI key',
    HF_TOKEN: 'Hugging Face key',
  };
  return known[variable] ?? `${variable} key`;
}

/** The key badges of a template: one per key, or `no key` when a live run needs none. */
export function keyBadges(entry: Pick<TemplateEntry, 'keys'>): string[] {
  return entry.keys.length ? entry.keys.map(keyLabel) : ['no key'];
}

/** The likely run in a few words: `12 calls · 3,400 tokens · $0.004`, `no model calls`. */
export function costBadge(estimate: TemplateEntry['estimate']): string {
  if (estimate.calls === 0) return 'no model calls';
  const usd = estimate.costUsd < 0.001 ? '<$0.001' : `$${estimate.costUsd.toFixed(3)}`;
  return `${plural(Math.round(estimate.calls), 'call')} · ${plural(Math.round(estimate.tokens), 'token')} · ${usd}`;
}

/** The start page's few, in their order. */
export function featured(entries: readonly TemplateEntry[]): TemplateEntry[] {
  return entries
    .filter((e) => e.featured !== null)
    .sort((a, b) => (a.featured ?? 0) - (b.featured ?? 0));
}
