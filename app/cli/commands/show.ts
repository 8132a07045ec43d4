/** `society show RUN`: a run's transcript by round, votes, usage and outputs (or JSON). */
import { findRun, openStore } from '../run-store.ts';
import { formatRun } from '../runs.ts';

export function showCommand(id: string, flags: { json?: boolean; db?: string }): void {
  const store = openStore(flags.db);
  try {
    store.markInterrupted();
    const run = findRun(store, id);
    const events = store.events(run.id);
    // A run that answered an eval's item says which, and how it scored.
    const item = store.evalItemOfRun(run.id);
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify({ run, events, ...(item ? { evalItem: item } : {}) })}\n`,
      );
      return;
    }
    if (item)
      process.stdout.write(
        `eval ${item.evalId}: item ${item.item + 1}, variant ${item.variant}, ${item.status}${item.score === undefined ? '' : `, score ${item.score.toFixed(3)}`}${item.reference === undefined ? '' : ` (expected ${JSON.stringify(item.reference)})`}\n`,
      );
    process.stdout.write(formatRun(run, events));
  } finally {
    store.close();
  }
}
