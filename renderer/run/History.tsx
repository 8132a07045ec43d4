/**
 * The run history: every stored run, newest first. A run opens in the panel (transcript, votes,
 * timeline, context); two ticked runs are compared side by side; a finished run can be forked
 * with an edit of what one instance said; a run can be deleted.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { notify, useEditor } from '../store.ts';
import {
  compareRuns,
  deleteStoredRun,
  forkRun,
  isActive,
  openRunGraph,
  showStoredRun,
} from './controller.ts';
import { useDebug } from './debugState.ts';
import './run.css';

type RunRow = ApiResult<'runs.list'>[number];

/** Starts writing a fork of a run: the first sender and what it said, ready to edit. */
export function startForkDraft(runId: string, mode: string | undefined, instance = '', text = '') {
  useDebug.setState({
    fork: { runId, instance, text, simulate: mode !== 'live', opened: ++draftsOpened },
  });
}
let draftsOpened = 0;

function HistoryView() {
  const [runs, setRuns] = useState<RunRow[] | null>(null);
  const status = useEditor((s) => s.run.status);
  const shown = useEditor((s) => s.run.runId);
  const picked = useDebug((s) => s.picked);
  const load = useCallback(
    () =>
      api()
        .call('runs.list', { limit: 100 })
        .then(setRuns)
        .catch((e: Error) => notify('error', `runs: ${e.message}`)),
    [],
  );
  // Refreshes when a run ends, so the list includes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: status is the trigger
  useEffect(() => {
    void load();
  }, [status, load]);
  const pick = (id: string) =>
    useDebug.setState((s) => ({
      picked: s.picked.includes(id)
        ? s.picked.filter((p) => p !== id)
        : [...s.picked, id].slice(-2),
    }));
  if (runs === null) return <p className="muted">Loading runs…</p>;
  if (runs.length === 0) return <p className="muted">No runs stored yet.</p>;
  const [a, b] = picked;
  return (
    <div className="history" data-testid="run-history">
      <div className="row history-tools">
        <button
          type="button"
          data-testid="compare-button"
          disabled={picked.length !== 2}
          onClick={() => a && b && compareRuns(a, b)}
          title="Tick two runs to compare them side by side"
        >
          Compare {picked.length === 2 ? `${a} ↔ ${b}` : 'two ticked runs'}
        </button>
        <button type="button" data-testid="runs-refresh" onClick={() => void load()}>
          Refresh
        </button>
        <span className="muted small">
          Open a run to see its transcript, votes and timeline; fork a finished one with an edit.
        </span>
      </div>
      <table className="runs" data-testid="runs">
        <thead>
          <tr>
            <th title="Tick two to compare">⇄</th>
            <th>Run</th>
            <th>Graph</th>
            <th>Status</th>
            <th>Mode</th>
            <th>Started</th>
            <th>Calls</th>
            <th>Tokens</th>
            <th>Cost</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => {
            const running = isActive(status) && shown === r.id;
            return (
              <tr key={r.id} className={shown === r.id ? 'current' : ''} data-run={r.id}>
                <td>
                  <input
                    type="checkbox"
                    data-testid="run-pick"
                    aria-label={`compare ${r.id}`}
                    checked={picked.includes(r.id)}
                    onChange={() => pick(r.id)}
                  />
                </td>
                <td>
                  <button
                    type="button"
                    className="link"
                    data-testid="run-open"
                    onClick={() => showStoredRun(r.id)}
                    title="Show this run's transcript, votes and timeline"
                  >
                    {r.id}
                  </button>
                </td>
                <td>{r.graph}</td>
                <td>{r.status}</td>
                <td data-testid="run-mode-cell">
                  {r.mode ?? ''}
                  {r.parentRunId ? (
                    <span className="muted small" data-testid="run-fork-of">
                      {' '}
                      fork of{' '}
                      <button
                        type="button"
                        className="link"
                        onClick={() => showStoredRun(r.parentRunId!)}
                      >
                        {r.parentRunId}
                      </button>
                    </span>
                  ) : null}
                </td>
                <td>{new Date(r.startedAt).toLocaleString()}</td>
                <td>{r.calls}</td>
                <td>{r.tokens.toLocaleString()}</td>
                <td>{r.costUsd === undefined ? '' : `$${r.costUsd.toFixed(4)}`}</td>
                <td className="run-actions">
                  <button
                    type="button"
                    data-testid="run-open-graph"
                    onClick={() => openRunGraph(r.id)}
                    title="Load the graph this run ran onto the canvas"
                  >
                    Graph
                  </button>
                  <button
                    type="button"
                    data-testid="fork-button"
                    disabled={running || r.status === 'running' || isActive(status)}
                    onClick={async () => {
                      if (await showStoredRun(r.id)) startForkDraft(r.id, r.mode);
                    }}
                    title="Run again from a point of this run, with an edited message"
                  >
                    Fork…
                  </button>
                  <button
                    type="button"
                    className="danger"
                    data-testid="run-delete"
                    disabled={running || r.status === 'running'}
                    onClick={() => deleteStoredRun(r.id, () => void load())}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export const History = memo(HistoryView);

/**
 * Writing a fork: whose message to change (any instance that sent one in the run shown), the
 * new text, and whether new calls are simulated.
 */
function ForkFormView() {
  const fork = useDebug((s) => s.fork);
  const messages = useEditor((s) => s.run.messages);
  const shown = useEditor((s) => s.run.runId);
  const senders = useMemo(() => {
    const last = new Map<string, string>();
    for (const m of messages) last.set(m.from, m.text);
    return last;
  }, [messages]);
  // The first sender is the default: most forks change an early answer.
  useEffect(() => {
    if (!fork || fork.instance || senders.size === 0 || fork.runId !== shown) return;
    const [instance, text] = [...senders][0]!;
    useDebug.setState({ fork: { ...fork, instance, text } });
  }, [fork, senders, shown]);
  // The form stays in sight at the top of the panel however far down the message was (run.css);
  // a new draft takes the focus, so the text to edit is where the person is.
  const textRef = useRef<HTMLTextAreaElement>(null);
  const opened = fork && fork.runId === shown ? fork.opened : undefined;
  useEffect(() => {
    if (opened === undefined) return;
    const text = textRef.current;
    if (!text) return;
    text.focus({ preventScroll: true });
    text.scrollIntoView({ block: 'nearest' });
  }, [opened]);
  if (!fork || fork.runId !== shown) return null;
  const update = (patch: Partial<typeof fork>) =>
    useDebug.setState({ fork: { ...fork, ...patch } });
  return (
    <form
      className="fork-form"
      data-testid="fork-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!fork.instance) return;
        const runId = await forkRun(fork.runId, [{ instance: fork.instance, text: fork.text }], {
          simulate: fork.simulate,
        });
        if (runId) {
          useDebug.setState({ fork: null });
          notify('info', `Run ${runId} forks ${fork.runId}`);
        }
      }}
    >
      <strong>Fork {fork.runId}</strong>
      <label className="inline">
        what
        <select
          data-testid="fork-instance"
          value={fork.instance}
          onChange={(e) =>
            update({ instance: e.target.value, text: senders.get(e.target.value) ?? '' })
          }
        >
          {[...senders.keys()].map((from) => (
            <option key={from} value={from}>
              {from}
            </option>
          ))}
        </select>
        says instead:
      </label>
      <textarea
        ref={textRef}
        data-testid="fork-text"
        rows={2}
        value={fork.text}
        onChange={(e) => update({ text: e.target.value })}
      />
      <label className="inline" title="New calls the edit causes go to the simulated provider">
        <input
          type="checkbox"
          data-testid="fork-simulate"
          checked={fork.simulate}
          onChange={(e) => update({ simulate: e.target.checked })}
        />
        simulate new calls
      </label>
      <button type="submit" className="primary" data-testid="fork-start" disabled={!fork.instance}>
        Start fork
      </button>
      <button
        type="button"
        data-testid="fork-cancel"
        onClick={() => useDebug.setState({ fork: null })}
      >
        Cancel
      </button>
      <span className="muted small fork-hint">
        The fork keeps this run's events up to where {fork.instance || 'the instance'} started,
        answers every unchanged call from this run's record, and calls a model only where the edit
        changes what is asked.
      </span>
    </form>
  );
}

export const ForkForm = memo(ForkFormView);
