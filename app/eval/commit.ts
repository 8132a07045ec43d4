/**
 * Store writes that come in together commit together. An eval records every item it scores,
 * and a coordinator imports a finished run for every job a worker ran; each of those alone is
 * a transaction, and each transaction waits for the disk (the store syncs every commit) with
 * the event loop stopped. Results arrive in bursts, so the writes asked for while one commit
 * waits share the next: one sync for all of them.
 */
import type { RunStore } from '../store/index.ts';

/**
 * A function that runs `write` inside a transaction shared with the other writes asked for in
 * the same turn of the event loop, and resolves once that transaction has committed. Each write
 * is all or nothing on its own (a savepoint): one that throws rejects alone, the others commit.
 */
export function commitTogether(store: RunStore): (write: () => void) => Promise<void> {
  let pending: { write: () => void; resolve: () => void; reject: (error: Error) => void }[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const failed = new Map<number, Error>();
    try {
      store.atomically(() => {
        for (const [i, { write }] of batch.entries())
          try {
            store.atomically(write);
          } catch (error) {
            failed.set(i, error as Error);
          }
      });
    } catch (error) {
      // The commit itself failed: nothing of the batch is in the store.
      for (const { reject } of batch) reject(error as Error);
      return;
    }
    for (const [i, { resolve, reject }] of batch.entries()) {
      const error = failed.get(i);
      if (error) reject(error);
      else resolve();
    }
  };
  return (write) =>
    new Promise<void>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ write, resolve, reject });
    });
}
