import { useEditor } from '../store.ts';
import { TallyChart } from './TallyChart.tsx';

/** Every vote of the run, charted. */
export function Votes() {
  const tallies = useEditor((s) => s.run.tallies);
  if (tallies.length === 0) return <p className="muted">No votes in this run yet.</p>;
  return (
    <div className="votes">
      {tallies.map((t) => (
        <TallyChart key={t.seq} view={t} />
      ))}
    </div>
  );
}
