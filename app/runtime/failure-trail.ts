/**
 * What a run that ended early (failed or cancelled) leaves in its log besides its work, and the
 * log a continuation of it starts from. A continuation runs the graph again from the start with
 * every answered call served from the record (see `EventLog.adopt`): events it regenerates are
 * matched with the adopted ones and not emitted again. The failure's own events must not be
 * adopted, or they would stand in the continued log as if they had happened in it, and a
 * regenerated call's retries and streamed text would be taken for the failed attempt's.
 */
import type { RunEvent } from './events.ts';

/** The log a continuation of an ended run starts from, and where it parts from that run's. */
export interface ContinuedLog {
  /**
   * The ended run's events without its failure: the end, failed nodes, errors, failed calls and
   * graphs, and the retries and streamed text of calls never answered. Events after the first
   * one left out are numbered on from it, so the log stays gapless.
   */
  kept: RunEvent[];
  /** The last event the continuation shares, number for number, with the ended run. */
  sharedUpTo: number;
}

/** Takes the failure out of an ended run's log (see `ContinuedLog`). */
export function continuedLog(events: readonly RunEvent[]): ContinuedLog {
  const answered = new Set(
    events.flatMap((e) =>
      e.type === 'model.response' || e.type === 'expert.response' ? [e.callId] : [],
    ),
  );
  const isFailure = (e: RunEvent): boolean => {
    switch (e.type) {
      case 'run.finished':
      case 'node.failed':
      case 'model.error':
      case 'expert.error':
      case 'tool.error':
      case 'error':
        return true;
      case 'subgraph.finished':
        return e.error !== undefined;
      // A call asked again streams and retries afresh; its old attempts would hide the new ones.
      case 'model.retry':
      case 'model.delta':
        return !answered.has(e.callId);
      default:
        return false;
    }
  };
  const kept: RunEvent[] = [];
  let sharedUpTo = 0;
  let renumbered = false;
  for (const event of events) {
    if (isFailure(event)) {
      renumbered = true;
      continue;
    }
    if (!renumbered) {
      kept.push(event);
      sharedUpTo = event.seq;
    } else kept.push({ ...event, seq: (kept.at(-1)?.seq ?? 0) + 1 });
  }
  return { kept, sharedUpTo };
}
