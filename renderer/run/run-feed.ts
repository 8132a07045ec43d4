/**
 * The run events the backend pushes, folded into the run panel's view. Events arrive in batches
 * (those of one turn of the backend's event loop, main/api/push-batch.ts) and are folded in an
 * animation frame. A render of the run's panel (its timeline, its transcript, the cards) costs
 * more the more the run has done, so while events keep coming a big run is folded less often: the
 * gap between two folds grows with the run's events, up to MAX_FOLD_GAP_MS (a run of a few
 * hundred events is folded every frame, a 75-step sandbox's 9,500 every 150 ms). The first
 * events after a lull are folded in the next frame.
 */
import { api } from '../api.ts';
import { applyEvents } from '../model/run.ts';
import { useEditor } from '../store.ts';

const get = useEditor.getState;
const set = useEditor.setState;

/** The longest wait between two folds while a big run's events stream. */
const MAX_FOLD_GAP_MS = 150;
/** A run's events per millisecond of wait between folds. */
const EVENTS_PER_MS = 20;

let queue: Array<{ runId: string; event: Record<string, unknown> }> = [];
let scheduled = false;
let lastFold = 0;
/** Events for runs whose id the page does not know yet (they can beat run.start's answer). */
const early = new Map<string, Array<Record<string, unknown>>>();
let subscribed = false;

function flush() {
  scheduled = false;
  lastFold = performance.now();
  const { runId } = get().run;
  // Only the shown run's: another may have been started since these came.
  const events = queue.filter((q) => q.runId === runId).map((q) => q.event);
  queue = [];
  if (events.length) set((s) => ({ run: applyEvents(s.run, events) }));
}

/** How long after the last fold the next may come: longer the more the run has done. */
function foldGap(): number {
  const done = get().run.log.at(-1)?.seq ?? 0;
  return Math.min(MAX_FOLD_GAP_MS, done / EVENTS_PER_MS);
}

/** Listens to pushed run events, once per page. */
export function watchRuns(): void {
  if (subscribed) return;
  subscribed = true;
  api().onRunEvent((runId, event) => {
    const run = get().run;
    if (run.runId === runId) {
      queue.push({ runId, event });
      if (!scheduled) {
        scheduled = true;
        const wait = lastFold + foldGap() - performance.now();
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
