/** Reading a ranking of agents out of a model's answer. */
import { jsonInAnswer } from '../../app/node-sdk/answer-json.ts';
import { SIMULATED_LABEL } from '../../app/schema/simulated.ts';

/**
 * The agents in the order the answer ranks them: a JSON list (`{"ranking": […]}` or `[…]`),
 * else the order in which the ids first appear in the text. Ids the answer leaves out follow,
 * in the order given (so a ranking is always complete); unknown names are ignored.
 */
export function readRanking(answer: string, ids: readonly string[]): string[] {
  const text = answer.replace(SIMULATED_LABEL, '');
  const listed = jsonList(text) ?? mentions(text, ids);
  const ranked: string[] = [];
  for (const name of listed) {
    const id = ids.find((candidate) => candidate.toLowerCase() === name.trim().toLowerCase());
    if (id !== undefined && !ranked.includes(id)) ranked.push(id);
  }
  return [...ranked, ...ids.filter((id) => !ranked.includes(id))];
}

function jsonList(text: string): string[] | undefined {
  const value = jsonInAnswer(text);
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? (value as Record<string, unknown>).ranking
      : undefined;
  return Array.isArray(list) ? list.map((item) => String(item)) : undefined;
}

/** Ids in the order of their first whole-word mention. */
function mentions(text: string, ids: readonly string[]): string[] {
  return ids
    .map((id) => ({ id, at: wordIndex(text, id) }))
    .filter((m) => m.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((m) => m.id);
}

function wordIndex(text: string, word: string): number {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.search(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'iu'));
}
