/**
 * The Episodes tab of the node types that drive an environment (a dispatcher, a simulator
 * node): each episode's world at any of its steps (a scrubber: slider, buttons, arrow keys;
 * the latest step while the run plays on), what was done at that step, and every step, read
 * from the nodes' `step` reports (app/environments/step-report.ts). Each such type's
 * `run-view.tsx` shows it.
 */

import { type KeyboardEvent, useRef, useState } from 'react';
import {
  type EnvironmentStepReport,
  STEP_REPORT,
  stepReportSchema,
} from '../../app/environments/step-report.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
import type { ReportView } from '../model/run.ts';
import type { NodeRunViewProps } from '../run/runViews.ts';
import './episodes.css';

/** An episode one node copy played: its steps and the world as the last step left it. */
export interface EpisodeView {
  node: string;
  instance: string;
  steps: EnvironmentStepReport[];
  state: Record<string, unknown>;
  done: boolean;
  /** Some of its commands came from made-up (simulated) answers. */
  simulated: boolean;
}

/** The run's `step` reports, as one episode per node copy, in the order each began. */
export function episodesOf(reports: readonly ReportView[]): EpisodeView[] {
  const episodes = new Map<string, EpisodeView>();
  for (const r of reports) {
    const parsed = r.kind === STEP_REPORT ? stepReportSchema.safeParse(r.data) : undefined;
    if (!parsed?.success) continue;
    const step = parsed.data;
    const existing = episodes.get(r.instance);
    episodes.set(r.instance, {
      node: r.node,
      instance: r.instance,
      steps: [...(existing?.steps ?? []), step],
      state: step.state,
      done: step.done,
      simulated: (existing?.simulated ?? false) || step.simulated,
    });
  }
  return [...episodes.values()];
}

interface Snapshot {
  level?: string;
  step?: number;
  maxSteps?: number;
  orders?: Array<{ id: number; dish: string; lifetime: number }>;
  agents?: Array<{ id: string; at: string; hold: string | string[] | null; occupied: boolean }>;
  locations?: Array<{ id: string; contents: string[]; occupied: boolean }>;
  accomplished?: string[];
  failed?: string[];
}

function held(hold: string | string[] | null | undefined): string {
  if (hold === null || hold === undefined) return '—';
  return Array.isArray(hold) ? hold.join(' & ') || '—' : hold;
}

/** Each episode played: its world at the step chosen on its scrubber, and every step. */
export function Episodes({ reports }: NodeRunViewProps) {
  const episodes = episodesOf(reports);
  if (episodes.length === 0) {
    return <p className="muted">No environment episode in this run yet.</p>;
  }
  return (
    <div className="episodes">
      {episodes.map((episode) => (
        <Episode key={episode.instance} episode={episode} />
      ))}
    </div>
  );
}

/**
 * Which step a scrubber shows, 1-based: the one chosen, or the latest when none is (so a
 * playing episode follows its steps until someone scrubs back).
 */
export function shownStep(chosen: number | null, steps: number): number {
  if (steps === 0) return 0;
  return chosen === null ? steps : Math.min(Math.max(chosen, 1), steps);
}

