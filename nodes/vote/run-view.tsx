/**
 * The Votes tab: every vote of the run as a chart — a horizontal bar per candidate that got
 * votes (recharts), most first, each with its count, the winner and the candidates tied at the
 * top coloured and the winner starred; candidates without votes named in one line below; the
 * reason and the tie-break spelled out, and every ballot as cast and as read, in a list that
 * scrolls (50 critics' ballots fit). It reads `tally` reports from any node (the vote node's, a
 * mindstorm democracy's), so it is keyed by that kind rather than by this node type. Found like
 * the spec (renderer/run/runViews.ts).
 */
import { memo, useMemo } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { plural } from '../../renderer/model/plural.ts';
import { copyLabel } from '../../renderer/model/transcript-filter.ts';
import { useNodeNames } from '../../renderer/run/useNodeNames.ts';
import { selectNode } from '../../renderer/store.ts';
import '../../renderer/run/run.css';
import type { NodeRunView, NodeRunViewProps } from '../../renderer/run/runViews.ts';
import {
  ballotLines,
  chartedBars,
  type TallyLike,
  type TallyView,
  tallyBars,
  tallyOutcome,
} from './chart-model.ts';

const COLORS = { winner: 'var(--ok)', tied: 'var(--warn)', other: 'var(--accent)' };
const ROW_HEIGHT = 26;
/** More candidates than this without votes are listed behind a toggle rather than in a line. */
const UNVOTED_INLINE = 8;
/** The candidate axis: room for about 28 characters; longer names are cut, whole on hover. */
const AXIS_WIDTH = 200;
const CHAR_WIDTH = 7;

/**
 * A candidate on the axis as one line: cut to the axis's width with an ellipsis, the whole
 * name in its tooltip (recharts would wrap it over the neighbouring rows). The winner's name is
 * green and bold, with a star at the axis's left edge, outside the name.
 */
function CandidateTick(props: {
  x?: number;
  y?: number;
  payload?: { value?: unknown };
  winner?: string | null;
  axisWidth?: number;
}) {
  const name = String(props.payload?.value ?? '');
  const won = props.winner === name;
  // The winner's star takes two characters of the room.
  const room = Math.floor((AXIS_WIDTH - 12) / CHAR_WIDTH) - (won ? 2 : 0);
  const shown = name.length > room ? `${name.slice(0, room - 1)}…` : name;
  const at = `translate(${props.x ?? 0},${props.y ?? 0})`;
  const label = (
    <g transform={at} data-testid="tally-tick">
      <title>{name}</title>
      <text
        x={-4}
        dy={4}
        textAnchor="end"
        fill={won ? COLORS.winner : 'var(--text)'}
        fontSize={12}
        fontWeight={won ? 700 : 400}
      >
        {shown}
      </text>
    </g>
  );
  if (!won) return label;
  return (
    <g>
      {label}
      <text
        transform={at}
        // At the chart's left edge, whatever width the axis took: never outside the chart.
        x={-(props.x ?? 0) + 2}
        dy={4}
        fill={COLORS.winner}
        fontSize={12}
        className="tally-star"
        aria-label="winner"
      >
        ★
      </text>
    </g>
  );
}

