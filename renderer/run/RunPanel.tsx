import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ApiResult } from '../../app/api/contract.ts';
import { formatProblem } from '../../app/schema/problems.ts';
import { api } from '../api.ts';
import type { TallyView, TranscriptMessage } from '../model/run.ts';
import { notify, type RunTab, selectNode, useEditor } from '../store.ts';
import {
  control,
  isActive,
  runInputFields,
  setBreakRound,
  showStoredRun,
  toggleBreakpoint,
} from './controller.ts';

const TABS: Array<{ id: RunTab; label: string }> = [
  { id: 'inputs', label: 'Inputs' },
  { id: 'transcript', label: 'Transcript' },
  { id: 'votes', label: 'Votes' },
  { id: 'outputs', label: 'Outputs' },
  { id: 'events', label: 'Events' },
  { id: 'problems', label: 'Problems' },
  { id: 'runs', label: 'Runs' },
];

export function RunPanel() {
  const tab = useEditor((s) => s.runTab);
  const counts = useEditor(
    useShallow((s) => ({
      messages: s.run.messages.length,
      votes: s.run.tallies.length,
      problems: s.problems?.length ?? 0,
    })),
  );
  const badge = (id: RunTab) =>
    id === 'transcript'
      ? counts.messages
      : id === 'votes'
        ? counts.votes
        : id === 'problems'
          ? counts.problems
          : 0;
  return (
    <section className="run-panel" aria-label="Run">
      <RunBar />
      <div className="tabs" role="tablist">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? 'active' : ''}
            data-testid={`run-tab-${t.id}`}
            onClick={() => useEditor.setState({ runTab: t.id })}
          >
            {t.label}
            {badge(t.id) ? <span className="count">{badge(t.id)}</span> : null}
          </button>
        ))}
      </div>
      <div className="run-body">
        {tab === 'inputs' ? <InputsForm /> : null}
        {tab === 'transcript' ? <Transcript /> : null}
        {tab === 'votes' ? <Votes /> : null}
        {tab === 'outputs' ? <Outputs /> : null}
        {tab === 'events' ? <Events /> : null}
        {tab === 'problems' ? <Problems /> : null}
        {tab === 'runs' ? <Runs /> : null}
      </div>
    </section>
  );
}

