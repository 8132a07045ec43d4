/**
 * A Gantt-like timeline of node executions: one row per node instance, a bar from its start to
 * its end (or now), coloured by state, the rounds of each loop marked across the top and as
 * bands behind the rows. Clicking a bar shows what that agent was sent.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { formatDuration, timelineLayout } from '../model/timeline.ts';
import { useEditor } from '../store.ts';
import { isActive } from './controller.ts';
import { useDebug } from './debugState.ts';
import './run.css';
import { revealNode } from '../editor/library-actions.ts';
import { plural } from '../model/plural.ts';

const pct = (f: number) => `${(f * 100).toFixed(3)}%`;

/** Re-renders every `ms` while `on`, so bars under way grow. */
function useNow(on: boolean, ms = 500): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [on, ms]);
  return now;
}

function TimelineView() {
  const { instances, rounds, pauses, paused, endedAt, status, forkOf } = useEditor(
    useShallow((s) => ({
      instances: s.run.instances,
      rounds: s.run.rounds,
      pauses: s.run.pauses,
      paused: s.run.paused,
      endedAt: s.run.endedAt,
      status: s.run.status,
      forkOf: s.run.forkOf,
    })),
  );
  const now = useNow(isActive(status) && status !== 'paused');
  const layout = useMemo(
    () => timelineLayout({ instances, rounds, pauses, paused, endedAt }, now),
    [instances, rounds, pauses, paused, endedAt, now],
  );
  if (layout.bars.length === 0) {
    return <p className="muted">No node has run yet. The timeline fills as nodes start.</p>;
  }
  const loops = [...new Set(layout.rounds.map((r) => r.loop))];
  return (
    <div className="timeline" data-testid="timeline">
      <p className="muted small timeline-caption">
        {layout.bars.length} node executions · {formatDuration(layout.spanMs)} busy
        {layout.breaks.length
          ? ` · ${layout.breaks.length} idle stretch${layout.breaks.length === 1 ? '' : 'es'} cut short (hatched)`
          : ''}
        {forkOf ? ` · forks ${forkOf.runId} after event ${forkOf.seq}` : ''}
      </p>
      <div className="timeline-grid">
        {loops.map((loop) => (
          <div key={loop} className="timeline-row timeline-rounds" data-testid="timeline-rounds">
            <span className="timeline-label muted">{loop}</span>
            <span className="timeline-track">
              {layout.rounds
                .filter((r) => r.loop === loop)
                .map((r) => (
                  <span
                    key={`${r.loop}:${r.round}`}
                    className="timeline-round"
                    style={{ left: pct(r.left), width: pct(r.width) }}
                    title={`${r.loop} ${r.label}`}
                    data-testid="timeline-round"
                  >
                    {r.label}
                  </span>
                ))}
            </span>
          </div>
        ))}
        <div className="timeline-body">
          <span className="timeline-bands" aria-hidden="true">
            {layout.rounds.map((r, i) => (
              <span
                key={`${r.loop}:${r.round}`}
                className={`timeline-band${i % 2 ? ' odd' : ''}`}
                style={{ left: pct(r.left), width: pct(r.width) }}
              />
            ))}
            {layout.breaks.map((b) => (
              <span
                key={b.left}
                className="timeline-break"
                style={{ left: pct(b.left) }}
                title={`idle for ${formatDuration(b.ms)}`}
              />
            ))}
          </span>
          {layout.bars.map((bar) => (
            <div key={bar.instance} className="timeline-row" data-testid="timeline-row">
              <span className="timeline-label" title={bar.instance}>
                {bar.instance}
              </span>
              <span className="timeline-track">
                <button
                  type="button"
                  className={`timeline-bar state-${bar.state}`}
                  style={{ left: pct(bar.left), width: pct(bar.width) }}
                  data-testid="timeline-bar"
                  data-state={bar.state}
                  title={[
                    `${bar.instance}: ${bar.state}`,
                    formatDuration(bar.durationMs),
                    bar.calls ? `${plural(bar.calls, 'call')}, ${plural(bar.tokens, 'token')}` : '',
                    bar.error ?? '',
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                  onClick={() => {
                    revealNode(bar.node);
                    if (bar.calls) {
                      useDebug.setState({ contextInstance: bar.instance, contextCall: null });
                      useEditor.setState({ runTab: 'context' });
                    }
                  }}
                />
              </span>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

export const Timeline = memo(TimelineView);
