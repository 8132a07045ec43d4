/**
 * Where provider keys entered in the editor's settings live. The page can set or clear a key and
 * learn whether one is set and its last four characters, never read it back (S12): nothing here
 * returns a value except `values()`, which only the backend calls to build a run's environment
 * and the list of strings to redact.
 *
 * This module holds the interface and the in-memory vault the browser studio uses: keys last as
 * long as the studio process, and are never written anywhere. The desktop app gets a vault backed
 * by Electron's safeStorage (encrypted at rest, S10/S11/S14), behind the same interface, in the
 * Electron shell, since only that code may import `electron`.
 */
import type { ApiResult } from '../../app/api/contract.ts';
import { KEY_NAMES, KEY_VARIABLE } from '../../app/api/contract.ts';

/**
 * The environment variable a key stands for: one of KEY_NAMES (OPENAI_API_KEY, HF_TOKEN), or the
 * variable a custom provider profile names (the API handlers decide which names they accept).
 */
export type KeyName = string;

/** Whether a key is set, and its last four characters so people can tell keys apart. */
export type KeyStatus = ApiResult<'settings.keys'>[number];

/** Keys by the environment variable they stand for. Setting or clearing may be asynchronous. */
export interface KeyVault {
  set(name: KeyName, value: string): void | Promise<void>;
  clear(name: KeyName): void | Promise<void>;
  status(name: KeyName): KeyStatus;
  /** Every key that is set, by variable name: for a run's environment and redaction only. */
  values(): Record<string, string>;
}

/** Whether `name` is one of the built-in providers' key variables (KEY_NAMES). */
export function isKeyName(name: string): name is (typeof KEY_NAMES)[number] {
  return (KEY_NAMES as readonly string[]).includes(name);
}

/** Whether `name` looks like an environment variable's name, so it may name a key. */
export function isKeyVariable(name: string): boolean {
  return KEY_VARIABLE.test(name);
}

/** The status of a key value (or of no key). */
export function keyStatus(name: KeyName, value: string | undefined): KeyStatus {
  return value ? { name, configured: true, last4: value.slice(-4) } : { name, configured: false };
}

/** A vault that keeps keys in this process's memory only (the browser studio's). */
export function createMemoryVault(initial: Partial<Record<KeyName, string>> = {}): KeyVault {
  const keys = new Map<KeyName, string>();
  for (const [name, value] of Object.entries(initial)) {
    if (isKeyVariable(name) && value) keys.set(name, value);
  }
  return {
    set(name, value) {
      keys.set(name, value);
    },
    clear(name) {
      keys.delete(name);
    },
    status(name) {
      return keyStatus(name, keys.get(name));
    },
    values() {
      return Object.fromEntries(keys);
    },
  };
}
