/**
 * A run that failed for want of a key, told in the studio's terms. The engine's error text is
 * the command line's advice ("export it, or run with --simulate"); its events also say the
 * failure's kind (`missing_api_key`) and the key's variable, from which the studio points to
 * Settings → Keys and to Run simulated instead.
 */
import type { RunEvent } from '../../app/runtime/events.ts';

export interface MissingKey {
  /** The node whose call found no key. */
  node: string;
  /** The variable the key belongs in (OPENAI_API_KEY), when the provider names one. */
  keyVariable?: string;
}

/** The missing key a failed call's event reports, or undefined for any other failure. */
export function missingKeyOf(e: RunEvent): MissingKey | undefined {
  if (e.type !== 'model.error' && e.type !== 'expert.error') return undefined;
  if (e.code !== 'missing_api_key') return undefined;
  return { node: e.node, ...(e.keyVariable ? { keyVariable: e.keyVariable } : {}) };
}

/** One line for the run bar and the node's card. */
export function keyAdvice(missing: MissingKey): string {
  const key = missing.keyVariable ?? 'a key for its provider';
  return `node "${missing.node}" needs ${key}, which is not set: add it in Settings → Keys, or use Run simulated (made-up answers, no key)`;
}
