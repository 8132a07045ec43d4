/**
 * Named entities for the simulated provider: runs of capitalized words in the text, so a
 * simulated caption society has real words of its article to compare against. Every entity's
 * type carries the simulated label; no model decided what is a name.
 */
import type { EntityValue } from '../providers/expert-types.ts';
import { SIMULATED_LABEL } from '../schema/simulated.ts';

/** Capitalized words that usually just open a sentence. */
const OPENERS = new Set(
  'a an and as at but by for from he her his in it its of on or she that the their there these they this those to we when where while with you i'.split(
    ' ',
  ),
);

/** Capitalized runs, joined across small words ("Bank of England", "Musée des Confluences"). */
const RUN =
  /\p{Lu}[\p{L}\p{N}'’-]*(?:[ \t]+(?:(?:of|the|de|des|du|la|le|van|von)[ \t]+)?\p{Lu}[\p{L}\p{N}'’-]*)*/gu;

/** The capitalized runs of `text`, each once, in text order, typed `[simulated] MISC`. */
export function simulatedEntities(text: string): EntityValue[] {
  const seen = new Set<string>();
  const entities: EntityValue[] = [];
  for (const match of text.matchAll(RUN)) {
    let word = match[0].replace(/['’-]+$/, '');
    let start = match.index;
    const first = word.split(/\s+/)[0]!;
    // "The Louvre": the opener is dropped; a lone "The" is no entity.
    if (OPENERS.has(first.toLowerCase())) {
      const rest = word.slice(first.length).trimStart();
      if (!rest) continue;
      start += word.length - rest.length;
      word = rest;
    }
    if (seen.has(word)) continue;
    seen.add(word);
    entities.push({
      word,
      type: `${SIMULATED_LABEL} MISC`,
      score: 0.5,
      start,
      end: start + word.length,
    });
  }
  return entities;
}
