/**
 * The `provider_profiles` table: how to reach a model provider. A profile names the
 * environment variable holding its key (`apiKeyEnv`), never the key.
 */

import type Database from 'better-sqlite3';
import type { ProviderProfile } from '../../providers/types.ts';
import { parseProviderProfile } from '../secrets.ts';
import { withDefined } from './sql.ts';

export class ProviderProfilesTable {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Validates and stores (or replaces) a profile; refuses any field that could hold a secret. */
  saveProviderProfile(input: unknown): ProviderProfile {
    const profile = parseProviderProfile(input);
    this.#db
      .prepare(
        `INSERT INTO provider_profiles (name, kind, base_url, api_key_env, concurrency) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
           api_key_env = excluded.api_key_env, concurrency = excluded.concurrency`,
      )
      .run(
        profile.name,
        profile.kind,
        profile.baseUrl ?? null,
        profile.apiKeyEnv ?? null,
        profile.concurrency ?? null,
      );
    return profile;
  }

  getProviderProfile(name: string): ProviderProfile | undefined {
    return this.listProviderProfiles(name)[0];
  }

  /** Every stored profile, by name (or just `name`'s). */
  listProviderProfiles(name?: string): ProviderProfile[] {
    return this.#db
      .prepare<
        [string | null, string | null],
        {
          name: string;
          kind: ProviderProfile['kind'];
          base_url: string | null;
          api_key_env: string | null;
          concurrency: number | null;
        }
      >('SELECT * FROM provider_profiles WHERE ? IS NULL OR name = ? ORDER BY name')
      .all(name ?? null, name ?? null)
      .map((row) =>
        withDefined<ProviderProfile>(
          { name: row.name, kind: row.kind },
          {
            baseUrl: row.base_url ?? undefined,
            apiKeyEnv: row.api_key_env ?? undefined,
            concurrency: row.concurrency ?? undefined,
          },
        ),
      );
  }

  deleteProviderProfile(name: string): boolean {
    return this.#db.prepare('DELETE FROM provider_profiles WHERE name = ?').run(name).changes > 0;
  }
}
