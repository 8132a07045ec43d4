/**
 * The origins the user allowed documents to contact (app/runtime/origins.ts), kept in the
 * settings table of their run store: `society hosts`, Settings → Allowed hosts and the studio's
 * prompt write them; every run this store's process starts reads them. A worker reads its own
 * store, so a queued job never carries allowances.
 */
import { z } from 'zod';
import { originOf } from '../runtime/origins.ts';

/** The setting's key. */
export const ALLOWED_HOSTS_SETTING = 'allowedHosts';

/** The part of a store this module reads and writes. */
export interface SettingsStore {
  getSetting(key: string): unknown;
  setSetting(key: string, value: unknown): void;
}

const Stored = z.array(z.string());

/** The allowed origins, in the order they were allowed; an unreadable entry is left out. */
export function allowedOrigins(store: SettingsStore): string[] {
  const parsed = Stored.safeParse(store.getSetting(ALLOWED_HOSTS_SETTING));
  if (!parsed.success) return [];
  // Only what is already an origin as runs compare them counts: nothing else could match.
  return [...new Set(parsed.data.filter((o) => originOf(o) === o))];
}

/** Allows an origin (as `parseOrigin` gives it); the list after. */
export function allowOrigin(store: SettingsStore, origin: string): string[] {
  const origins = allowedOrigins(store);
  if (!origins.includes(origin)) origins.push(origin);
  store.setSetting(ALLOWED_HOSTS_SETTING, origins);
  return origins;
}

/** Takes an origin's leave back; `removed` is false when it was not allowed. */
export function revokeOrigin(
  store: SettingsStore,
  origin: string,
): { origins: string[]; removed: boolean } {
  const before = allowedOrigins(store);
  const origins = before.filter((o) => o !== origin);
  store.setSetting(ALLOWED_HOSTS_SETTING, origins);
  return { origins, removed: origins.length < before.length };
}
