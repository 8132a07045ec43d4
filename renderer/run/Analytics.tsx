/**
 * The run's analytics, reduced from the `series`, `interaction` and `participants` reports its
 * nodes made, whichever nodes they are (app/analytics/reduce.ts, the same reduction `society show --heatmap` prints): the heat map of
 * who interacted with whom, then one chart per series — lines per key for numbers, a step-by-key
 * table for categories (an area's topic). Every heat-map cell says its pair and count in its
 * title, so the grid reads without colour too.
 */
import { memo, useMemo, useState } from 'react';
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import {
  type HeatMap,
  listenersOnly,
  maxCount,
  runAnalytics,
  type Series,
  silentAgents,
  strongestPair,
} from '../../app/analytics/reduce.ts';
import { heatColour, lightText } from '../../app/analytics/scale.ts';
import { number } from '../../app/analytics/text.ts';
import { analyticsReports } from '../../app/node-sdk/reported.ts';
import { plural } from '../model/plural.ts';
import type { NodeRunView, NodeRunViewProps } from './runViews.ts';
import './run.css';

/**
 * Line colours (Tableau 10), one per key in key order, repeating past ten: data colours, the same
 * in both themes (never text).
 */
const LINE_COLOURS = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];
const AXIS = { fill: 'var(--muted)', fontSize: 11 };

/** The Analytics tab: the heat map, then every series. */
function Analytics({ reports }: NodeRunViewProps) {
  const [kind, setKind] = useState<string | undefined>(undefined);
  const analytics = useMemo(
    () =>
      runAnalytics(
        reports.map((r) => ({ type: 'report', kind: r.kind, data: r.data })),
        kind ? { kind } : {},
      ),
    [reports, kind],
  );
  if (reports.length === 0)
    return <p className="muted">This run reports no series or interactions.</p>;
  const { heatmap, kinds, series } = analytics;
  return (
    <div className="analytics">
      {kinds.length > 0 || heatmap.agents.length > 0 ? (
        <section>
          <h3>
            Who interacted with whom{' '}
            {kinds.length > 1 ? (
              <select
                aria-label="Interaction kind"
                data-testid="analytics-kind"
                value={heatmap.kind}
                onChange={(e) => setKind(e.target.value)}
              >
                {kinds.map((k) => (
                  <option key={k} value={k}>
                    {k}
                  </option>
                ))}
              </select>
            ) : (
              <span className="muted small">{heatmap.kind}</span>
            )}
          </h3>
          <HeatMapGrid map={heatmap} />
        </section>
      ) : null}
      {series.map((s) =>
        s.kind === 'number' ? (
          <SeriesChart key={s.name} series={s} />
        ) : (
          <CategoryTable key={s.name} series={s} />
        ),
      )}
    </div>
  );
}

