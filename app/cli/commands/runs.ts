/** `society runs`: recorded runs, newest first. */
import { UsageError } from '../errors.ts';
import { openStore } from '../run-store.ts';
import { formatRunList, runListJson } from '../runs.ts';

export function runsCommand(flags: { limit: string; db?: string; json?: boolean }): void {
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError('--limit must be a positive whole number');
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const runs = store.listRuns({ limit });
    process.stdout.write(
      flags.json ? `${JSON.stringify(runListJson(runs))}\n` : formatRunList(runs),
    );
  } finally {
    store.close();
  }
}
