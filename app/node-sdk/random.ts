/**
 * Seeded randomness for node code and simulators (tie-breaks, image noise, a kitchen's orders):
 * anything that must come out the same for the same seed. FNV-1a turns any seed text into 32
 * bits; mulberry32 draws from it.
 */

/** A generator of numbers in [0, 1) that depends only on `seed`. */
export function seededRandom(seed: string | number): () => number {
  let state = fnv1a(String(seed));
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Shuffles `items` in place (Fisher–Yates) and returns them; `pick(n)` gives a whole number in
 * [0, n), e.g. `(n) => Math.floor(random() * n)` from `seededRandom`.
 */
export function shuffle<T>(items: T[], pick: (n: number) => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
