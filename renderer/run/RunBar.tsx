import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { runNodeId } from '../model/library.ts';
import { plural } from '../model/plural.ts';
import { useEditor } from '../store.ts';
import {
  continueRun,
  setBreakRound,
  setBreakTools,
  startRun,
  toggleBreakpoint,
} from './controller.ts';

/** Status, live usage and breakpoints (the pause point has a pane of its own: PausedPane). */
export function RunBar() {
  const { status, usage, simulated, error, mode, runId, missingKey } = useEditor(
    useShallow((s) => ({
      missingKey: s.run.missingKey,
      status: s.run.status,
      usage: s.run.usage,
      simulated: s.run.simulated,
      error: s.run.error,
      mode: s.run.mode,
      runId: s.run.runId,
    })),
  );
  const selected = useEditor((s) => {
    const sel = s.nodes.filter((n) => n.selected);
    // Inside an opened sub-society, the run knows the node by its laid-out id (`panel/voice`).
    return sel.length === 1 ? runNodeId(s.path, sel[0]!.id) : null;
  });
  const breakpoints = useEditor((s) => s.breakpoints);
  // Held at a round of one copy of a replicated loop: that copy can be chosen alone.
  const pausedCopy = useEditor((s) => {
    const at = s.run.paused?.at;
    return at?.kind === 'round' && at.loop.includes('#') ? at.loop : null;
  });
  const copyLoop = breakpoints.roundLoop ?? pausedCopy;
  const [roundText, setRoundText] = useState(breakpoints.round ? String(breakpoints.round) : '');
  return (
    <div className="run-bar">
      <span className={`run-status run-status-${status}`} data-testid="run-status">
        {status}
      </span>
      {mode ? (
        <span
          className="muted small"
          data-testid="run-mode"
          title="How this run's calls are answered"
        >
          {mode}
        </span>
      ) : null}
      {simulated ? (
        <span
          className="simulated-label"
          title="Answers come from the simulated provider, not a model"
        >
          simulated
        </span>
      ) : null}
      <span className="usage" data-testid="run-usage">
        {plural(usage.calls, 'call')} · {plural(usage.tokens, 'token')} · $
        {usage.costUsd.toFixed(4)}
      </span>
      {runId ? <code className="muted small">{runId}</code> : null}
      {error && !missingKey ? (
        <span className="run-error" data-testid="run-error" title={error}>
          {error}
        </span>
      ) : null}
      {runId && (status === 'failed' || status === 'cancelled') && mode !== 'replay' ? (
        <button
          type="button"
          data-testid="run-retry"
          onClick={() => void continueRun(runId)}
          title="Once the cause is fixed: a new run answers every call this one answered from its record and sends only the rest"
        >
          Retry from the failure
        </button>
      ) : null}
      <span className="spacer" />
      <label className="inline" title="Pause before the selected node starts">
        <input
          type="checkbox"
          data-testid="breakpoint-toggle"
          disabled={!selected}
          checked={selected ? breakpoints.nodes.includes(selected) : false}
          onChange={() => selected && toggleBreakpoint(selected)}
        />
        Break before {selected ? <code>{selected}</code> : 'the selected node'}
      </label>
      <label className="inline" title="Pause before every tool call an agent makes">
        <input
          type="checkbox"
          data-testid="break-tools"
          checked={breakpoints.tools === true}
          onChange={(e) => setBreakTools(e.target.checked)}
        />
        Break before tool calls
      </label>
      <label
        className="inline"
        title="Pause after every tool call returned, before the model reads its result (which you can edit)"
      >
        <input
          type="checkbox"
          data-testid="break-tool-results"
          checked={breakpoints.toolResults === true}
          onChange={(e) => setBreakTools(e.target.checked, 'toolResults')}
        />
        Break after tool results
      </label>
      <label className="inline">
        Break at round
        <input
          type="number"
          min={1}
          step={1}
          className="narrow"
          data-testid="break-round"
          value={roundText}
          onChange={(e) => {
            setRoundText(e.target.value);
            const n = Number(e.target.value);
            setBreakRound(e.target.value.trim() && Number.isInteger(n) && n >= 1 ? n : null);
          }}
        />
      </label>
      {copyLoop && breakpoints.round ? (
        <label
          className="inline small"
          title="Without this, the run pauses once per round for every copy of the loop"
        >
          <input
            type="checkbox"
            data-testid="break-round-copy"
            checked={Boolean(breakpoints.roundLoop)}
            onChange={(e) => setBreakRound(breakpoints.round, e.target.checked ? copyLoop : null)}
          />
          this copy only (<code>{copyLoop}</code>)
        </label>
      ) : null}
      {error && missingKey ? (
        <div className="key-advice" role="alert" data-testid="run-error">
          <span>
            Node <code>{missingKey.node}</code> needs{' '}
            {missingKey.keyVariable ? <code>{missingKey.keyVariable}</code> : 'a key'}, which is not
            set.
          </span>
          <button
            type="button"
            className="primary"
            data-testid="key-advice-settings"
            onClick={() => useEditor.setState({ modal: { kind: 'keys' } })}
          >
            Add it in Settings → Keys
          </button>
          <span className="muted">or</span>
          <button
            type="button"
            data-testid="key-advice-simulate"
            onClick={() => void startRun('simulated')}
            title="Deterministic made-up answers, clearly labelled; needs no key"
          >
            Run simulated
          </button>
        </div>
      ) : null}
      {breakpoints.nodes.length ? (
        <span className="muted small" data-testid="breakpoint-list">
          breakpoints: {breakpoints.nodes.join(', ')}
        </span>
      ) : null}
    </div>
  );
}
