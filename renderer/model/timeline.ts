/**
 * The timeline of a run: one row per node instance, a bar from when it started to when it
 * finished (or failed, or now), and the rounds of each loop marked along the top. Long idle
 * stretches (a person answering, a run held at a breakpoint, a fork's parent and the fork) are
 * drawn as a short break, so the bars of a run that waited an hour stay readable.
 */
import type { InstanceRun, RoundMark, RunView } from './run.ts';

export type TimelineState = InstanceRun['state'] | 'paused';

export interface TimelineBar {
  instance: string;
  node: string;
  round?: number;
  stage?: string;
  state: TimelineState;
  /** Position and width as fractions of the chart's width (0..1). */
  left: number;
  width: number;
  durationMs: number;
  calls: number;
  tokens: number;
  error?: string;
}

export interface TimelineRound {
  loop: string;
  round: number;
  left: number;
  width: number;
  label: string;
}

export interface TimelineLayout {
  bars: TimelineBar[];
  rounds: TimelineRound[];
  /** Where idle stretches were cut out, and how long they were. */
  breaks: Array<{ left: number; ms: number }>;
  /** Busy time from the first start to the last end, breaks excluded. */
  spanMs: number;
}

/** A gap longer than this (and than a tenth of the busy time) is cut to BREAK_SHARE. */
const LONG_GAP_MS = 2000;
const BREAK_SHARE = 0.02;
/** The narrowest bar, so a call answered in no time (simulated, replayed) still shows. */
export const MIN_BAR = 0.004;

type TimelineInput = Pick<RunView, 'instances' | 'rounds' | 'pauses' | 'paused' | 'endedAt'>;

/** Lays the run out on a time axis; `now` ends what is still going. */
export function timelineLayout(view: TimelineInput, now: number): TimelineLayout {
  const instances = Object.values(view.instances);
  const end = (t: number | undefined) => t ?? view.endedAt ?? now;
  // Time counts when a node ran and the run was not held: stretches spent held at a
  // breakpoint are idle time like any other, and long ones are cut short.
  const intervals = instances.map((i): [number, number] => [
    i.start,
    Math.max(i.start, end(i.end)),
  ]);
  if (intervals.length === 0) return { bars: [], rounds: [], breaks: [], spanMs: 0 };
  const held = view.pauses.map((p): [number, number] => [p.start, end(p.end)]);
  const scale = compressedScale(intervals, held);
  const heldAt = view.paused?.at;
  const heldInstance = heldAt?.kind === 'message' ? heldAt.instance : undefined;

  const bars = instances.map((i): TimelineBar => {
    const left = scale.at(i.start);
    const right = scale.at(end(i.end));
    return {
      instance: i.instance,
      node: i.node,
      ...(i.round !== undefined ? { round: i.round } : {}),
      ...(i.stage !== undefined ? { stage: i.stage } : {}),
      state: i.state === 'running' && i.instance === heldInstance ? 'paused' : i.state,
      left: Math.min(left, 1 - MIN_BAR),
      width: Math.max(MIN_BAR, right - left),
      durationMs: Math.max(0, end(i.end) - i.start),
      calls: i.calls,
      tokens: i.tokens,
      ...(i.error !== undefined ? { error: i.error } : {}),
    };
  });
  const rounds = view.rounds.map((r: RoundMark): TimelineRound => {
    const left = scale.at(r.start);
    return {
      loop: r.loop,
      round: r.round,
      left,
      width: Math.max(MIN_BAR, scale.at(end(r.end)) - left),
      label: `round ${r.round}${r.maxRounds ? `/${r.maxRounds}` : ''}`,
    };
  });
  return { bars, rounds, breaks: scale.breaks, spanMs: scale.busyMs };
}

/**
 * A piecewise-linear map from time to 0..1 over the union of `intervals` less the `holes`
 * (when the run was held), where each gap left by a hole, and each idle gap longer than
 * LONG_GAP_MS (and a tenth of the busy time), takes BREAK_SHARE of the width.
 */
export function compressedScale(
  intervals: ReadonlyArray<readonly [number, number]>,
  holes: ReadonlyArray<readonly [number, number]> = [],
) {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let merged: Array<[number, number]> = [];
  for (const [start, stop] of sorted) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], stop);
    else merged.push([start, stop]);
  }
  for (const [from, to] of holes) {
    if (!(to > from)) continue;
    merged = merged.flatMap(([a, b]): Array<[number, number]> => {
      if (to <= a || from >= b) return [[a, b]];
      return [
        ...(from > a ? [[a, from] as [number, number]] : []),
        ...(to < b ? [[to, b] as [number, number]] : []),
      ];
    });
  }
  // A run held from its very start (or only ever held) still needs a time axis.
  if (merged.length === 0) merged = [[sorted[0]![0], Math.max(...sorted.map((i) => i[1]))]];
  const first = merged[0]![0];
  const lastEnd = merged.at(-1)![1];
  const busyMs = merged.reduce((n, [a, b]) => n + (b - a), 0);
  const gaps: Array<{ from: number; to: number }> = [];
  for (let k = 1; k < merged.length; k++) {
    const from = merged[k - 1]![1];
    const to = merged[k]![0];
    // Time the run was held is never drawn to scale: it says nothing about the run.
    const held = holes.some(([a, b]) => a < to && b > from);
    if (held || to - from > Math.max(LONG_GAP_MS, busyMs / 10)) gaps.push({ from, to });
  }
  // Each cut gap is drawn as BREAK_SHARE of the width: in "drawn milliseconds" that is a share
  // of what remains once the gaps are cut.
  const cutMs = gaps.reduce((n, g) => n + (g.to - g.from), 0);
  const keptMs = Math.max(1, lastEnd - first - cutMs);
  const shown = gaps.length ? (keptMs * BREAK_SHARE) / (1 - BREAK_SHARE * gaps.length) : 0;
  const total = keptMs + shown * gaps.length;
  /** Drawn milliseconds from the start to `t`. */
  const drawn = (t: number) => {
    let x = t - first;
    for (const g of gaps) {
      if (t >= g.to) x -= g.to - g.from - shown;
      else if (t > g.from) x -= (t - g.from) * (1 - shown / (g.to - g.from));
    }
    return x;
  };
  return {
    at: (t: number) => Math.min(1, Math.max(0, drawn(t) / total)),
    breaks: gaps.map((g) => ({ left: (drawn(g.from) + shown / 2) / total, ms: g.to - g.from })),
    busyMs,
  };
}

/** "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
