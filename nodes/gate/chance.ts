/** ITCMA-S Eq. 18: the chance an agent with resources S acts, 0.5 + sigmoid(S) / 2. */
export function chanceFromResources(resources: number): number {
  return 0.5 + 1 / (1 + Math.exp(-resources)) / 2;
}

/**
 * S for `key` from what arrives at the gate: a number as is, a table's entry by name; `initial`
 * when there is none (nothing connected yet, or the first step).
 */
export function resourcesOf(value: unknown, key: string, initial: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (typeof entry === 'number' && Number.isFinite(entry)) return entry;
  }
  return initial;
}
