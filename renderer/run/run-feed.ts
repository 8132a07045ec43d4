/**
 * The run events the backend pushes, folded into the run panel's view. Events arrive in batches
 * (those of one turn of the backend's event loop, main/api/push-batch.ts); they are folded in an
 * animation frame, and while they keep coming at most once per FOLD_GAP_MS, so a chatty run
 * (streamed deltas, 129 members, a 75-step sandbox's 9,500 events) costs a render now and then,
 * not one per event or per batch: each render of a big run's panel (its timeline, its
 * transcript) grows with the run.
 */
import { api } from '../api.ts';
import { applyEvents } from '../model/run.ts';
import { useEditor } from '../store.ts';

const get = useEditor.getState;
const set = useEditor.setState;

let queue: Array<Record<string, unknown>> = [];
let scheduled = false;
/** The least time between two folds while events stream; the first event after a lull is shown at once. */
const FOLD_GAP_MS = 150;
let lastFold = 0;
/** Events for runs whose id the page does not know yet (they can beat run.start's answer). */
const early = new Map<string, Array<Record<string, unknown>>>();
let subscribed = false;

function flush() {
  scheduled = false;
  lastFold = performance.now();
  const events = queue;
  queue = [];
  if (events.length) set((s) => ({ run: applyEvents(s.run, events) }));
}

/** Listens to pushed run events, once per page. */
export function watchRuns(): void {
  if (subscribed) return;
  subscribed = true;
  api().onRunEvent((runId, event) => {
    const run = get().run;
    if (run.runId === runId) {
      queue.push(event);
      if (!scheduled) {
        scheduled = true;
        const wait = lastFold + FOLD_GAP_MS - performance.now();
        if (wait <= 0) requestAnimationFrame(flush);
        else setTimeout(() => requestAnimationFrame(flush), wait);
      }
    } else if (run.status === 'starting') {
      const list = early.get(runId) ?? [];
      list.push(event);
      early.set(runId, list);
    }
  });
}

/** The events that came for `runId` before the page knew it was this page's run. */
export function earlyEvents(runId: string): Array<Record<string, unknown>> {
  return early.get(runId) ?? [];
}

/** Forgets the events held for runs not yet named (a new launch, or its run now known). */
export function clearEarlyEvents(): void {
  early.clear();
}
