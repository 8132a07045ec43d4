/**
 * The Credit tab: which member mattered in the run shown. Credit forks the run once per member
 * with that member left out (the backend's `runs.credit`, as `society credit RUN`), re-sending
 * only the calls whose request changed. One bar per member: its influence (the score Δ when the
 * run is scored by its own score, else whether the output changed), its calls re-sent, the first
 * call its absence changed, and its fork, opened in the panel with one click.
 */
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useEditor } from '../store.ts';
import { isActive, showStoredRun } from './controller.ts';
import { type CreditResult, creditOfFork, creditRun, influenceOf, useCredit } from './credit.ts';
import './credit.css';

/** A value as the table shows it: text as is, anything else as JSON, clipped. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** A difference with its sign. */
function signed(n: number): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(3);
  return n > 0 ? `+${text}` : text;
}

export function CreditView() {
  const run = useEditor(
    useShallow((s) => ({
      runId: s.run.runId,
      status: s.run.status,
      simulated: s.run.simulated,
      mode: s.run.mode,
      outputs: s.run.outputs,
    })),
  );
  const { results, pending } = useCredit();
  const [scoreOutput, setScoreOutput] = useState('');
  if (!run.runId) return <p className="muted">Run the document, or open a run, to credit it.</p>;
  const runId = run.runId;
  const fork = creditOfFork(results, runId);
  const back = fork ? (
    <p className="credit-fork-of" data-testid="credit-fork-of">
      This run is credit's fork of {fork.credit.runId} without <code>{fork.member}</code>.{' '}
      <button
        type="button"
        data-testid="credit-back"
        onClick={() => void showStoredRun(fork.credit.runId).then(openCredit)}
      >
        Back to {fork.credit.runId}
      </button>
    </p>
  ) : null;
  if (run.status !== 'succeeded')
    return (
      <div className="credit">
        {back}
        <p className="muted">
          {isActive(run.status)
            ? 'Credit reads a finished run: wait until this one has succeeded.'
            : 'Credit reads a run that succeeded; this one did not.'}
        </p>
      </div>
    );
  const credit = results[runId];
  // An output holding a number can be the run's own score (a metric node's).
  const numeric = Object.entries(run.outputs ?? {})
    .filter(
      ([, v]) =>
        typeof v === 'number' || (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)),
    )
    .map(([k]) => k);
  const simulated = run.simulated || run.mode === 'simulated';
  const busy = pending !== null;
  return (
    <div className="credit" data-testid="credit">
      {back}
      <div className="row credit-tools">
        <button
          type="button"
          className="primary"
          data-testid="credit-start"
          disabled={busy}
          onClick={() => void creditRun(runId, simulated, scoreOutput ? { scoreOutput } : {})}
        >
          {pending === runId ? 'Crediting…' : credit ? 'Credit again' : 'Credit each member'}
        </button>
        {numeric.length > 0 ? (
          <label className="small">
            Score by{' '}
            <select
              data-testid="credit-score"
              value={scoreOutput}
              onChange={(e) => setScoreOutput(e.target.value)}
            >
              <option value="">no score (output changed?)</option>
              {numeric.map((name) => (
                <option key={name} value={name}>
                  the run's own score: {name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <span className="muted small">
          {pending === runId
            ? 'Leaving out each member in turn; unchanged calls come from the record.'
            : `Forks the run once per member without it${simulated ? ' (simulated, as this run was)' : '; changed calls go live'}.`}
        </span>
      </div>
      {credit ? <CreditTable credit={credit} /> : null}
    </div>
  );
}

const openCredit = (opened: boolean) => {
  if (opened) useEditor.setState({ runTab: 'credit' });
};

function CreditTable({ credit }: { credit: CreditResult }) {
  const scored = credit.score !== undefined;
  const largest = Math.max(0, ...credit.members.map((m) => Math.abs(m.scoreDelta ?? 0)));
  const calls = (m: CreditResult['members'][number]) => m.leftOut + m.resent + m.fromRecord;
  return (
    <div className="credit-result">
      <p className="small">
        <strong>{credit.output}</strong> was <code>{shown(credit.value)}</code>
        {scored ? ` (score ${credit.score})` : ''}.{' '}
        {credit.simulated ? (
          <span className="muted">Simulated: the bars show the shape, not a model.</span>
        ) : null}
      </p>
      <ul className="credit-bars" data-testid="credit-bars">
        {credit.members.map((m) => {
          const share = influenceOf(m, largest);
          const resent = calls(m) > 0 ? m.resent / calls(m) : 0;
          const effect = m.error
            ? `failed: ${m.error}`
            : m.scoreDelta !== undefined
              ? `score Δ ${signed(m.scoreDelta)}`
              : m.outputChanged
                ? `output changed: ${shown(m.output)}`
                : 'output unchanged';
          return (
            <li key={m.member} className="credit-bar" data-testid="credit-bar">
              <div className="credit-name">
                <code>{m.member}</code>
              </div>
              <div className="credit-meter">
                <div
                  className="credit-fill"
                  data-testid="credit-fill"
                  title={`influence ${Math.round(share * 100)}%`}
                  style={{ width: `${Math.round(share * 100)}%` }}
                />
                <div
                  className="credit-resent"
                  title={`${m.resent} of ${calls(m)} calls re-sent`}
                  style={{ width: `${Math.round(resent * 100)}%` }}
                />
              </div>
              <div className="credit-facts small">
                <span className={m.error ? 'credit-failed' : ''}>{effect}</span>
                <span className="muted">
                  {m.resent} re-sent · {m.fromRecord} from record · {m.leftOut} left out
                </span>
                <span className="muted">
                  decisive: {m.decisive ? <code>{m.decisive.instance}</code> : '—'}
                </span>
              </div>
              <button
                type="button"
                data-testid={`credit-open-${m.member}`}
                title={`Open the run without ${m.member}`}
                onClick={() => void showStoredRun(m.runId)}
              >
                Open fork {m.runId.slice(0, 8)}
              </button>
            </li>
          );
        })}
      </ul>
      <p className="muted small">
        Bar:{' '}
        {scored
          ? 'the score Δ without the member, against the largest'
          : 'the output changed without the member'}
        ; thin bar: the share of the run's calls re-sent. One member at a time: two who repeat each
        other each show none.
      </p>
    </div>
  );
}
