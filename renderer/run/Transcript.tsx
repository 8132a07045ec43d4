import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TranscriptMessage } from '../model/run.ts';
import { selectNode, useEditor } from '../store.ts';
import { isActive } from './controller.ts';
import { startForkDraft } from './History.tsx';

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

export function Transcript() {
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
