/**
 * The analytics as terminal text (`society show RUN --heatmap / --series`): the heat map as an
 * aligned table with a shade beside each count, its legend and a summary a person can act on
 * (who talks to whom most, who talks to no one), and each series' last value and range per key.
 */
import {
  type HeatMap,
  listenersOnly,
  maxCount,
  type Series,
  silentAgents,
  strongestPair,
  sum,
} from './reduce.ts';
import { SHADES, shade } from './scale.ts';

/** Longest agent name a column header shows before it is clipped. */
const HEADER_MAX = 14;

/** Width in terminal columns, counting each code point as one. */
const width = (text: string) => [...text].length;
const padStart = (text: string, to: number) => ' '.repeat(Math.max(0, to - width(text))) + text;
const padEnd = (text: string, to: number) => text + ' '.repeat(Math.max(0, to - width(text)));
const clip = (text: string, max: number) =>
  width(text) > max ? `${[...text].slice(0, max - 1).join('')}…` : text;

/** The heat map as a table, its legend and summary; one line saying so when it is empty. */
export function formatHeatmap(map: HeatMap, kinds: readonly string[]): string {
  const others = kinds.filter((k) => k !== map.kind);
  const otherKinds = others.length ? ` (other kinds: ${others.join(', ')}; see --kind)` : '';
  const what = kinds.length === 0 ? 'no interactions' : `no "${map.kind}" interactions`;
  // Nobody to show: no interaction, and no node named who could take part.
  if (map.total === 0 && map.agents.length === 0) return `${what} in this run${otherKinds}\n`;
  const max = maxCount(map);
  const cell = (count: number) => (count === 0 ? '·' : `${shade(count, max)} ${count}`);
  const sent = map.counts.map((row) => sum(row));
  const received = map.agents.map((_, j) => sum(map.counts.map((row) => row[j]!)));
  const header = ['', ...map.agents.map((a) => clip(a, HEADER_MAX)), 'sent'];
  const rows = [
    header,
    ...map.agents.map((a, i) => [a, ...map.counts[i]!.map(cell), String(sent[i])]),
    ['received', ...received.map(String), String(map.total)],
  ];
  const widths = header.map((_, c) => Math.max(...rows.map((r) => width(r[c]!))));
  const line = (r: string[]) =>
    r
      .map((text, c) => (c === 0 ? padEnd(text, widths[0]!) : padStart(text, widths[c]!)))
      .join('  ')
      .trimEnd();
  const out = [
    `${map.kind} interactions: initiator (rows) → receiver (columns), ${map.total} in all${otherKinds}`,
    ...rows.map(line),
  ];
  if (map.total === 0)
    return `${[...out, `${what} yet among these ${map.agents.length}`].join('\n')}\n`;
  out.push(
    `shades (share of the most, ${max}): · none  ${SHADES.map((s, i) => `${s} ≤${(i + 1) * 25}%`).join('  ')}`,
  );
  const top = strongestPair(map);
  if (top) out.push(`strongest: ${top.from} → ${top.to} (${top.count})`);
  const mutual = strongestMutual(map);
  if (mutual && mutual.back > 0)
    out.push(`most mutual: ${mutual.a} ↔ ${mutual.b} (${mutual.there} and ${mutual.back})`);
  const silent = silentAgents(map);
  out.push(
    silent.length
      ? `no ${map.kind}: ${silent.join(', ')}`
      : `everyone took part in a ${map.kind} interaction`,
  );
  const listeners = listenersOnly(map).map((l) => `${l.agent} (received ${l.received})`);
  if (listeners.length) out.push(`never started a ${map.kind}: ${listeners.join(', ')}`);
  return `${out.join('\n')}\n`;
}

/** The pair with the most interactions both ways, counted by the smaller direction. */
function strongestMutual(map: HeatMap) {
  let best: { a: string; b: string; there: number; back: number } | undefined;
  for (let i = 0; i < map.agents.length; i++) {
    for (let j = i + 1; j < map.agents.length; j++) {
      const there = map.counts[i]![j]!;
      const back = map.counts[j]![i]!;
      const score = Math.min(there, back);
      const bestScore = best ? Math.min(best.there, best.back) : 0;
      if (score > bestScore) best = { a: map.agents[i]!, b: map.agents[j]!, there, back };
    }
  }
  return best;
}

/** Each series: its steps and, per key, the last value and the range (or, for categories, changes). */
export function formatSeries(series: readonly Series[]): string {
  if (series.length === 0) return 'no series in this run\n';
  const out: string[] = [];
  for (const s of series) {
    const xs = s.points.map((p) => p.x);
    const span = xs.length ? `x ${number(xs[0]!)}–${number(xs.at(-1)!)}` : 'no points';
    out.push(
      `${s.label}${s.label === s.name ? '' : ` [${s.name}]`}${s.unit ? ` (${s.unit})` : ''} · ${span} · ${s.keys.length} key${s.keys.length === 1 ? '' : 's'}`,
    );
    const keyWidth = Math.max(...s.keys.map(width));
    for (const key of s.keys) {
      const values = s.points
        .map((p) => p.values[key])
        .filter((v) => v !== undefined && v !== null);
      const last = values.at(-1);
      const shown = (v: number | string | undefined) =>
        v === undefined ? '—' : typeof v === 'number' ? number(v) : JSON.stringify(v);
      let detail: string;
      if (s.kind === 'number') {
        const numbers = values.filter((v): v is number => typeof v === 'number');
        detail = numbers.length
          ? `min ${number(Math.min(...numbers))}  max ${number(Math.max(...numbers))}`
          : 'no values';
      } else {
        const changes = values.filter((v, i) => i > 0 && v !== values[i - 1]).length;
        detail = `${new Set(values).size} distinct, ${changes} change${changes === 1 ? '' : 's'}`;
      }
      out.push(`  ${padEnd(key, keyWidth)}  last ${shown(last)}  ${detail}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** A number as a person reads it: whole numbers as they are, others to three decimals at most. */
export function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
}
