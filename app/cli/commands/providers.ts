/**
 * `society providers`: lists provider profiles, after any `--add` or `--remove`. A profile holds a
 * base URL and the variable holding its key, never a key.
 */
import { builtinProfiles, listProviderProfiles } from '../../providers/profiles.ts';
import { splitAssignment } from '../assignment.ts';
import { UsageError } from '../errors.ts';
import { openStore, storedOverrides } from '../run-store.ts';

export interface ProvidersFlags {
  add?: string;
  kind?: string;
  keyEnv?: string;
  concurrency?: string;
  remove?: string;
  db?: string;
}

export function providersCommand(flags: ProvidersFlags): void {
  const store = openStore(flags.db);
  try {
    if (flags.add) {
      const [name, url] = splitAssignment(flags.add, '--add');
      try {
        const kind = flags.kind ?? builtinProfiles({})[name]?.kind ?? 'openai-compatible';
        if (kind !== 'openai-compatible' && kind !== 'huggingface') {
          throw new Error('--kind must be openai-compatible or huggingface');
        }
        store.saveProviderProfile({
          name,
          kind,
          baseUrl: url,
          ...(flags.keyEnv ? { apiKeyEnv: flags.keyEnv } : {}),
          ...(flags.concurrency ? { concurrency: Number(flags.concurrency) } : {}),
        });
      } catch (error) {
        throw new UsageError(`--add ${name}: ${(error as Error).message}`);
      }
    }
    if (flags.remove && !store.deleteProviderProfile(flags.remove)) {
      throw new UsageError(`no provider "${flags.remove}" was added`);
    }
    const stored = new Set(store.listProviderProfiles().map((p) => p.name));
    for (const p of listProviderProfiles({ overrides: storedOverrides(store) })) {
      const key = p.apiKeyEnv
        ? `key in ${p.apiKeyEnv}${process.env[p.apiKeyEnv] ? ' (set)' : ' (not set)'}`
        : 'no key';
      process.stdout.write(
        `${p.name.padEnd(12)} ${(p.baseUrl ?? 'in-process').padEnd(36)} ${key}${stored.has(p.name) ? '  (yours)' : ''}\n`,
      );
    }
  } finally {
    store.close();
  }
}