/** Status, live usage, the debugger's pause point and breakpoints. */
function RunBar() {
  const { status, usage, simulated, paused, error, mode, runId } = useEditor(
    useShallow((s) => ({
      status: s.run.status,
      usage: s.run.usage,
      simulated: s.run.simulated,
      paused: s.run.paused,
      error: s.run.error,
      mode: s.run.mode,
      runId: s.run.runId,
    })),
  );
  const selected = useEditor((s) => {
    const sel = s.nodes.filter((n) => n.selected);
    return sel.length === 1 ? sel[0]!.id : null;
  });
  const breakpoints = useEditor((s) => s.breakpoints);
  const [roundText, setRoundText] = useState(breakpoints.round ? String(breakpoints.round) : '');
  const at = paused?.at;
  const where = at
    ? at.kind === 'round'
      ? `before round ${at.round ?? '?'} of ${at.loop ?? '?'}`
      : at.kind === 'message'
        ? `before ${at.instance ?? at.node} sends a message${at.text ? `: “${at.text.slice(0, 80)}”` : ''}`
        : `before ${at.instance ?? at.node} starts`
    : '';
  return (
    <div className="run-bar">
      <span className={`run-status run-status-${status}`} data-testid="run-status">
        {status}
      </span>
      {mode ? <span className="muted small">{mode}</span> : null}
      {simulated ? (
        <span
          className="simulated-label"
          title="Answers come from the simulated provider, not a model"
        >
          simulated
        </span>
      ) : null}
      <span className="usage" data-testid="run-usage">
        {usage.calls} calls · {usage.tokens.toLocaleString()} tokens · ${usage.costUsd.toFixed(4)}
      </span>
      {runId ? <code className="muted small">{runId}</code> : null}
      {error ? (
        <span className="run-error" data-testid="run-error" title={error}>
          {error}
        </span>
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
      {breakpoints.nodes.length ? (
        <span className="muted small" data-testid="breakpoint-list">
          breakpoints: {breakpoints.nodes.join(', ')}
        </span>
      ) : null}
      {status === 'paused' ? (
        <div className="paused-banner" data-testid="paused-banner" role="status">
          <strong>Paused</strong> {paused?.reason === 'breakpoint' ? 'at a breakpoint' : ''} {where}
          <button
            type="button"
            onClick={() => control('step', 'message')}
            data-testid="paused-step-message"
          >
            Step message
          </button>
          <button
            type="button"
            onClick={() => control('step', 'node')}
            data-testid="paused-step-node"
          >
            Step node
          </button>
          <button
            type="button"
            onClick={() => control('step', 'round')}
            data-testid="paused-step-round"
          >
            Step round
          </button>
          <button
            type="button"
            className="primary"
            onClick={() => control('resume')}
            data-testid="paused-continue"
          >
            Continue
          </button>
        </div>
      ) : null}
    </div>
  );
}

function InputsForm() {
  const nodes = useEditor((s) => s.nodes);
  const inputs = useMemo(() => runInputFields(nodes), [nodes]);
  const values = useEditor((s) => s.inputValues);
  const template = useEditor((s) => s.template);
  const setValue = (name: string, value: string) =>
    useEditor.setState((s) => ({ inputValues: { ...s.inputValues, [name]: value } }));
  if (inputs.length === 0) {
    return <p className="muted">This society takes no inputs. Add an Input node to ask for one.</p>;
  }
  return (
    <form className="inputs-form" data-testid="inputs-form" onSubmit={(e) => e.preventDefault()}>
      {inputs.map((input) => {
        const value = values[input.name] ?? '';
        const id = `run-input-${input.name}`;
        return (
          <div key={input.id} className="field">
            <label htmlFor={id}>
              {input.name}{' '}
              <span className="field-hint">
                {input.human ? `answer for ${input.id} (else the run waits)` : input.modality}
              </span>
              {input.hasDefault ? <span className="field-hint">has a default</span> : null}
            </label>
            {input.description ? <p className="muted small">{input.description}</p> : null}
            {input.modality === 'image' ? (
              <div className="row">
                {template?.hasCassette ? (
                  <label className="inline">
                    <input
                      type="checkbox"
                      data-testid={`input-${input.name}-example`}
                      checked={value === 'example'}
                      onChange={(e) => setValue(input.name, e.target.checked ? 'example' : '')}
                    />
                    use the example image (with Run, replaying the cassette)
                  </label>
                ) : null}
                <input
                  id={id}
                  type="file"
                  accept="image/png,image/jpeg,image/gif,image/webp"
                  data-testid={`input-${input.name}`}
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (!file) return;
                    const reader = new FileReader();
                    reader.addEventListener('load', () => {
                      if (typeof reader.result === 'string') setValue(input.name, reader.result);
                    });
                    reader.readAsDataURL(file);
                  }}
                />
                {value && value !== 'example' ? (
                  <img className="input-preview" src={value} alt={`${input.name} preview`} />
                ) : null}
              </div>
            ) : (
              <textarea
                id={id}
                rows={2}
                data-testid={`input-${input.name}`}
                value={value}
                placeholder={input.modality === 'text' ? '' : `${input.modality} (JSON)`}
                onChange={(e) => setValue(input.name, e.target.value)}
              />
            )}
          </div>
        );
      })}
    </form>
  );
}

/**
 * Consecutive messages of the same round form a group, so what is said before the rounds
 * (init), in each round, and after them (gather, decide) reads in the order it happened.
 */
