/**
 * Two runs side by side (runs.diff, the data `society diff` prints): outputs, each sender's
 * messages grouped by round, votes and usage, A on the left and B on the right. A is the
 * "removed" side and B the "added" one, as a text diff reads; of a run and its fork, the parent
 * is the removed side and the fork the added one whichever column they stand in, as the legend
 * says. Within a changed message the words only one side has are marked.
 */
import { memo, useMemo, useState } from 'react';
import type { ApiRunDiff } from '../../app/api/contract.ts';
import { diffCounts, diffSections, showValue } from '../model/diff.ts';
import { compareRuns, showStoredRun } from './controller.ts';
import { useDebug } from './debugState.ts';
import './run.css';
import { revealNode } from '../editor/library-actions.ts';
import { plural } from '../model/plural.ts';
import { wordDiff } from '../model/wordDiff.ts';

const money = (usd: number) => `$${usd.toFixed(4)}`;

type SaidText = { text: string; simulated: boolean };

/** What one side said; `against` (the other side's text) marks the words this side has alone. */
function Said({
  said,
  against,
  role,
}: {
  said?: SaidText;
  against?: SaidText;
  role: 'removed' | 'added';
}) {
  if (!said) return <span className="muted">(not said)</span>;
  const parts = against
    ? wordDiff(said.text, against.text).a
    : [{ text: said.text, changed: false }];
  return (
    <>
      {said.simulated ? <span className="simulated-label">simulated</span> : null}{' '}
      <span className="diff-text">
        {parts.map((p, i) =>
          p.changed ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text, in order
            <mark key={i} className={`diff-word-${role}`} data-testid={`diff-word-${role}`}>
              {p.text}
            </mark>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text, in order
            <span key={i}>{p.text}</span>
          ),
        )}
      </span>
    </>
  );
}

function Side({ side, label }: { side: ApiRunDiff['a']; label: string }) {
  return (
    <div className="diff-side-head">
      <strong>{label}</strong>{' '}
      <button type="button" className="link" onClick={() => showStoredRun(side.id)}>
        {side.id}
      </button>{' '}
      <span className="muted small">
        {side.status} · {side.mode} · {new Date(side.startedAt).toLocaleString()}
      </span>
    </div>
  );
}

