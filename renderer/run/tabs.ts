/**
 * Which of the run panel's own tabs show: Inputs, Transcript, Problems and Runs always (they
 * are where a run starts, or say why it has not); the others only once the run shown has what
 * they show, so a document not yet run, or a run without model calls, does not offer empty tabs.
 * The tab open stays shown whatever it holds, so the panel never loses its place.
 */
import type { RunTab } from '../store.ts';

/** What of the run shown the tabs depend on. */
export interface TabData {
  /** Node instances that started. */
  instances: number;
  /** Model calls made. */
  calls: number;
  /** Whether the run has ended with its outputs (possibly none). */
  outputs: boolean;
  /** Events in the raw log. */
  events: number;
  /** Whether two runs are being compared. */
  diff: boolean;
  /** Replica instances (`critic#2`, `member#0@r1`): members credit can leave out, one at a time. */
  replicas: number;
}

const WHEN: Partial<Record<RunTab, (d: TabData) => boolean>> = {
  context: (d) => d.instances > 0,
  timeline: (d) => d.instances > 0,
  usage: (d) => d.calls > 0,
  outputs: (d) => d.outputs,
  events: (d) => d.events > 0,
  diff: (d) => d.diff,
  // Credit leaves members out of a finished run: a run with no replica and no call has none.
  credit: (d) => d.outputs && d.replicas > 0 && d.calls > 0,
};

/** Whether the panel's own tab `id` shows, with `open` the tab open now. */
export function tabShown(id: RunTab, data: TabData, open: RunTab): boolean {
  const when = WHEN[id];
  return id === open || !when || when(data);
}