function groupByRound(messages: TranscriptMessage[]) {
  const groups: Array<{
    key: string;
    title: string;
    testId: string;
    messages: TranscriptMessage[];
  }> = [];
  for (const m of messages) {
    // Democratic revisions reuse round numbers under their own stage; keep them apart.
    const key = `${m.loop ?? ''}:${m.round ?? ''}:${m.stage ?? ''}`;
    let group = groups.at(-1);
    if (!group || group.key !== key) {
      const where = m.loop ? ` · ${m.loop}` : '';
      group =
        m.round !== undefined
          ? {
              key,
              title: `Round ${m.round}${where}`,
              testId: `transcript-round-${m.round}`,
              messages: [],
            }
          : {
              key,
              title: m.stage
                ? `${m.stage === 'init' ? 'Before the rounds' : 'After the rounds'} (${m.stage})${where}`
                : 'Messages',
              testId: `transcript-stage-${m.stage ?? 'none'}`,
              messages: [],
            };
      groups.push(group);
    }
    group.messages.push(m);
  }
  return groups;
}

function Transcript() {
  const messages = useEditor((s) => s.run.messages);
  const human = useEditor((s) => s.run.human);
  const groups = useMemo(() => groupByRound(messages), [messages]);
  return (
    <div className="transcript" data-testid="transcript">
      {human
        .filter((h) => h.answer === undefined)
        .map((h) => (
          <p key={`${h.node}:${h.name}`} className="human-request" role="status">
            Waiting for a person ({h.node}): {h.prompt}
            <span className="muted small">
              {' '}
              — answer with --input {h.name}=… on the command line; the editor cannot answer yet.
            </span>
          </p>
        ))}
      {groups.length === 0 ? (
        <p className="muted">No messages yet. Run the society to see who says what.</p>
      ) : null}
      {groups.map((g) => (
        <section
          key={`${g.key}:${g.messages[0]?.seq}`}
          className="transcript-round"
          data-testid={g.testId}
        >
          <h3>{g.title}</h3>
          {g.messages.map((m) => (
            <div
              key={m.seq}
              className={`message${m.simulated ? ' simulated' : ''}`}
              data-testid="message"
            >
              <div className="message-head">
                <button
                  type="button"
                  className="link message-from"
                  onClick={() => selectNode(m.node)}
                >
                  {m.from}
                </button>
                <span className="arrow" aria-hidden="true">
                  →
                </span>
                <span className="message-to">{m.to.length ? m.to.join(', ') : '(no one)'}</span>
                {m.stage ? <span className="badge">{m.stage}</span> : null}
                {m.simulated ? <span className="simulated-label">simulated</span> : null}
              </div>
              <div className="message-text">{m.text}</div>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

function TallyBars({ view }: { view: TallyView }) {
  const { tally } = view;
  const counts = tally.counts ?? {};
  const order = tally.ranking?.length ? tally.ranking : (tally.candidates ?? Object.keys(counts));
  const max = Math.max(1, ...order.map((c) => counts[c] ?? 0));
  return (
    <section className="tally" data-testid="tally">
      <h3>
        <button type="button" className="link" onClick={() => selectNode(view.node)}>
          {view.instance || view.node}
        </button>{' '}
        <span className="muted small">
          {tally.rule ?? 'vote'}
          {tally.totals ? ` · ${tally.totals.valid}/${tally.totals.ballots} valid ballots` : ''}
        </span>
      </h3>
      <div className="bars">
        {order.map((candidate) => {
          const count = counts[candidate] ?? 0;
          const winner = tally.winner === candidate;
          return (
            <div
              key={candidate}
              className={`bar-row${winner ? ' winner' : ''}`}
              data-testid="tally-row"
            >
              <span className="bar-label" title={candidate}>
                {candidate}
              </span>
              <span className="bar-track">
                <span className="bar" style={{ width: `${(count / max) * 100}%` }} />
              </span>
              <span className="bar-count">{count}</span>
              <span>{winner ? <span className="badge badge-winner">winner</span> : null}</span>
            </div>
          );
        })}
      </div>
      <p className="small" data-testid="tally-winner">
        {tally.winner ? (
          <>
            Winner: <strong>{tally.winner}</strong>
          </>
        ) : (
          'No winner'
        )}
        {tally.reason ? <span className="muted"> — {tally.reason}</span> : null}
      </p>
      {tally.ballots?.length ? (
        <details>
          <summary>{tally.ballots.length} ballots</summary>
          <ul className="ballots">
            {tally.ballots.map((b) => (
              <li
                key={`${b.voter}:${JSON.stringify(b.value)}`}
                className={b.valid === false ? 'invalid' : ''}
              >
                <code>{b.voter}</code>:{' '}
                {typeof b.value === 'string' ? b.value : JSON.stringify(b.value)}
                {b.choices?.length ? (
                  <span className="muted"> → {b.choices.join(' > ')}</span>
                ) : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

function Votes() {
  const tallies = useEditor((s) => s.run.tallies);
  if (tallies.length === 0) return <p className="muted">No votes in this run yet.</p>;
  return (
    <div className="votes">
      {tallies.map((t) => (
        <TallyBars key={t.seq} view={t} />
      ))}
    </div>
  );
}

function show(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

function Outputs() {
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

function Events() {
  const log = useEditor((s) => s.run.log);
  if (log.length === 0) return <p className="muted">No events yet.</p>;
  return (
    <ol className="events" data-testid="events">
      {log.slice(-200).map((e) => (
        <li key={`${String(e.seq)}:${String(e.type)}`}>
          <code>#{String(e.seq ?? '')}</code> <strong>{String(e.type)}</strong>{' '}
          <span className="muted">
            {[e.node, e.instance, e.loop].filter((v) => typeof v === 'string').join(' ')}
          </span>
        </li>
      ))}
    </ol>
  );
}

function Problems() {
  const problems = useEditor((s) => s.problems);
  if (problems === null) return <p className="muted">Checking the document…</p>;
  if (problems.length === 0) {
    return (
      <p className="ok" data-testid="problems-none">
        No problems: the document compiles.
      </p>
    );
  }
  return (
    <ul className="problems" data-testid="problems">
      {problems.map((p) => (
        <li key={`${p.path}:${p.message}`}>
          {p.node ? (
            <button type="button" className="link" onClick={() => selectNode(p.node!)}>
              {p.node}
            </button>
          ) : null}{' '}
          {formatProblem({ ...p, node: undefined })}
        </li>
      ))}
    </ul>
  );
}

function Runs() {
  const [runs, setRuns] = useState<ApiResult<'runs.list'> | null>(null);
  const status = useEditor((s) => s.run.status);
  const load = () =>
    api()
      .call('runs.list', { limit: 50 })
      .then(setRuns)
      .catch((e: Error) => notify('error', `runs: ${e.message}`));
  // Refreshes when a run ends, so the list includes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: status is the trigger
  useEffect(() => {
    void load();
  }, [status]);
  if (runs === null) return <p className="muted">Loading runs…</p>;
  if (runs.length === 0) return <p className="muted">No runs stored yet.</p>;
  return (
    <table className="runs" data-testid="runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Graph</th>
          <th>Status</th>
          <th>Started</th>
          <th>Calls</th>
          <th>Tokens</th>
          <th>Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id}>
            <td>
              <button
                type="button"
                className="link"
                onClick={() => showStoredRun(r.id)}
                title="Show this run's transcript and votes"
              >
                {r.id}
              </button>
            </td>
            <td>{r.graph}</td>
            <td>{r.status}</td>
            <td>{new Date(r.startedAt).toLocaleString()}</td>
            <td>{r.calls}</td>
            <td>{r.tokens.toLocaleString()}</td>
            <td>{r.costUsd === undefined ? '' : `$${r.costUsd.toFixed(4)}`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
