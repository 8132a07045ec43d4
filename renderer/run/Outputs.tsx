import { useEditor } from '../store.ts';
import { isActive } from './controller.ts';

/** A value as the panel prints it: text as is, anything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** What the run produced, by output name (once it has finished). */
export function Outputs() {
  const outputs = useEditor((s) => s.run.outputs);
  const status = useEditor((s) => s.run.status);
  if (!outputs) {
    return (
      <p className="muted">
        {isActive(status) ? 'The outputs appear when the run finishes.' : 'No outputs yet.'}
      </p>
    );
  }
  const entries = Object.entries(outputs);
  if (entries.length === 0) return <p className="muted">The run produced no outputs.</p>;
  return (
    <dl className="outputs" data-testid="outputs">
      {entries.map(([name, value]) => (
        <div key={name} data-testid={`output-${name}`}>
          <dt>{name}</dt>
          <dd>
            <pre>{show(value)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}
