/** Calls, tokens and cost so far, by node and by round; updated as each answer arrives. */
import { memo, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { type UsageRow, usageByNode, usageByRound } from '../model/usage.ts';
import { selectNode, useEditor } from '../store.ts';
import './run.css';

function UsageTable({
  rows,
  title,
  testId,
  onPick,
}: {
  rows: UsageRow[];
  title: string;
  testId: string;
  onPick?: (key: string) => void;
}) {
  const most = Math.max(1, ...rows.map((r) => r.tokens));
  return (
    <table className="usage-table" data-testid={testId}>
      <thead>
        <tr>
          <th>{title}</th>
          <th>Calls</th>
          <th>Tokens</th>
          <th />
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <td>
              {onPick ? (
                <button type="button" className="link" onClick={() => onPick(r.key)}>
                  {r.key}
                </button>
              ) : (
                r.key
              )}
              {r.instances > 1 ? <span className="muted small"> ×{r.instances}</span> : null}
            </td>
            <td>{r.calls}</td>
            <td>{r.tokens.toLocaleString()}</td>
            <td className="usage-bar-cell">
              <span className="usage-bar" style={{ width: `${(r.tokens / most) * 100}%` }} />
            </td>
            <td>${r.costUsd.toFixed(4)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function UsagePanelView() {
  const { instances, usage, simulated, mode } = useEditor(
    useShallow((s) => ({
      instances: s.run.instances,
      usage: s.run.usage,
      simulated: s.run.simulated,
      mode: s.run.mode,
    })),
  );
  const byNode = useMemo(() => usageByNode(instances), [instances]);
  const byRound = useMemo(() => usageByRound(instances), [instances]);
  if (usage.calls === 0) return <p className="muted">No model has answered yet.</p>;
  return (
    <div className="usage-panel" data-testid="usage-panel">
      <p className="small" data-testid="usage-total">
        <strong>{usage.calls}</strong> {usage.calls === 1 ? 'call' : 'calls'} ·{' '}
        <strong>{usage.tokens.toLocaleString()}</strong> {usage.tokens === 1 ? 'token' : 'tokens'} ·{' '}
        <strong>${usage.costUsd.toFixed(4)}</strong>
        {simulated || mode === 'replay' ? (
          <span className="muted">
            {' '}
            — answers from {simulated ? 'the simulated provider' : 'a cassette'} cost nothing
          </span>
        ) : null}
      </p>
      <div className="usage-tables">
        <UsageTable rows={byNode} title="Node" testId="usage-by-node" onPick={selectNode} />
        <UsageTable rows={byRound} title="Round" testId="usage-by-round" />
      </div>
    </div>
  );
}

export const UsagePanel = memo(UsagePanelView);
