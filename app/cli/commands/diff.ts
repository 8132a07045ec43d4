/** `society diff A B`: two runs side by side: outputs, messages, votes and usage. */

import { findRun, openStore } from '../run-store.ts';
import { formatDiff } from '../runs.ts';

export function diffCommand(a: string, b: string, flags: { db?: string }): void {
  const store = openStore(flags.db);
  try {
    const left = findRun(store, a);
    const right = findRun(store, b);
    process.stdout.write(formatDiff(left, store.events(left.id), right, store.events(right.id)));
  } finally {
    store.close();
  }
}
