/**
 * Runs recorded before votes, analytics and environment steps became reports stored them as
 * events of their own (`vote`, `series`, `interaction`, `participants`, `environment.step`). Whatever reads a stored log (the store, an
 * export, a log a resume adopts) takes them through `upgradeEvent`, so every reader sees only
 * today's events: a `report` of the kind the node would report now, with the same data.
 */
import type { RunEvent } from './events.ts';

/** The event types older builds stored that are `report`s now. */
export const LEGACY_REPORT_TYPES = [
  'vote',
  'series',
  'interaction',
  'participants',
  'environment.step',
] as const;

type Fields = Record<string, unknown>;

/** The kind each legacy event type is reported as now, and where its data was in the event. */
const KIND_OF: Record<
  (typeof LEGACY_REPORT_TYPES)[number],
  { kind: string; data: (rest: Fields) => unknown }
> = {
  vote: { kind: 'tally', data: (rest) => rest.tally },
  series: { kind: 'series', data: (rest) => ({ ...rest }) },
  interaction: { kind: 'interaction', data: (rest) => ({ ...rest }) },
  participants: { kind: 'participants', data: (rest) => rest.names },
  'environment.step': { kind: 'step', data: (rest) => ({ ...rest }) },
};

function isLegacy(type: unknown): type is (typeof LEGACY_REPORT_TYPES)[number] {
  return typeof type === 'string' && Object.hasOwn(KIND_OF, type);
}

/**
 * A stored event as today's engine would have written it: a legacy vote, series point,
 * interaction, participants or environment step event becomes a `report`; any other event is
 * returned as is.
 */
export function upgradeEvent<E extends { type: string }>(event: E): E | RunEvent {
  if (!isLegacy(event.type)) return event;
  const { type: _type, runId, seq, time, node, instance, ...rest } = event as unknown as Fields;
  const { kind, data } = KIND_OF[event.type];
  return { type: 'report', runId, seq, time, node, instance, kind, data: data(rest) } as RunEvent;
}

/** `upgradeEvent` over a log. */
export function upgradeEvents<E extends { type: string }>(
  events: readonly E[],
): Array<E | RunEvent> {
  return events.map(upgradeEvent);
}
