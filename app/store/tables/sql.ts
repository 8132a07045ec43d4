/**
 * Small helpers the store's tables share: SQLite error codes, row-to-record mapping, and
 * prepared statements kept for reuse.
 */
import type Database from 'better-sqlite3';

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

/**
 * `db.prepare` that prepares each SQL text once: preparing costs more than running a small
 * statement, and an eval's runs record the same few statements thousands of times.
 */
export function statementCache(db: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  return <P extends unknown[] | object = unknown[], R = unknown>(
    source: string,
  ): Database.Statement<P, R> => {
    let statement = statements.get(source);
    if (!statement) {
      statement = db.prepare(source);
      statements.set(source, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  };
}
