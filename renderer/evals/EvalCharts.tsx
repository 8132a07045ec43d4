/**
 * An eval's two charts (recharts): a bar per variant with its 95% interval as an error bar, and
 * each variant's score against what it cost, with one legend of the variants' colours below.
 * Fixed sizes, so the charts draw at once in a view that opens over the canvas; no animation, so
 * what is drawn is what the figures say. A variant scoring 0 still has a sliver of a bar (a
 * failed one has none), and names too long for their slot are cut, whole in their title.
 */
import { memo } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  ZAxis,
} from 'recharts';
import type { ApiEvalSummary } from '../../app/api/contract.ts';
import {
  axisLabel,
  barSlot,
  type CostPoint,
  costPoints,
  money,
  type ScoreBar,
  scoreAxis,
  scoreBars,
} from '../model/evals.ts';

const AXIS = { fill: 'var(--muted)', fontSize: 11 };
const GRID = 'var(--border)';
const score = (x: number) => x.toFixed(3);

function BarTip({
  active,
  payload,
}: {
  active?: boolean;
  payload?: Array<{ payload?: ScoreBar }>;
}) {
  const bar = payload?.[0]?.payload;
  if (!active || !bar) return null;
  return (
    <div className="eval-tip">
      <strong>{bar.name}</strong>: {bar.noScore ? (bar.n ? 'failed' : '–') : score(bar.mean)}
      <div className="muted">
        {bar.noScore ? 'no run scored' : `95% interval ${score(bar.lo)}–${score(bar.hi)}`} · n=
        {bar.n}
        {bar.failed ? ` · ${bar.failed} failed` : ''}
      </div>
    </div>
  );
}

function PointTip({
  active,
  payload,
}: {
  active?: boolean;
  payload?: Array<{ payload?: CostPoint }>;
}) {
  const point = payload?.[0]?.payload;
  if (!active || !point) return null;
  return (
    <div className="eval-tip">
      <strong>{point.name}</strong>: {score(point.mean)}
      <div className="muted">
        {money(point.costUsd)} · {point.tokens.toLocaleString()} tokens
      </div>
    </div>
  );
}

/** A variant's name under its bar, cut to its slot; the whole name is its title. */
function NameTick({
  x,
  y,
  payload,
  slot,
}: {
  x?: number | string;
  y?: number | string;
  payload?: { value?: unknown };
  slot: number;
}) {
  const name = String(payload?.value ?? '');
  return (
    <text
      x={Number(x ?? 0)}
      y={Number(y ?? 0) + 12}
      textAnchor="middle"
      fill={AXIS.fill}
      fontSize={AXIS.fontSize}
      className="eval-axis-name"
    >
      <title>{name}</title>
      {axisLabel(name, slot)}
    </text>
  );
}

function EvalChartsView({ summary }: { summary: ApiEvalSummary }) {
  const bars = scoreBars(summary);
  const points = costPoints(summary);
  const domain = scoreAxis(summary);
  const maxCost = Math.max(0, ...points.map((p) => p.costUsd));
  const slot = barSlot(bars);
  const width = Math.max(250, 60 + bars.length * slot);
  return (
    <div className="eval-charts">
      <figure data-testid="eval-chart-scores">
        <figcaption className="muted small">
          Score per variant · error bars: 95% interval
        </figcaption>
        <BarChart
          width={width}
          height={220}
          data={bars}
          margin={{ top: 12, right: 12, left: 0, bottom: 4 }}
        >
          <CartesianGrid stroke={GRID} vertical={false} />
          <XAxis dataKey="name" tick={<NameTick slot={slot} />} interval={0} stroke={GRID} />
          <YAxis domain={domain} tick={AXIS} width={40} stroke={GRID} />
          <Tooltip
            content={<BarTip />}
            cursor={{ fill: 'color-mix(in srgb, var(--text) 4%, transparent)' }}
          />
          <Bar
            dataKey="mean"
            isAnimationActive={false}
            maxBarSize={48}
            // A score of 0 is a result: a sliver shows it; a variant that never scored has none.
            minPointSize={(_, i) => (bars[i]?.noScore ? 0 : 3)}
          >
            {bars.map((b) => (
              <Cell key={b.name} fill={b.color} />
            ))}
            <ErrorBar
              dataKey="err"
              width={6}
              stroke="var(--text)"
              strokeWidth={1.5}
              direction="y"
            />
          </Bar>
        </BarChart>
      </figure>
      <figure data-testid="eval-chart-cost">
        <figcaption className="muted small">
          Score against cost{maxCost === 0 ? ' · every variant cost $0' : ''}
        </figcaption>
        <ScatterChart width={330} height={220} margin={{ top: 12, right: 24, left: 0, bottom: 4 }}>
          <CartesianGrid stroke={GRID} />
          <XAxis
            type="number"
            dataKey="costUsd"
            name="cost"
            domain={maxCost > 0 ? [0, maxCost * 1.1] : [0, 1]}
            ticks={maxCost > 0 ? undefined : [0]}
            tickFormatter={money}
            tick={AXIS}
            stroke={GRID}
          />
          <YAxis
            type="number"
            dataKey="mean"
            name="score"
            domain={domain}
            tick={AXIS}
            width={40}
            stroke={GRID}
          />
          <ZAxis range={[70, 70]} />
          <Tooltip content={<PointTip />} cursor={{ stroke: GRID }} />
          {points.map((p) => (
            <Scatter key={p.name} name={p.name} data={[p]} fill={p.color} isAnimationActive={false}>
              <ErrorBar dataKey="err" width={0} stroke={p.color} strokeWidth={2} direction="y" />
            </Scatter>
          ))}
        </ScatterChart>
      </figure>
      <ul className="eval-legend" data-testid="eval-legend" aria-label="Variants">
        {bars.map((b) => (
          <li key={b.name} data-testid="eval-legend-item" title={b.name}>
            <span className="eval-swatch" style={{ background: b.color }} aria-hidden="true" />
            {b.name}
            {b.noScore ? <span className="muted"> (failed)</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

export const EvalCharts = memo(EvalChartsView);