function Episode({ episode }: { episode: EpisodeView }) {
  const [chosen, setChosen] = useState<number | null>(null);
  const scrubber = useRef<HTMLDivElement>(null);
  const count = episode.steps.length;
  const k = shownStep(chosen, count);
  const step = episode.steps[k - 1];
  const final = episode.state as Snapshot;
  const refused = episode.steps.reduce((n, s) => n + s.rejections.length, 0);
  const go = (to: number) => setChosen(to >= count ? null : Math.max(1, to));
  const id = episode.instance;
  const onKeyDown = (e: KeyboardEvent) => {
    // The slider moves itself on arrow keys; the rest of the scrubber moves it the same way.
    if ((e.target as HTMLElement).tagName === 'INPUT') return;
    const to = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 1, End: count }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  };
  return (
    <section className="episode" data-testid={`episode-${id}`}>
      <header data-testid={`episode-${id}-summary`}>
        <strong>{id}</strong> · {simulatedPrefix(episode.simulated)}
        {final.level} · step {final.step} of {final.maxSteps} · {final.accomplished?.length ?? 0}{' '}
        served · {final.failed?.length ?? 0} failed · {final.orders?.length ?? 0} open · {refused}{' '}
        refused{episode.done ? ' · done' : ''}
      </header>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: arrow keys for the buttons inside */}
      <div className="episode-scrubber" ref={scrubber} onKeyDown={onKeyDown}>
        <button
          type="button"
          data-testid={`episode-${id}-first`}
          aria-label="first step"
          disabled={k <= 1}
          onClick={() => go(1)}
        >
          ⇤
        </button>
        <button
          type="button"
          data-testid={`episode-${id}-previous`}
          aria-label="previous step"
          disabled={k <= 1}
          onClick={() => go(k - 1)}
        >
          ←
        </button>
        <input
          type="range"
          min={1}
          max={count}
          value={k}
          data-testid={`episode-${id}-slider`}
          aria-label={`step of ${id}'s episode`}
          aria-valuetext={`step ${k} of ${count}`}
          onChange={(e) => go(Number(e.target.value))}
        />
        <button
          type="button"
          data-testid={`episode-${id}-next`}
          aria-label="next step"
          disabled={k >= count}
          onClick={() => go(k + 1)}
        >
          →
        </button>
        <button
          type="button"
          data-testid={`episode-${id}-last`}
          aria-label="last step"
          disabled={k >= count}
          onClick={() => go(count)}
        >
          ⇥
        </button>
        <span className="episode-at" data-testid={`episode-${id}-at`} aria-live="polite">
          step {k} of {count}
          {chosen === null && !episode.done ? ' (latest)' : ''}
        </span>
      </div>
      {step ? (
        <div className="episode-shown" data-testid={`episode-${id}-shown`}>
          <span className="muted">done at t={step.step}:</span> <StepActions step={step} />
          <World state={step.state as Snapshot} />
        </div>
      ) : null}
      <ol className="episode-steps" start={0}>
        {episode.steps.map((s, i) => (
          <li
            key={s.step}
            data-testid={`episode-step-${s.step}`}
            className={i === k - 1 ? 'shown' : undefined}
          >
            <button
              type="button"
              className="link episode-step-pick"
              aria-current={i === k - 1 ? 'step' : undefined}
              title="show the kitchen after this step"
              onClick={() => {
                go(i + 1);
                // The kitchen it shows is above the list: bring it into sight.
                scrubber.current?.scrollIntoView({ block: 'nearest' });
              }}
            >
              t={s.step}
            </button>{' '}
            <StepActions step={s} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** What was done at a step: its commands, what was refused and why, the dishes served. */
function StepActions({ step }: { step: EnvironmentStepReport }) {
  return (
    <span className="episode-actions" data-testid="episode-actions">
      {step.commands.length === 0 && step.rejections.length === 0 ? (
        <span className="muted">no commands</span>
      ) : null}
      {step.commands.map((c, i) => (
        <code
          // biome-ignore lint/suspicious/noArrayIndexKey: a model may repeat a command
          key={`${i}:${c.command}`}
          className={c.by === 'person' ? 'episode-command by-person' : 'episode-command'}
        >
          {c.command}
        </code>
      ))}
      {step.rejections.map((r, i) => (
        <span
          // biome-ignore lint/suspicious/noArrayIndexKey: the same refusal may repeat
          key={`${i}:${r.command}:${r.reason}`}
          className="refused"
          title={r.message}
        >
          {r.command}: {r.reason}
        </span>
      ))}
      {step.completed.length > 0 ? (
        <span className="served">served {step.completed.join(', ')}</span>
      ) : null}
    </span>
  );
}

/** The kitchen as a step left it: open orders, where each agent is and holds, each place. */
function World({ state }: { state: Snapshot }) {
  return (
    <div className="episode-state" data-testid="episode-world">
      <div>
        <h4>Orders</h4>
        <ul>
          {(state.orders ?? []).map((o) => (
            <li key={o.id}>
              {o.dish}{' '}
              <span className="muted">
                ({o.lifetime} step{o.lifetime === 1 ? '' : 's'} left)
              </span>
            </li>
          ))}
          {(state.orders ?? []).length === 0 ? <li className="muted">none open</li> : null}
        </ul>
      </div>
      <div>
        <h4>Agents</h4>
        <ul>
          {(state.agents ?? []).map((a) => (
            <li key={a.id} data-testid={`episode-agent-${a.id}`}>
              <code>{a.id}</code> at {a.at}, holds {held(a.hold)}
              {a.occupied ? <span className="muted"> (busy)</span> : null}
            </li>
          ))}
        </ul>
      </div>
      <div>
        <h4>Kitchen</h4>
        <ul>
          {(state.locations ?? []).map((l) => (
            <li key={l.id}>
              <code>{l.id}</code> {l.contents.length > 0 ? l.contents.join(' & ') : '—'}
              {l.occupied ? <span className="muted"> (busy)</span> : null}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
