/**
 * Run events go to the page in batches, not one message each: a simulated ITCMA-S run of 75 steps
 * emits some 9,500 events within a second, and a message per event cost the page a task each
 * (parse, hand to the run panel) — the panel showed the run finished two seconds after it had.
 * Events emitted in one turn of the event loop go together, at once when that turn ends; a
 * long synchronous stretch (a simulated run never waits on the network) sends a batch every
 * RUN_EVENT_BATCH events, so the page keeps up while it lasts. Order is kept.
 */
import type { RunEventPush, RunEventsPush } from '../../app/api/contract.ts';

/** The most events one message carries (about 1 KB each in a simulated ITCMA-S run). */
export const RUN_EVENT_BATCH = 250;

export interface RunEventBatcher {
  /** Queues a push; sends the batch now if it is full, else once this turn of the loop ends. */
  add(push: RunEventPush): void;
  /** Sends what is queued now. */
  flush(): void;
  /** Drops what is queued and sends nothing more (the transport is closing). */
  close(): void;
}

export function runEventBatcher(
  send: (batch: RunEventsPush) => void,
  size = RUN_EVENT_BATCH,
): RunEventBatcher {
  let queued: RunEventPush[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    if (queued.length === 0) return;
    const pushes = queued;
    queued = [];
    send({ push: 'run.events', pushes });
  };
  return {
    add(push) {
      if (closed) return;
      queued.push(push);
      if (queued.length >= size) flush();
      else scheduled ??= setImmediate(flush);
    },
    flush,
    close() {
      closed = true;
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
      queued = [];
    },
  };
}
