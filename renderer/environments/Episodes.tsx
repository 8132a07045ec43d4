/**
 * The Episodes tab of the node types that drive an environment (a dispatcher, a simulator
 * node): each episode's world as its last step left it, and every step, read from the nodes'
 * `step` reports (app/environments/step-report.ts). Each such type's `run-view.tsx` shows it.
 */
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

/** Each episode played: the kitchen as the last step left it, and every step. */
export function Episodes({ reports }: NodeRunViewProps) {
  const episodes = episodesOf(reports);
  if (episodes.length === 0) {
    return <p className="muted">No environment episode in this run yet.</p>;
  }
  return (
    <div className="episodes">
      {episodes.map((episode) => {
        const state = episode.state as Snapshot;
        const refused = episode.steps.reduce((n, s) => n + s.rejections.length, 0);
        return (
          <section
            key={episode.instance}
            className="episode"
            data-testid={`episode-${episode.instance}`}
          >
            <header data-testid={`episode-${episode.instance}-summary`}>
              <strong>{episode.instance}</strong> · {simulatedPrefix(episode.simulated)}
              {state.level} · step {state.step} of {state.maxSteps} ·{' '}
              {state.accomplished?.length ?? 0} served · {state.failed?.length ?? 0} failed ·{' '}
              {state.orders?.length ?? 0} open · {refused} refused{episode.done ? ' · done' : ''}
            </header>
            <div className="episode-state">
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
            <ol className="episode-steps" start={0}>
              {episode.steps.map((s) => (
                <li key={s.step} data-testid={`episode-step-${s.step}`}>
                  <span className="muted">t={s.step}</span>{' '}
                  {s.commands.map((c, i) => (
                    <code
                      // biome-ignore lint/suspicious/noArrayIndexKey: a model may repeat a command
                      key={`${i}:${c.command}`}
                      className={
                        c.by === 'person' ? 'episode-command by-person' : 'episode-command'
                      }
                    >
                      {c.command}
                    </code>
                  ))}
                  {s.rejections.map((r, i) => (
                    <span
                      // biome-ignore lint/suspicious/noArrayIndexKey: the same refusal may repeat
                      key={`${i}:${r.command}:${r.reason}`}
                      className="refused"
                      title={r.message}
                    >
                      {r.command}: {r.reason}
                    </span>
                  ))}
                  {s.completed.length > 0 ? (
                    <span className="served">served {s.completed.join(', ')}</span>
                  ) : null}
                </li>
              ))}
            </ol>
          </section>
        );
      })}
    </div>
  );
}
