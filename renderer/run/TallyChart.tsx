/**
 * A vote as a chart: a bar per candidate (recharts), the winner and the candidates tied at the
 * top coloured, the reason and the tie-break spelled out, and every ballot as cast and as read.
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
import { plural } from '../model/plural.ts';
import type { TallyView } from '../model/run.ts';
import { ballotLines, tallyBars, tallyOutcome } from '../model/tally.ts';
import { selectNode } from '../store.ts';
import './run.css';

const COLORS = { winner: '#4ade80', tied: '#f5b041', other: '#6aa6ff' };
const ROW_HEIGHT = 26;
/** The candidate axis: room for about 28 characters; longer names are cut, whole on hover. */
const AXIS_WIDTH = 200;
const CHAR_WIDTH = 7;

/**
 * A candidate on the axis as one line: cut to the axis's width with an ellipsis, the whole
 * name in its tooltip (recharts would wrap it over the neighbouring rows).
 */
function CandidateTick(props: { x?: number; y?: number; payload?: { value?: unknown } }) {
  const name = String(props.payload?.value ?? '');
  const room = Math.floor((AXIS_WIDTH - 12) / CHAR_WIDTH);
  const shown = name.length > room ? `${name.slice(0, room - 1)}…` : name;
  return (
    <g transform={`translate(${props.x ?? 0},${props.y ?? 0})`} data-testid="tally-tick">
      <title>{name}</title>
      <text x={-4} dy={4} textAnchor="end" fill="#e6e9ef" fontSize={12}>
        {shown}
      </text>
    </g>
  );
}

function TallyChartView({ view }: { view: TallyView }) {
  const { tally } = view;
  const bars = useMemo(() => tallyBars(tally), [tally]);
  const outcome = useMemo(() => tallyOutcome(tally), [tally]);
  const ballots = useMemo(() => ballotLines(tally), [tally]);
  const longest = Math.max(4, ...bars.map((b) => b.candidate.length));
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
            <CartesianGrid horizontal={false} stroke="#2a303b" />
            <XAxis
              type="number"
              allowDecimals={false}
              stroke="#8b94a5"
              tick={{ fill: '#8b94a5', fontSize: 11 }}
            />
            <YAxis
              type="category"
              dataKey="candidate"
              width={Math.min(AXIS_WIDTH, 12 + longest * CHAR_WIDTH)}
              stroke="#8b94a5"
              tick={<CandidateTick />}
              interval={0}
            />
            <Tooltip
              cursor={{ fill: 'rgb(106 166 255 / 8%)' }}
              contentStyle={{ background: '#1d222b', border: '1px solid #2a303b', fontSize: 12 }}
              itemStyle={{ color: '#e6e9ef' }}
              formatter={(value) => [String(value), tally.rule === 'borda' ? 'points' : 'votes']}
            />
            <Bar
              dataKey="count"
              isAnimationActive={false}
              label={{ position: 'right', fill: '#e6e9ef', fontSize: 11 }}
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
          <table className="ballots" data-testid="tally-ballots">
            <tbody>
              {ballots.map((b, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: ballots keep the order they were cast in
                <tr key={i} className={b.valid ? '' : 'invalid'}>
                  <td>
                    <code>{b.voter}</code>
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
        </details>
      ) : null}
    </section>
  );
}

export const TallyChart = memo(TallyChartView);
