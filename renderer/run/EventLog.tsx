import type { RunEvent } from '../../app/runtime/events.ts';
import { useEditor } from '../store.ts';

/** Where an event happened: its node, instance and loop, those it has. */
function whereOf(e: RunEvent): string {
  const parts = [
    'node' in e ? e.node : undefined,
    'instance' in e ? e.instance : undefined,
    'loop' in e ? e.loop : undefined,
  ];
  return parts.filter((v) => typeof v === 'string').join(' ');
}

/** The run's latest events, one line each. */
export function EventLog() {
  const log = useEditor((s) => s.run.log);
  if (log.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="events" data-testid="events">
      {log.slice(-200).map((e) => (
        <li key={`${e.seq}:${e.type}`}>
          <code>#{e.seq ?? ''}</code> <strong>{e.type}</strong>{' '}
          <span className="muted">{whereOf(e)}</span>
        </li>
      ))}
    </ol>
  );
}
