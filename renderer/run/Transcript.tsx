import { memo, useMemo } from 'react';
import { create } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { revealNode } from '../editor/library-actions.ts';
import { plural } from '../model/plural.ts';
import type { TranscriptMessage } from '../model/run.ts';
import {
  filterMessages,
  filterOptions,
  NO_FILTER,
  type NodeNames,
  type RoundKey,
  senderItem,
  type TranscriptFilter,
} from '../model/transcript-filter.ts';
import { useEditor } from '../store.ts';
import { isActive } from './controller.ts';
import { startForkDraft } from './History.tsx';
import { useNodeNames } from './useNodeNames.ts';

/**
 * The transcript's filter. Kept outside the tab, so switching tabs (to read an agent's context,
 * say) and coming back finds the same member and round.
 */
const useFilter = create<TranscriptFilter>(() => NO_FILTER);
// Another document has other members: its transcript starts unfiltered.
useEditor.subscribe((s, before) => {
  if (s.epoch !== before.epoch) useFilter.setState(NO_FILTER);
});

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

/**
 * Scrolls the run panel so the message being forked shows just below the fork form (which
 * sticks to the panel's top), as it was and what it becomes read together.
 */
function keepBelowForkForm(row: Element): void {
  const body = row.closest('.run-body');
  const form = body?.querySelector('.fork-form');
  if (!body || !form) return;
  body.scrollTop += row.getBoundingClientRect().top - form.getBoundingClientRect().bottom - 6;
}

export function Transcript() {
  const messages = useEditor((s) => s.run.messages);
  const human = useEditor((s) => s.run.human);
  const { runId, status, mode } = useEditor(
    useShallow((s) => ({ runId: s.run.runId, status: s.run.status, mode: s.run.mode })),
  );
  const names = useNodeNames();
  const filter = useFilter();
  const shown = useMemo(() => filterMessages(messages, filter), [messages, filter]);
  // A finished run can be forked from any message: "what if this had been said instead?"
  const forkable = runId !== null && !isActive(status) && status !== 'idle';
  const groups = useMemo(() => groupByRound(shown), [shown]);
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
      {messages.length > 0 ? (
        <FilterBar messages={messages} names={names} filter={filter} shown={shown.length} />
      ) : null}
      {messages.length === 0 ? (
        <p className="muted">No messages yet. Run the society to see who says what.</p>
      ) : shown.length === 0 ? (
        <p className="muted">No message matches the filter yet.</p>
      ) : null}
      {groups.map((g) => (
        <section
          key={`${g.key}:${g.messages[0]?.seq}`}
          className="transcript-round"
          data-testid={g.testId}
        >
          <h3>{g.title}</h3>
          {g.messages.map((m) => (
            <MessageRow
              key={m.seq}
              message={m}
              item={senderItem(m.from, names)}
              forkable={forkable}
              runId={runId}
              mode={mode}
            />
          ))}
        </section>
      ))}
    </div>
  );
}

/** Member, copy and round choices, and how many messages pass them. */
function FilterBar({
  messages,
  names,
  filter,
  shown,
}: {
  messages: TranscriptMessage[];
  names: ReadonlyMap<string, NodeNames>;
  filter: TranscriptFilter;
  shown: number;
}) {
  const options = useMemo(() => filterOptions(messages, names, filter), [messages, names, filter]);
  const filtered = filter.node || filter.copy || filter.round;
  return (
    <search className="transcript-filter" aria-label="Filter the transcript">
      <label>
        Member{' '}
        <select
          data-testid="transcript-filter-member"
          value={filter.node ?? ''}
          // A copy of another member would match nothing: it is dropped with the change.
          onChange={(e) => useFilter.setState({ node: e.target.value || null, copy: null })}
        >
          <option value="">all members</option>
          {options.members.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      {options.copies.length > 0 ? (
        <label>
          Copy{' '}
          <select
            data-testid="transcript-filter-copy"
            value={filter.copy ?? ''}
            onChange={(e) => useFilter.setState({ copy: e.target.value || null })}
          >
            <option value="">all copies</option>
            {options.copies.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Round{' '}
        <select
          data-testid="transcript-filter-round"
          value={filter.round ?? ''}
          onChange={(e) =>
            useFilter.setState({ round: (e.target.value || null) as RoundKey | null })
          }
        >
          <option value="">all rounds</option>
          {options.rounds.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <span className="muted small" data-testid="transcript-count" aria-live="polite">
        {filtered
          ? `${shown} of ${plural(messages.length, 'message')}`
          : plural(messages.length, 'message')}
      </span>
      {filtered ? (
        <button
          type="button"
          className="link small"
          data-testid="transcript-filter-clear"
          onClick={() => useFilter.setState(NO_FILTER)}
        >
          show all
        </button>
      ) : null}
    </search>
  );
}

/**
 * One message. Memoised on the message object (a run's messages are appended, never changed),
 * so a new message re-renders one row, not the hundreds before it.
 */
const MessageRow = memo(function MessageRow({
  message: m,
  item,
  forkable,
  runId,
  mode,
}: {
  message: TranscriptMessage;
  item: string | undefined;
  forkable: boolean;
  runId: string | null;
  mode: string | undefined;
}) {
  return (
    <div className={`message${m.simulated ? ' simulated' : ''}`} data-testid="message">
      <div className="message-head">
        <button type="button" className="link message-from" onClick={() => revealNode(m.node)}>
          {m.from}
        </button>
        {item ? <span className="message-item">{item}</span> : null}
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
            onClick={(e) => {
              if (!runId) return;
              const row = e.currentTarget.closest('.message');
              startForkDraft(runId, mode, m.from, m.text);
              if (row) requestAnimationFrame(() => keepBelowForkForm(row));
            }}
          >
            edit &amp; fork
          </button>
        ) : null}
      </div>
      <div className="message-text">{m.text}</div>
    </div>
  );
});
