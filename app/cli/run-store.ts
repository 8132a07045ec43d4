/** Opening the run store for a command and finding runs in it by id or prefix. */
import { type ProfileOverride, profileOverrides } from '../providers/profiles.ts';
import {
  AmbiguousRunIdError,
  defaultDatabasePath,
  openRunStore,
  type RunRecord,
  type RunStore,
} from '../store/index.ts';
import { UsageError } from './errors.ts';
import { learnProviderKeys, processRedactor } from './redaction.ts';

/** The store at `path` (default: the user's), writing through the process's redactor. */
export function openStore(path: string | undefined): RunStore {
  const file = path ?? defaultDatabasePath();
  let store: RunStore;
  try {
    store = openRunStore(file, { redactor: processRedactor });
  } catch (error) {
    throw new UsageError(`cannot open the run store ${file}: ${(error as Error).message}`);
  }
  // The keys of providers added with `society providers --add` are the process's to hide too.
  learnProviderKeys(store.listProviderProfiles());
  return store;
}

/** The run `id` names (a whole id or a unique prefix); a usage error when there is none. */
export function findRun(store: RunStore, id: string): RunRecord {
  try {
    const run = store.getRun(id);
    if (!run) throw new UsageError(`no run "${id}" in ${store.path} (see \`society runs\`)`);
    return run;
  } catch (error) {
    if (error instanceof AmbiguousRunIdError) {
      throw new UsageError(
        `"${id}" matches several runs (${error.matches.join(', ')}); give more of the id`,
      );
    }
    throw error;
  }
}

/** Provider profiles the user added (`society providers --add`), as overrides. */
export function storedOverrides(store: RunStore): Record<string, ProfileOverride> {
  return profileOverrides(store.listProviderProfiles());
}
