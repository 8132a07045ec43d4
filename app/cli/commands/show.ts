/** `society show RUN`: a run's transcript by round, votes, usage and outputs (or JSON). */
import { findRun, openStore } from '../run-store.ts';
import { formatRun } from '../runs.ts';

export function showCommand(id: string, flags: { json?: boolean; db?: string }): void {
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    const events = store.events(run.id);
    process.stdout.write(
      flags.json ? `${JSON.stringify({ run, events })}\n` : formatRun(run, events),
    );
  } finally {
    store.close();
  }
}