function DiffViewView() {
  const diff = useDebug((s) => s.diff);
  const [onlyChanged, setOnlyChanged] = useState(false);
  const sections = useMemo(() => (diff ? diffSections(diff.messages) : []), [diff]);
  if (!diff) {
    return (
      <p className="muted">
        Tick two runs in the Runs tab and press Compare to see them side by side.
      </p>
    );
  }
  const counts = diffCounts(diff.messages);
  const { a: ua, b: ub } = diff.usage;
  // The parent is removed, the fork added; of two unrelated runs, A is removed and B added.
  const removed: 'a' | 'b' = diff.fork?.child === 'a' ? 'b' : 'a';
  const roleOf = (side: 'a' | 'b') => (side === removed ? 'removed' : 'added');
  const kinship = (side: 'a' | 'b') =>
    diff.fork ? (diff.fork.child === side ? ' (fork)' : ' (parent)') : '';
  const sideClass = (side: 'a' | 'b') => `diff-${roleOf(side)}`;
  const sideId = (side: 'a' | 'b') => `diff-${roleOf(side)}-side`;
  return (
    <div className="diff-view" data-testid="diff-view">
      <div className="diff-columns diff-header">
        <span />
        <Side side={diff.a} label="A" />
        <Side side={diff.b} label="B" />
      </div>
      <div className="row">
        {diff.fork ? (
          <span className="small" data-testid="diff-fork">
            {diff.fork.child === 'b' ? 'B forks A' : 'A forks B'} after event {diff.fork.afterSeq}
          </span>
        ) : null}
        <span className="small" data-testid="diff-counts">
          messages: {counts.same} same, {counts.changed} changed, {counts.onlyA} only in A,{' '}
          {counts.onlyB} only in B
        </span>
        <label className="inline small">
          <input
            type="checkbox"
            data-testid="diff-only-changed"
            checked={onlyChanged}
            onChange={(e) => setOnlyChanged(e.target.checked)}
          />
          only what differs
        </label>
        <button
          type="button"
          data-testid="diff-swap"
          onClick={() => void compareRuns(diff.b.id, diff.a.id, { asGiven: true })}
        >
          Swap A and B
        </button>
      </div>
      <div className="row small" data-testid="diff-legend">
        <span className="diff-key diff-removed">
          removed: {diff[removed].id}
          {kinship(removed)}
        </span>
        <span className="diff-key diff-added">
          added: {diff[removed === 'a' ? 'b' : 'a'].id}
          {kinship(removed === 'a' ? 'b' : 'a')}
        </span>
        <span className="muted">a changed message marks the words only one side has</span>
      </div>

      <h3 className="diff-title">Outputs</h3>
      {diff.outputs.length === 0 ? <p className="muted small">Neither run has outputs.</p> : null}
      {diff.outputs
        .filter((o) => !onlyChanged || !o.same)
        .map((o) => (
          <div
            key={o.name}
            className={`diff-columns diff-row ${o.same ? 'same' : 'changed'}`}
            data-testid="diff-output"
          >
            <span className="diff-who">{o.name}</span>
            <pre className={`diff-text ${sideClass('a')}`}>{showValue(o.a)}</pre>
            <pre className={`diff-text ${sideClass('b')}`}>{showValue(o.b)}</pre>
          </div>
        ))}

      <h3 className="diff-title">Messages by round</h3>
      {sections.map((section) => {
        const rows = onlyChanged ? section.rows.filter((r) => r.change !== 'same') : section.rows;
        if (rows.length === 0) return null;
        return (
          <section key={section.key} className="diff-section" data-testid="diff-section">
            <h4>
              {section.title}{' '}
              <span className="muted small">
                {section.differing ? `${section.differing} differ` : 'same'}
              </span>
            </h4>
            {rows.map((m) => (
              <div
                key={m.from}
                className={`diff-columns diff-row ${m.change}`}
                data-testid="diff-message"
                data-change={m.change}
              >
                <button
                  type="button"
                  className="link diff-who"
                  onClick={() => revealNode(m.node)}
                  title={m.change}
                >
                  {m.from}
                </button>
                <div className={sideClass('a')} data-testid={sideId('a')}>
                  <Said
                    said={m.a}
                    role={roleOf('a')}
                    {...(m.change === 'changed' && m.b ? { against: m.b } : {})}
                  />
                </div>
                <div className={sideClass('b')} data-testid={sideId('b')}>
                  <Said
                    said={m.b}
                    role={roleOf('b')}
                    {...(m.change === 'changed' && m.a ? { against: m.a } : {})}
                  />
                </div>
              </div>
            ))}
          </section>
        );
      })}

      {diff.votes.length ? (
        <>
          <h3 className="diff-title">Votes</h3>
          {diff.votes
            .filter((v) => !onlyChanged || !v.same)
            .map((v) => (
              <div
                key={v.instance}
                className={`diff-columns diff-row ${v.same ? 'same' : 'changed'}`}
                data-testid="diff-vote"
              >
                <span className="diff-who">{v.instance}</span>
                {[v.a, v.b].map((poll, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: the two columns, A then B
                  <div key={i} className={sideClass(i === 0 ? 'a' : 'b')}>
                    {poll ? (
                      <>
                        winner <strong>{poll.winner ?? 'none'}</strong>{' '}
                        <span className="muted small">
                          {Object.entries(poll.counts)
                            .map(([c, n]) => `${c} ${n}`)
                            .join(', ')}
                        </span>
                      </>
                    ) : (
                      <span className="muted">(no vote)</span>
                    )}
                  </div>
                ))}
              </div>
            ))}
        </>
      ) : null}

      <h3 className="diff-title">Usage</h3>
      <div className="diff-columns diff-row" data-testid="diff-usage">
        <span className="diff-who">calls · tokens · cost</span>
        {[ua, ub].map((u, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the two columns, A then B
          <div key={i}>
            {plural(u.calls, 'call')} ({u.live} live) · {plural(u.tokens, 'token')} ·{' '}
            {money(u.costUsd)}
          </div>
        ))}
      </div>
    </div>
  );
}

export const DiffView = memo(DiffViewView);
