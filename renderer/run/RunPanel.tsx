import { useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { IMAGE_MIMES } from '../../app/schema/mime.ts';
import { parseDocument } from '../../app/schema/parse.ts';
import { formatProblem } from '../../app/schema/problems.ts';
import type { TranscriptMessage } from '../model/run.ts';
import { loadDocument, type RunTab, selectNode, unlessUnsaved, useEditor } from '../store.ts';
import { ContextViewer } from './ContextViewer.tsx';
import {
  control,
  isActive,
  runInputFields,
  setBreakRound,
  toggleBreakpoint,
} from './controller.ts';
import { DiffView } from './DiffView.tsx';
import { Episodes } from './Episodes.tsx';
import { HeldEditor } from './HeldEditor.tsx';
import { ForkForm, History, startForkDraft } from './History.tsx';
import { TallyChart } from './TallyChart.tsx';
import { Timeline } from './Timeline.tsx';
import { UsagePanel } from './UsagePanel.tsx';
import './run.css';

const TABS: Array<{ id: RunTab; label: string }> = [
  { id: 'inputs', label: 'Inputs' },
  { id: 'transcript', label: 'Transcript' },
  { id: 'context', label: 'Context' },
  { id: 'votes', label: 'Votes' },
  { id: 'plans', label: 'Plans' },
  { id: 'episodes', label: 'Episodes' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'usage', label: 'Usage' },
  { id: 'outputs', label: 'Outputs' },
  { id: 'events', label: 'Events' },
  { id: 'problems', label: 'Problems' },
  { id: 'runs', label: 'Runs' },
  { id: 'diff', label: 'Diff' },
];

export function RunPanel() {
  const tab = useEditor((s) => s.runTab);
  const counts = useEditor(
    useShallow((s) => ({
      messages: s.run.messages.length,
      votes: s.run.tallies.length,
      plans: s.run.plans.length,
      episodes: s.run.episodes.length,
      problems: s.problems?.length ?? 0,
    })),
  );
  const badge = (id: RunTab) =>
    id === 'transcript'
      ? counts.messages
      : id === 'votes'
        ? counts.votes
        : id === 'plans'
          ? counts.plans
          : id === 'episodes'
            ? counts.episodes
            : id === 'problems'
              ? counts.problems
              : 0;
  return (
    <section className="run-panel" aria-label="Run">
      <PanelResizer />
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
        <ForkForm />
        {tab === 'inputs' ? <InputsForm /> : null}
        {tab === 'transcript' ? <Transcript /> : null}
        {tab === 'context' ? <ContextViewer /> : null}
        {tab === 'votes' ? <Votes /> : null}
        {tab === 'plans' ? <Plans /> : null}
        {tab === 'episodes' ? <Episodes /> : null}
        {tab === 'timeline' ? <Timeline /> : null}
        {tab === 'usage' ? <UsagePanel /> : null}
        {tab === 'outputs' ? <Outputs /> : null}
        {tab === 'events' ? <Events /> : null}
        {tab === 'problems' ? <Problems /> : null}
        {tab === 'runs' ? <History /> : null}
        {tab === 'diff' ? <DiffView /> : null}
      </div>
    </section>
  );
}

const MIN_PANEL = 120;

/**
 * The run panel's top edge: drag it (or use the arrow keys) to give the panels more room;
 * a double click switches between the usual height and most of the window.
 */
function PanelResizer() {
  const setHeight = (el: HTMLElement, px: number) => {
    const app = el.closest('.app') as HTMLElement | null;
    const h = Math.round(Math.min(window.innerHeight - 160, Math.max(MIN_PANEL, px)));
    app?.style.setProperty('--run-panel-height', `${h}px`);
  };
  const current = (el: HTMLElement) =>
    (el.closest('.run-panel') as HTMLElement | null)?.getBoundingClientRect().height ?? 240;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a draggable splitter, not a thematic break
    <div
      className="run-resize"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the run panel"
      aria-valuenow={0}
      tabIndex={0}
      data-testid="run-panel-resize"
      onPointerDown={(e) => {
        const handle = e.currentTarget;
        handle.setPointerCapture(e.pointerId);
        const move = (ev: PointerEvent) => setHeight(handle, window.innerHeight - ev.clientY);
        const up = () => {
          handle.removeEventListener('pointermove', move);
          handle.removeEventListener('pointerup', up);
        };
        handle.addEventListener('pointermove', move);
        handle.addEventListener('pointerup', up);
      }}
      onDoubleClick={(e) => {
        const el = e.currentTarget;
        setHeight(el, current(el) < window.innerHeight * 0.45 ? window.innerHeight * 0.6 : 0);
      }}
      onKeyDown={(e) => {
        const step = e.key === 'ArrowUp' ? 40 : e.key === 'ArrowDown' ? -40 : 0;
        if (!step) return;
        e.preventDefault();
        setHeight(e.currentTarget, current(e.currentTarget) + step);
      }}
    />
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
          {(['message', 'node', 'round'] as const).map((kind) => (
            <button
              key={kind}
              type="button"
              onClick={() => control('step', kind)}
              data-testid={`paused-step-${kind}`}
            >
              Step {kind}
            </button>
          ))}
          <button
            type="button"
            className="primary"
            onClick={() => control('resume')}
            data-testid="paused-continue"
          >
            Continue
          </button>
          <button type="button" onClick={() => control('cancel')} data-testid="paused-stop">
            Stop
          </button>
          <HeldEditor />
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
                  accept={IMAGE_MIMES.join(',')}
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
  const { runId, status, mode } = useEditor(
    useShallow((s) => ({ runId: s.run.runId, status: s.run.status, mode: s.run.mode })),
  );
  // A finished run can be forked from any message: "what if this had been said instead?"
  const forkable = runId !== null && !isActive(status) && status !== 'idle';
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
                {forkable ? (
                  <button
                    type="button"
                    className="link small message-fork"
                    data-testid="message-fork"
                    title="Fork this run with this message edited"
                    onClick={() => runId && startForkDraft(runId, mode, m.from, m.text)}
                  >
                    edit &amp; fork
                  </button>
                ) : null}
              </div>
              <div className="message-text">{m.text}</div>
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

function Votes() {
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

/** Each plan a planner ran: its steps as they went, and a way to open it as a document. */
function Plans() {
  const plans = useEditor((s) => s.run.plans);
  if (plans.length === 0)
    return <p className="muted">No planner has run a plan in this run yet.</p>;
  return (
    <div className="plans">
      {plans.map((plan) => {
        const steps = plan.document.nodes.filter((n) => n.type === 'expert');
        return (
          <section key={plan.seq} className="plan" data-testid={`plan-${plan.instance}`}>
            <header>
              <strong>{plan.instance}</strong>{' '}
              <span className="muted">{plan.document.description ?? ''}</span>
            </header>
            <ol className="plan-steps">
              {steps.map((n) => {
                const id = String(n.id);
                const data = (n.data ?? {}) as { module?: string; backend?: string };
                const state = plan.steps[id] ?? 'waiting';
                return (
                  <li
                    key={id}
                    className={`plan-step step-${state}`}
                    data-testid={`plan-step-${id}`}
                  >
                    <code>{id}</code> {data.module}
                    {data.backend === 'local' ? <span className="muted"> (local)</span> : null}{' '}
                    <span className="muted">{state}</span>
                  </li>
                );
              })}
            </ol>
            <button
              type="button"
              data-testid={`open-plan-${plan.instance}`}
              onClick={() =>
                unlessUnsaved('Open this plan as a document?', () => {
                  const parsed = parseDocument(plan.document);
                  if (parsed.ok) loadDocument(parsed.doc);
                })
              }
            >
              Open as a document
            </button>
          </section>
        );
      })}
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
