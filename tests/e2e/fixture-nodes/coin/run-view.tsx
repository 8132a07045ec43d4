/**
 * The coin's tab in the run panel ("Coin"): every toss of the run, which side it showed and the
 * draw that showed it. Found like the spec (renderer/run/runViews.ts); it reads its reports
 * through its own schema, so anything else in them is left out rather than guessed at.
 */
import type { NodeRunView, NodeRunViewProps } from '../../../../renderer/run/runViews.ts';
import { flipReport } from './spec.ts';

function Flips({ reports }: NodeRunViewProps) {
  const flips = reports.flatMap((r) => {
    const flip = r.kind === 'flip' ? flipReport.safeParse(r.data) : undefined;
    return flip?.success ? [{ seq: r.seq, instance: r.instance, ...flip.data }] : [];
  });
  return (
    <table className="usage-table" data-testid="coin-flips">
      <thead>
        <tr>
          <th>Coin</th>
          <th>Side</th>
          <th>Draw</th>
        </tr>
      </thead>
      <tbody>
        {flips.map((f) => (
          <tr key={f.seq} data-testid={`coin-flip-${f.instance}`}>
            <td>{f.instance}</td>
            <td>{f.side}</td>
            <td>{f.draw.toFixed(3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const runView: NodeRunView = { title: 'Coin', component: Flips };