function TallyChartView({ view }: { view: TallyView }) {
  const { tally } = view;
  const { drawn: bars, unvoted } = useMemo(() => chartedBars(tallyBars(tally)), [tally]);
  const outcome = useMemo(() => tallyOutcome(tally), [tally]);
  const ballots = useMemo(() => ballotLines(tally), [tally]);
  const names = useNodeNames();
  const longest = Math.max(4, ...bars.map((b) => b.candidate.length + (b.winner ? 2 : 0)));
  const axisWidth = Math.min(AXIS_WIDTH, 12 + longest * CHAR_WIDTH);
  return (
    <section className="tally" data-testid="tally">
      <h3>
        <button type="button" className="link" onClick={() => selectNode(view.node)}>
          {view.instance || view.node}
        </button>{' '}
        <span className="muted small">
          {tally.rule ?? 'vote'}
          {tally.totals
            ? ` · ${tally.totals.valid}/${plural(tally.totals.ballots, 'valid ballot')}`
            : ''}
        </span>
      </h3>
      <div
        className="tally-chart"
        data-testid="tally-chart"
        style={{ height: bars.length * ROW_HEIGHT + 36 }}
        role="img"
        aria-label={`votes: ${bars.map((b) => `${b.candidate} ${b.count}`).join(', ')}`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <BarChart
            data={bars}
            layout="vertical"
            margin={{ top: 4, right: 24, bottom: 4, left: 4 }}
            barCategoryGap={4}
          >
            <CartesianGrid horizontal={false} stroke="var(--border)" />
            <XAxis
              type="number"
              allowDecimals={false}
              stroke="var(--muted)"
              tick={{ fill: 'var(--muted)', fontSize: 11 }}
            />
            <YAxis
              type="category"
              dataKey="candidate"
              width={axisWidth}
              stroke="var(--muted)"
              tick={<CandidateTick winner={tally.winner ?? null} axisWidth={axisWidth} />}
              interval={0}
            />
            <Tooltip
              cursor={{ fill: 'color-mix(in srgb, var(--accent) 8%, transparent)' }}
              contentStyle={{
                background: 'var(--panel-2)',
                border: '1px solid var(--border)',
                fontSize: 12,
              }}
              itemStyle={{ color: 'var(--text)' }}
              formatter={(value) => [String(value), tally.rule === 'borda' ? 'points' : 'votes']}
            />
            <Bar
              dataKey="count"
              isAnimationActive={false}
              label={{ position: 'right', fill: 'var(--text)', fontSize: 11 }}
            >
              {bars.map((b) => (
                <Cell
                  key={b.candidate}
                  fill={b.winner ? COLORS.winner : b.tied ? COLORS.tied : COLORS.other}
                />
              ))}
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      {unvoted.length > 0 ? <Unvoted names={unvoted} /> : null}
      <p className="small" data-testid="tally-winner">
        {outcome.winner ? (
          <>
            Winner: <strong className="tally-winner-text">{outcome.winner}</strong>
          </>
        ) : (
          'No winner'
        )}
        {outcome.reason ? <span className="muted"> — {outcome.reason}</span> : null}
      </p>
      {outcome.tieBreak ? (
        <p className="small tie-break" data-testid="tally-tiebreak">
          Tie between {outcome.tied.map((t) => `“${t}”`).join(', ')}, broken by{' '}
          {/* The reason above already tells how, when the vote node says it. */}
          {tally.tieBreak?.rule && outcome.reason.includes(tally.tieBreak.reason ?? '\u0000')
            ? `the ${tally.tieBreak.rule} rule`
            : outcome.tieBreak}
        </p>
      ) : null}
      {ballots.length ? (
        <details>
          <summary data-testid="tally-ballots-toggle">{plural(ballots.length, 'ballot')}</summary>
          <div className="ballots-scroll">
            <table className="ballots" data-testid="tally-ballots">
              <tbody>
                {ballots.map((b, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: ballots keep the order they were cast in
                  <tr key={i} className={b.valid ? '' : 'invalid'}>
                    <td className="ballot-voter" title={copyLabel(b.voter, names)}>
                      <code>{copyLabel(b.voter, names)}</code>
                    </td>
                    <td className="ballot-cast">{b.cast}</td>
                    <td>
                      {b.valid ? (
                        <span className="muted">→ {b.readAs}</span>
                      ) : (
                        <span>invalid{b.reason ? `: ${b.reason}` : ''}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </section>
  );
}

/** Candidates nobody voted for: a line when few, behind a toggle when many. */
function Unvoted({ names }: { names: string[] }) {
  const list = names.join(' · ');
  if (names.length <= UNVOTED_INLINE) {
    return (
      <p className="small muted tally-unvoted" data-testid="tally-unvoted">
        No votes: {list}
      </p>
    );
  }
  return (
    <details className="small tally-unvoted" data-testid="tally-unvoted">
      <summary className="muted">{plural(names.length, 'candidate')} without votes</summary>
      <p className="muted">{list}</p>
    </details>
  );
}

const TallyChart = memo(TallyChartView);

function Votes({ reports }: NodeRunViewProps) {
  // A tally is read as the chart reads one: any part may be missing in a run an older build
  // stored, and what is there is drawn.
  const tallies: TallyView[] = reports.flatMap((r) =>
    r.kind === 'tally' && r.data !== null && typeof r.data === 'object' && !Array.isArray(r.data)
      ? [{ seq: r.seq, node: r.node, instance: r.instance, tally: r.data as TallyLike }]
      : [],
  );
  if (tallies.length === 0) return <p className="muted">No votes in this run yet.</p>;
  return (
    <div className="votes">
      {tallies.map((t) => (
        <TallyChart key={t.seq} view={t} />
      ))}
    </div>
  );
}

export const runView: NodeRunView = { title: 'Votes', kinds: ['tally'], component: Votes };
