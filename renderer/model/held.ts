/** Where a paused run is held, read from its run view: pure, for the paused pane and the controller. */
import type { RunView } from './run.ts';

/** The message the run is held at before it is delivered, if it is held at one. */
export function heldMessage(
  run: Pick<RunView, 'runId' | 'status' | 'paused'>,
): { key: string; instance: string; text: string } | null {
  const at = run.paused?.at;
  if (run.status !== 'paused' || at?.kind !== 'message' || !at.instance || !run.runId) return null;
  return { key: `${run.runId}:${at.instance}`, instance: at.instance, text: at.text ?? '' };
}

/** The node instance the run is held at before it starts, if it is held at one. */
export function heldNode(
  run: Pick<RunView, 'status' | 'paused'>,
): { instance: string; node: string } | null {
  const at = run.paused?.at;
  if (run.status !== 'paused' || at?.kind !== 'node' || !at.instance || !at.node) return null;
  return { instance: at.instance, node: at.node };
}
