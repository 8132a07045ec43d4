/**
 * A run's event log: numbers each event, scrubs keys from it, keeps it and tells subscribers.
 * A run that continues an earlier log (a resume, a fork) adopts that log first; events that
 * match one in it are regenerated, not new, and are not emitted again.
 */
import type { Redactor } from '../providers/secrets.ts';
import type { RunEvent, RunEventBody } from './events.ts';
import { upgradeEvent } from './legacy-events.ts';

type Listener = (event: RunEvent) => void;

export class EventLog {
  readonly events: RunEvent[] = [];
  readonly #runId: string;
  readonly #listeners = new Set<Listener>();
  readonly #redactor: Redactor | undefined;
  /** Called with each new event before subscribers (the debugger's event breakpoints). */
  readonly #onEvent: (event: RunEvent) => void;
  #seq = 0;
  /** Identities of the events in the adopted log not yet met again (see `eventIdentity`). */
  readonly #logged = new Set<string>();
  readonly #occurrences = new Map<string, number>();
  /** Answers people gave in the adopted log, by node instance and question name. */
  readonly #loggedAnswers = new Map<string, string>();

  constructor(runId: string, redactor: Redactor | undefined, onEvent: (event: RunEvent) => void) {
    this.#runId = runId;
    this.#redactor = redactor;
    this.#onEvent = onEvent;
  }

  /** Subscribes to events; past events are replayed first so no subscriber misses any. */
  subscribe(listener: Listener, { replay = true } = {}): () => void {
    if (replay) for (const e of this.events) listener(e);
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Takes an earlier log as this run's beginning. */
  adopt(events: RunEvent[]): void {
    const seen = new Map<string, number>();
    // A log older builds wrote may hold votes and series as events of their own.
    for (const event of events.map(upgradeEvent)) {
      if (event.type === 'run.finished') continue;
      this.events.push({ ...event, runId: this.#runId });
      this.#seq = Math.max(this.#seq, event.seq);
      const identity = eventIdentity(event);
      if (identity) this.#logged.add(occurrence(seen, identity));
      if (event.type === 'human.response')
        this.#loggedAnswers.set(`${event.instance}|${event.name}`, event.answer);
    }
  }

  /** The answer a person gave to a question of an instance in the adopted log. */
  loggedAnswer(instance: string, name: string): string | undefined {
    return this.#loggedAnswers.get(`${instance}|${name}`);
  }

  emit(body: RunEventBody): void {
    // Only a run continuing a log has events to recognise (a fresh run's every event is new).
    const identity = this.#logged.size > 0 ? eventIdentity(body) : undefined;
    if (identity) {
      const key = occurrence(this.#occurrences, identity);
      // Already in the log this run continues: regenerated, not new.
      if (this.#logged.delete(key)) return;
    }
    const clean = this.#redactor ? this.#redactor.apply(body) : body;
    const event = { ...clean, runId: this.#runId, seq: ++this.#seq, time: Date.now() } as RunEvent;
    this.events.push(event);
    this.#onEvent(event);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break the run.
      }
    }
  }
}

/**
 * Who an event is about, independent of timing and sequence numbers: two executions of the same
 * graph on the same answers give their events the same identities. Pauses, resumes and errors
 * have none (they belong to one session and are never taken for an earlier one).
 */
export function eventIdentity(e: RunEventBody): string | undefined {
  switch (e.type) {
    case 'run.started':
      return e.type;
    case 'node.started':
    case 'node.finished':
    case 'node.failed':
    case 'node.skipped':
    case 'human.request':
    case 'human.response':
      return `${e.type}|${e.instance}`;
    case 'model.request':
    case 'model.response':
    case 'model.error':
    case 'model.delta':
      return `${e.type}|${e.callId}`;
    case 'model.retry':
      return `${e.type}|${e.callId}|${e.attempt}`;
    case 'expert.request':
    case 'expert.response':
    case 'expert.error':
      return `${e.type}|${e.callId}`;
    case 'tool.call':
    case 'tool.result':
      return `${e.type}|${e.callId}`;
    case 'tool.error':
      return `${e.type}|${e.callId ?? `${e.instance}|${e.source}`}`;
    case 'subgraph.started':
    case 'subgraph.finished':
      return `${e.type}|${e.instance}`;
    case 'message':
      return `${e.type}|${e.from}`;
    // A node reports the same things again when it runs again on a resume: by instance and
    // kind (the n-th such one, see `occurrence`).
    case 'report':
      return `${e.type}|${e.instance}|${e.kind}`;
    case 'round.started':
    case 'round.finished':
      return `${e.type}|${e.loop}|${e.round}`;
    case 'run.finished':
    case 'paused':
    case 'resumed':
    case 'error':
      return undefined;
    default:
      return e satisfies never;
  }
}

/** `identity#n` for the n-th event with that identity (model deltas repeat, for instance). */
function occurrence(counts: Map<string, number>, identity: string): string {
  const n = (counts.get(identity) ?? 0) + 1;
  counts.set(identity, n);
  return `${identity}#${n}`;
}
