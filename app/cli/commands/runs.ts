/** `society runs`: recorded runs, newest first. */
import { UsageError } from '../errors.ts';
import { openStore } from '../run-store.ts';
import { formatRunList } from '../runs.ts';

export function runsCommand(flags: { limit: string; db?: string }): void {
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError('--limit must be a positive whole number');
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    process.stdout.write(formatRunList(store.listRuns({ limit })));
  } finally {
    store.close();
  }
}
