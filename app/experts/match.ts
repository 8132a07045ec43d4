/**
 * Mapping a planner's free text to catalogue entries. OpenAGI maps each generated step to the
 * nearest module name by text similarity (Ge et al., Sec. 3.2); we do the same without a model:
 * an exact name or alias first, then the best character-trigram overlap (Dice coefficient)
 * against every name and alias, accepted above a threshold.
 */
import { CATALOGUE, type CatalogueEntry, findExpert, normalizeName } from './catalogue.ts';

export interface ExpertMatch {
  entry: CatalogueEntry;
  /** 1 for an exact name or alias; otherwise the Dice similarity of the best name. */
  score: number;
  exact: boolean;
}

/** Below this, free text is not taken for a module. */
export const MATCH_THRESHOLD = 0.55;

/**
 * The catalogue entry free text names, among `candidates` (default: the whole catalogue), or
 * undefined when nothing is close enough. "Step 2: Image Denoising," matches image-denoising.
 */
export function matchExpert(
  text: string,
  candidates: readonly CatalogueEntry[] = CATALOGUE,
): ExpertMatch | undefined {
  const cleaned = stripStepNoise(text);
  const exact = findExpert(cleaned);
  // Named exactly but not offered: unknown here, never swapped for a similar allowed one.
  if (exact)
    return candidates.includes(exact) ? { entry: exact, score: 1, exact: true } : undefined;
  const grams = trigrams(normalizeName(cleaned));
  let best: ExpertMatch | undefined;
  for (const entry of candidates) {
    for (const name of [entry.title, ...entry.aliases]) {
      const score = dice(grams, trigrams(normalizeName(name)));
      if (!best || score > best.score) best = { entry, score, exact: false };
    }
  }
  return best && best.score >= MATCH_THRESHOLD ? best : undefined;
}

/** The names of the closest entries, for "did you mean" messages. */
export function closestExperts(text: string, count = 3): string[] {
  const grams = trigrams(normalizeName(text));
  return CATALOGUE.map((entry) => ({
    id: entry.id,
    score: Math.max(
      ...[entry.id, entry.title, ...entry.aliases].map((n) =>
        dice(grams, trigrams(normalizeName(n))),
      ),
    ),
  }))
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .map((e) => e.id);
}

/** "Step 1:Image Super Resolution," → "Image Super Resolution". */
function stripStepNoise(text: string): string {
  return text
    .replace(/^\s*(?:step\s*\d+\s*[:.)-]?|\d+\s*[.):-]|[-*•])\s*/i, '')
    .replace(/[\s,.;]+$/, '')
    .trim();
}

function trigrams(text: string): Map<string, number> {
  const padded = `  ${text} `;
  const grams = new Map<string, number>();
  for (let i = 0; i + 3 <= padded.length; i++) {
    const gram = padded.slice(i, i + 3);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let shared = 0;
  let total = 0;
  for (const [gram, count] of a) {
    shared += Math.min(count, b.get(gram) ?? 0);
    total += count;
  }
  for (const count of b.values()) total += count;
  return total === 0 ? 0 : (2 * shared) / total;
}
