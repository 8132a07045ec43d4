/**
 * Store writes that come in together commit together. An eval records every item it scores,
 * and a coordinator imports a finished run for every job a worker ran; each of those alone is
 * a transaction, and each transaction would wait for the disk (the store syncs every commit)
 * with the event loop stopped. Results arrive in bursts, so the writes asked for in one turn of
 * the event loop share one transaction, and its sync to disk runs off the event loop
 * (`RunStore.atomicallySoon`), shared with the batches committed while it runs.
 */
import type { RunStore } from '../store/index.ts';

/**
 * A function that runs `write` inside a transaction shared with the other writes asked for in
 * the same turn of the event loop, and resolves once that transaction has committed. Each write
 * is all or nothing on its own (a savepoint): one that throws rejects alone, the others commit
 * (and resolve once on disk).
 */
export function commitTogether(store: RunStore): (write: () => void) => Promise<void> {
  let pending: { write: () => void; resolve: () => void; reject: (error: Error) => void }[] = [];
  const flush = () => {
    const batch = pending;
    pending = [];
    const failed = new Map<number, Error>();
    const fail = (error: Error) => {
      for (const { reject } of batch) reject(error);
    };
    const settle = () => {
      for (const [i, { resolve, reject }] of batch.entries()) {
        const error = failed.get(i);
        if (error) reject(error);
        else resolve();
      }
    };
    let synced: Promise<void>;
    try {
      // Committed now, synced to disk off the event loop: the next batch is read and written
      // while the disk works, and each write resolves once it is on disk.
      synced = store.atomicallySoon(() => {
        for (const [i, { write }] of batch.entries())
          try {
            store.atomically(write);
          } catch (error) {
            failed.set(i, error as Error);
          }
      });
    } catch (error) {
      // The commit itself failed: nothing of the batch is in the store.
      fail(error as Error);
      return;
    }
    synced.then(settle, fail);
  };
  return (write) =>
    new Promise<void>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ write, resolve, reject });
    });
}
