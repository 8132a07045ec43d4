/** The `settings` table: the app's preferences as JSON values, never a key. */

import type Database from 'better-sqlite3';
import { findSecret, isSecretFieldName, SecretRefusedError } from '../secrets.ts';
import { statementCache } from './sql.ts';

export class SettingsTable {
  readonly #db: Database.Database;
  /** Every run reads settings as it starts (allowed hosts, MCP servers): prepared once. */
  readonly #prepare: ReturnType<typeof statementCache>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#prepare = statementCache(db);
  }

  /** A setting's value, or undefined. */
  getSetting(key: string): unknown {
    const value = this.#prepare<[string], string>('SELECT value FROM settings WHERE key = ?')
      .pluck()
      .get(key);
    return value === undefined ? undefined : JSON.parse(value);
  }

  /** Stores a JSON value. Refuses secret-looking names and values: keys do not go here. */
  setSetting(key: string, value: unknown): void {
    const hint = 'Keys live in environment variables or the OS keychain, never in settings.';
    if (isSecretFieldName(key)) throw new SecretRefusedError('setting', key, hint);
    const secret = findSecret(value);
    if (secret) throw new SecretRefusedError(`setting "${key}"`, secret, hint);
    const text = JSON.stringify(value);
    if (text === undefined) throw new Error(`setting "${key}" must be a JSON value`);
    this.#db
      .prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(key, text);
  }

  deleteSetting(key: string): boolean {
    return this.#db.prepare('DELETE FROM settings WHERE key = ?').run(key).changes > 0;
  }

  /** Every setting, by key. */
  listSettings(): Record<string, unknown> {
    const settings: Record<string, unknown> = {};
    const rows = this.#db
      .prepare<[], { key: string; value: string }>('SELECT key, value FROM settings ORDER BY key')
      .all();
    for (const row of rows) settings[row.key] = JSON.parse(row.value);
    return settings;
  }
}