const HeatMapGrid = memo(function HeatMapGrid({ map }: { map: HeatMap }) {
  const max = maxCount(map);
  const top = strongestPair(map);
  const silent = silentAgents(map);
  const listeners = listenersOnly(map);
  return (
    <>
      <div className="analytics-scroll">
        <table
          className="heatmap"
          data-testid="analytics-heatmap"
          aria-label={`${map.kind} interactions: initiators in rows, receivers in columns`}
        >
          <thead>
            <tr>
              <th scope="col" className="muted small">
                from ↓ to →
              </th>
              {map.agents.map((a) => (
                <th key={a} scope="col" title={a}>
                  {a}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {map.agents.map((from, i) => (
              <tr key={from}>
                <th scope="row" title={from}>
                  {from}
                </th>
                {map.counts[i]!.map((count, j) => {
                  const to = map.agents[j]!;
                  return (
                    <td
                      key={to}
                      className="heatmap-cell"
                      title={`${from} → ${to}: ${plural(count, `${map.kind} interaction`)}`}
                      data-count={count}
                      style={
                        count > 0
                          ? {
                              background: heatColour(count, max),
                              color: lightText(count, max) ? '#ffffff' : '#1d2330',
                            }
                          : undefined
                      }
                    >
                      {count > 0 ? count : ''}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="small muted" data-testid="analytics-heatmap-summary">
        {plural(map.total, `${map.kind} interaction`)} among {plural(map.agents.length, 'agent')}
        {top ? ` · most: ${top.from} → ${top.to} (${top.count})` : ''}
        {silent.length ? ` · no ${map.kind}: ${silent.join(', ')}` : ''}
        {listeners.length
          ? ` · never started one: ${listeners.map((l) => `${l.agent} (received ${l.received})`).join(', ')}`
          : ''}
      </p>
    </>
  );
});

const SeriesChart = memo(function SeriesChart({ series }: { series: Series }) {
  return (
    <section data-testid={`analytics-series-${series.name}`}>
      <h3>
        {series.label}
        {series.unit ? <span className="muted small"> ({series.unit})</span> : null}
      </h3>
      <div
        className="analytics-chart"
        role="img"
        aria-label={`${series.label}: ${series.keys.map((k) => `${k} ${lastValue(series, k)}`).join(', ')} at the last step`}
      >
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={series.points} margin={{ top: 4, right: 16, bottom: 4, left: 0 }}>
            <CartesianGrid stroke="var(--border)" />
            <XAxis
              dataKey="x"
              type="number"
              domain={['dataMin', 'dataMax']}
              stroke="var(--muted)"
              tick={AXIS}
              allowDecimals={false}
            />
            <YAxis stroke="var(--muted)" tick={AXIS} width={44} />
            <Tooltip
              contentStyle={{
                background: 'var(--panel-2)',
                border: '1px solid var(--border)',
                fontSize: 12,
              }}
              labelFormatter={(x) => `step ${x}`}
            />
            {/* Names in the text colour: a line colour can be too pale for text in a theme. */}
            <Legend
              wrapperStyle={{ fontSize: 11 }}
              formatter={(value) => <span style={{ color: 'var(--text)' }}>{value}</span>}
            />
            {series.keys.map((key, i) => (
              <Line
                key={key}
                name={key}
                dataKey={(row: { values: Series['points'][number]['values'] }) =>
                  row.values[key] ?? null
                }
                stroke={LINE_COLOURS[i % LINE_COLOURS.length]}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </section>
  );
});

/** A category per key and step, one row per key; a cell is coloured by its value. */
const CategoryTable = memo(function CategoryTable({ series }: { series: Series }) {
  const colours = useMemo(() => categoryColours(series), [series]);
  return (
    <section data-testid={`analytics-series-${series.name}`}>
      <h3>{series.label}</h3>
      <div className="analytics-scroll">
        <table className="category-table" aria-label={`${series.label} by step`}>
          <thead>
            <tr>
              <th scope="col" className="muted small">
                step
              </th>
              {series.points.map((p) => (
                <th key={p.x} scope="col">
                  {p.x}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {series.keys.map((key) => (
              <tr key={key}>
                <th scope="row">{key}</th>
                {series.points.map((p) => {
                  const value = p.values[key];
                  const text = value === undefined || value === null ? '' : String(value);
                  return (
                    <td
                      key={p.x}
                      className="category-cell"
                      title={`${key} at step ${p.x}: ${text || 'none'}`}
                      style={text ? { borderTopColor: colours.get(text) } : undefined}
                    >
                      {text}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
});

function lastValue(series: Series, key: string): string {
  for (let i = series.points.length - 1; i >= 0; i--) {
    const value = series.points[i]!.values[key];
    if (value !== undefined && value !== null)
      return typeof value === 'number' ? number(value) : value;
  }
  return 'none';
}

/** Each category its colour, in the order the categories first appear. */
function categoryColours(series: Series): Map<string, string> {
  const colours = new Map<string, string>();
  for (const p of series.points) {
    for (const value of Object.values(p.values)) {
      if (value !== null && !colours.has(String(value)))
        colours.set(String(value), LINE_COLOURS[colours.size % LINE_COLOURS.length]!);
    }
  }
  return colours;
}

/** The shared analytics view, keyed by the analytics report kinds (renderer/run/runViews.ts). */
export const analyticsView: NodeRunView = {
  title: 'Analytics',
  kinds: Object.keys(analyticsReports),
  component: Analytics,
};
