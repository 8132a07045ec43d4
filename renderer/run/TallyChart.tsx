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
import type { TallyView } from '../model/run.ts';
import { ballotLines, tallyBars, tallyOutcome } from '../model/tally.ts';
import { selectNode } from '../store.ts';
import './run.css';

const COLORS = { winner: '#4ade80', tied: '#f5b041', other: '#6aa6ff' };
const ROW_HEIGHT = 26;

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
          {tally.totals ? ` · ${tally.totals.valid}/${tally.totals.ballots} valid ballots` : ''}
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
              width={Math.min(160, 8 + longest * 7)}
              stroke="#8b94a5"
              tick={{ fill: '#e6e9ef', fontSize: 12 }}
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
            Winner: <strong>{outcome.winner}</strong>
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
          <summary data-testid="tally-ballots-toggle">{ballots.length} ballots</summary>
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
