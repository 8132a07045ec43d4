/** Small helpers the store's tables share: SQLite error codes and row-to-record mapping. */

/** Scrubs a text of every key value the store knows before it is written (see `RunStore.redactor`). */
export type Clean = (text: string) => string;

/** The codes better-sqlite3 gives a row whose key is already taken. */
export const SQLITE_DUPLICATE = new Set([
  'SQLITE_CONSTRAINT_PRIMARYKEY',
  'SQLITE_CONSTRAINT_UNIQUE',
]);

/** The SQLite error code of `error`, when it has one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** JSON.parse for nullable columns. */
export function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

/** Copies the defined entries of `optional` onto `base`, so records have no undefined fields. */
export function withDefined<T extends object>(base: T, optional: Partial<T>): T {
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== null) (base as Record<string, unknown>)[key] = value;
  }
  return base;
}
