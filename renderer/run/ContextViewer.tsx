/**
 * The per-agent context viewer: exactly the messages an agent instance was sent in one call
 * (its last, or one chosen), with roles and token counts, and what came back: the same view as
 * `p INSTANCE` in the terminal debugger, read from the run's model.request events (run.context).
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ApiAgentContext } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { revealNode } from '../editor/library-actions.ts';
import { contextOptions, preferredInstance } from '../model/context.ts';
import { keyAdvice } from '../model/keyAdvice.ts';
import { useEditor } from '../store.ts';
import { AskMember } from './AskMember.tsx';
import { selectedNodeOf, useDebug } from './debugState.ts';
import './run.css';

function ContextViewerView() {
  const { runId, instances, live, pausedAt, simulatedRun, missingKey } = useEditor(
    useShallow((s) => ({
      missingKey: s.run.missingKey,
      runId: s.run.runId,
      instances: s.run.instances,
      live: s.run.live,
      pausedAt: s.run.paused?.at,
      simulatedRun: s.run.simulated,
    })),
  );
  const selectedNode = useEditor(selectedNodeOf);
  const selectionFirst = useDebug((s) => s.selectionFirst);
  const chosen = useDebug((s) => s.contextInstance);
  const callId = useDebug((s) => s.contextCall);
  const options = useMemo(() => contextOptions({ instances, live }), [instances, live]);
  const instance =
    chosen ??
    preferredInstance(options, {
      held: pausedAt && pausedAt.kind !== 'round' ? pausedAt.instance : undefined,
      selectedNode,
      selectionFirst,
    }) ??
    null;
  // Refetch when the instance makes or finishes a call.
  const calls = instance ? (instances[instance]?.calls ?? 0) : 0;
  const streaming = useMemo(
    () => Object.entries(live).find(([, c]) => c.instance === instance),
    [live, instance],
  );
  const [context, setContext] = useState<ApiAgentContext | null>(null);
  const [error, setError] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: calls and the streaming call id are triggers
  useEffect(() => {
    if (!runId || !instance) {
      setContext(null);
      return;
    }
    let current = true;
    api()
      .call('run.context', { runId, instance, ...(callId ? { callId } : {}) })
      .then((result) => {
        if (!current) return;
        setContext(result);
        setError(null);
      })
      .catch((e: Error) => current && setError(e.message));
    return () => {
      current = false;
    };
  }, [runId, instance, callId, calls, streaming?.[0]]);

  if (!runId) {
    return <p className="muted">Run the society to see what each agent is sent.</p>;
  }
  if (options.length === 0 && !instance) {
    return <p className="muted">No agent has called a model yet.</p>;
  }
  const call = context?.instance === instance ? context.call : undefined;
  const total = call?.tokens ?? 0;
  return (
    <div className="context-viewer" data-testid="context-viewer">
      <div className="context-pick row">
        <label className="inline">
          Agent
          <select
            data-testid="context-instance"
            value={instance ?? ''}
            onChange={(e) =>
              useDebug.setState({ contextInstance: e.target.value || null, contextCall: null })
            }
          >
            {instance && !options.some((o) => o.instance === instance) ? (
              <option value={instance}>{instance}</option>
            ) : null}
            {options.map((o) => (
              <option key={o.instance} value={o.instance}>
                {o.instance}
                {o.calling ? ' (calling…)' : ''}
              </option>
            ))}
          </select>
        </label>
        {context && context.calls.length > 1 ? (
          <label className="inline">
            Call
            <select
              data-testid="context-call"
              value={callId ?? ''}
              onChange={(e) => useDebug.setState({ contextCall: e.target.value || null })}
            >
              <option value="">latest</option>
              {context.calls.map((c) => (
                <option key={c.callId} value={c.callId}>
                  {c.callId} (event {c.seq})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {chosen ? (
          <button
            type="button"
            className="link"
            data-testid="context-follow"
            onClick={() => useDebug.setState({ contextInstance: null, contextCall: null })}
            title="Follow the agent the run is held at, or the node selected on the canvas"
          >
            follow the run
          </button>
        ) : null}
        {call ? (
          // A member of a sub-society (`judge/check/agent1`) is shown by opening the way to it.
          <button
            type="button"
            className="link"
            data-testid="context-select-node"
            onClick={() => revealNode(call.node)}
          >
            select {call.node} on the canvas
          </button>
        ) : null}
      </div>
      {selectionFirst &&
      !chosen &&
      selectedNode &&
      !options.some((o) => o.node === selectedNode) ? (
        <p className="muted small" data-testid="context-no-calls">
          <code>{selectedNode}</code> has called no model in this run
          {instance ? (
            <>
              ; showing <code>{instance}</code>
            </>
          ) : null}
          .
        </p>
      ) : null}
      {error ? <p className="run-error-text">{error}</p> : null}
      {!call ? (
        <p className="muted">{instance} has made no model call yet.</p>
      ) : (
        <>
          <p className="context-meta" data-testid="context-meta">
            <strong>{call.instance}</strong> → {call.provider} <code>{call.model}</code>{' '}
            <span className="muted">
              (profile {call.profile}, call {call.callId}) · {call.messages.length} message
              {call.messages.length === 1 ? '' : 's'} · ~{total.toLocaleString()} tokens sent
            </span>
          </p>
          <ol className="context-messages">
            {call.messages.map((m, i) => (
              <li
                // Messages of one call never reorder.
                // biome-ignore lint/suspicious/noArrayIndexKey: the index is the message's place
                key={i}
                className={`context-message sent-by-${m.role}`}
                data-testid="context-message"
              >
                <div className="context-message-head">
                  <span className={`role role-${m.role}`}>{m.role}</span>
                  <span className="muted small" data-testid="context-tokens">
                    ~{m.tokens.toLocaleString()} tokens
                    {m.images ? ` + ${m.images} image${m.images === 1 ? '' : 's'}` : ''}
                  </span>
                  <span className="token-share" aria-hidden="true">
                    <span style={{ width: `${total ? (m.tokens / total) * 100 : 0}%` }} />
                  </span>
                </div>
                {m.toolCallId ? (
                  <p className="muted small" data-testid="context-tool-result">
                    result of call <code>{m.toolCallId}</code>
                    {m.edited ? (
                      <span data-testid="context-tool-edited">
                        {' '}
                        — <strong>edited</strong> by {m.edited.by.person}{' '}
                        {m.edited.by.via === 'studio' ? 'in the studio' : 'at the terminal'}; the
                        tool gave: <code>{m.edited.original}</code>
                      </span>
                    ) : null}
                  </p>
                ) : null}
                {m.text ? <pre className="context-text">{m.text}</pre> : null}
                <ToolCalls calls={m.toolCalls} />
              </li>
            ))}
          </ol>
          <div className="context-answer" data-testid="context-answer">
            {call.response ? (
              <>
                <div className="context-message-head">
                  <span className="role role-assistant">answer</span>
                  <span className="muted small">
                    {call.response.promptTokens.toLocaleString()} prompt +{' '}
                    {call.response.completionTokens.toLocaleString()} completion tokens ·{' '}
                    {call.response.source}
                    {call.response.costUsd !== undefined
                      ? ` · $${call.response.costUsd.toFixed(4)}`
                      : ''}
                  </span>
                  {call.response.simulated ? (
                    <span className="simulated-label">simulated</span>
                  ) : null}
                </div>
                {call.response.text || !call.response.toolCalls ? (
                  <pre className={`context-text${call.response.simulated ? ' simulated' : ''}`}>
                    {call.response.text}
                  </pre>
                ) : null}
                <ToolCalls calls={call.response.toolCalls} />
              </>
            ) : call.error ? (
              <p className="run-error-text">
                The call failed:{' '}
                {missingKey?.node === call.node ? keyAdvice(missingKey) : call.error}
              </p>
            ) : (
              <>
                <div className="context-message-head">
                  <span className="role role-assistant">answer</span>
                  <span className="muted small">waiting for the answer…</span>
                  {simulatedRun ? <span className="simulated-label">simulated</span> : null}
                </div>
                {streaming?.[1].text ? (
                  <pre className="context-text streaming">{streaming[1].text}</pre>
                ) : null}
              </>
            )}
          </div>
          <AskMember runId={runId} instance={call.instance} />
        </>
      )}
    </div>
  );
}

/** The tools a model asked to call in a message or an answer: name, arguments, call id. */
function ToolCalls({
  calls,
}: {
  calls: { id: string; name: string; arguments: string }[] | undefined;
}) {
  if (!calls || calls.length === 0) return null;
  return (
    <ul className="context-tool-calls" data-testid="context-tool-calls">
      {calls.map((c) => (
        <li key={c.id}>
          calls <code>{c.name}</code>
          <pre className="context-text">{c.arguments}</pre>
          <span className="muted small">call {c.id}</span>
        </li>
      ))}
    </ul>
  );
}

export const ContextViewer = memo(ContextViewerView);
