/**
 * Events as older builds stored them, read as this build logs them. A run stored before a
 * node's environment steps were its own reports holds `environment.step` events; read back,
 * each is the `report` of kind `step` the node logs today, so replays, `society show`, the
 * tables and the run panel read old and new runs alike.
 */
import type { RunEvent, RunEventType } from '../runtime/events.ts';

/** Event types older builds stored, by the type each is read as now. */
const STORED_AS: Partial<Record<RunEventType, string[]>> = { report: ['environment.step'] };

/** The stored types to ask for when a query asks for `types` (old names included). */
export function storedTypes(types: readonly RunEventType[]): string[] {
  return [...types, ...types.flatMap((t) => STORED_AS[t] ?? [])];
}

/** A stored event as this build logs it. */
export function upgradeStoredEvent(stored: Record<string, unknown>): RunEvent {
  if (stored.type !== 'environment.step') return stored as unknown as RunEvent;
  const { type: _type, runId, seq, time, node, instance, ...data } = stored;
  return { runId, seq, time, type: 'report', node, instance, kind: 'step', data } as RunEvent;
}
