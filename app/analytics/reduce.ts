/**
 * A run's analytics, reduced from the `series`, `interaction` and `participants` reports its
 * nodes made (any node's, by kind: app/node-sdk/reported.ts): an initiator ×
 * receiver heat map of one kind of interaction, and every series by name. Pure and cheap, so
 * the CLI, the exports and the editor (which imports this file alone) fold the same way.
 *
 * Order is stable and independent of timing: agents and series keys are sorted by name, with
 * numbers in names compared as numbers (`agent2` before `agent10`); series by name; points by x.
 */
import { analyticsReportOf, type Interaction, type SeriesPoint } from '../node-sdk/reported.ts';

/** What the heat map counts when no kind is asked for, if the run has any. */
export const DEFAULT_KIND = 'chat';

export interface HeatMap {
  /** The kind of interaction counted. */
  kind: string;
  /** Everyone who took part in an interaction of any kind, sorted (see above). */
  agents: string[];
  /** `counts[i][j]`: how often `agents[i]` started one with `agents[j]`. */
  counts: number[][];
  /** Every interaction of this kind. */
  total: number;
}

export type SeriesValue = number | string | null;

export interface Series {
  name: string;
  /** What charts call it: the first label a point gave, else its name. */
  label: string;
  unit?: string;
  /** `category` when any value is a string (an area's topic): drawn as a table, not lines. */
  kind: 'number' | 'category';
  /** Every key any point gave, sorted (see above). */
  keys: string[];
  /** One per x, in order; points at the same x are merged, a later value for a key wins. */
  points: Array<{ x: number; values: Record<string, SeriesValue> }>;
}

export interface RunAnalytics {
  /** The kinds of interaction in the run, sorted. */
  kinds: string[];
  heatmap: HeatMap;
  series: Series[];
}

const collator = new Intl.Collator('en', { numeric: true });

/** Sorts names as people read them: `agent2` before `agent10`, then by code point on ties. */
export function byName(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The analytics of a run's events (any others are ignored). The heat map counts `kind`; by
 * default `chat` when the run has chats, else the first kind it has.
 */
export function runAnalytics(
  events: ReadonlyArray<{ type: string }>,
  options: { kind?: string } = {},
): RunAnalytics {
  const interactions: Interaction[] = [];
  const points: SeriesPoint[] = [];
  const named: string[] = [];
  for (const event of events) {
    const report = analyticsReportOf(event);
    if (report?.kind === 'interaction') interactions.push(report.data);
    else if (report?.kind === 'participants') named.push(...report.data);
    else if (report?.kind === 'series') points.push(report.data);
  }
  const kinds = [...new Set(interactions.map((i) => i.kind))].sort(byName);
  const kind =
    options.kind ?? (kinds.includes(DEFAULT_KIND) ? DEFAULT_KIND : (kinds[0] ?? DEFAULT_KIND));
  return { kinds, heatmap: heatMap(interactions, kind, named), series: seriesOf(points) };
}

/** Everyone named as a participant or in an interaction gets a row and a column. */
function heatMap(interactions: Interaction[], kind: string, named: string[]): HeatMap {
  const agents = [...new Set([...named, ...interactions.flatMap((i) => [i.from, i.to])])].sort(
    byName,
  );
  const index = new Map(agents.map((a, i) => [a, i]));
  const counts = agents.map(() => agents.map(() => 0));
  let total = 0;
  for (const i of interactions) {
    if (i.kind !== kind) continue;
    counts[index.get(i.from)!]![index.get(i.to)!]!++;
    total++;
  }
  return { kind, agents, counts, total };
}

function seriesOf(points: SeriesPoint[]): Series[] {
  const byNameOf = new Map<string, SeriesPoint[]>();
  for (const p of points) {
    const list = byNameOf.get(p.name);
    if (list) list.push(p);
    else byNameOf.set(p.name, [p]);
  }
  return [...byNameOf.entries()]
    .sort(([a], [b]) => byName(a, b))
    .map(([name, list]) => {
      const atX = new Map<number, Record<string, SeriesValue>>();
      const keys = new Set<string>();
      let category = false;
      for (const p of list) {
        const values = atX.get(p.x) ?? {};
        atX.set(p.x, Object.assign(values, p.values));
        for (const [key, value] of Object.entries(p.values)) {
          keys.add(key);
          if (typeof value === 'string') category = true;
        }
      }
      const label = list.find((p) => p.label)?.label ?? name;
      const unit = list.find((p) => p.unit)?.unit;
      return {
        name,
        label,
        ...(unit ? { unit } : {}),
        kind: category ? ('category' as const) : ('number' as const),
        keys: [...keys].sort(byName),
        points: [...atX.entries()].sort(([a], [b]) => a - b).map(([x, values]) => ({ x, values })),
      };
    });
}

/** The pair that interacted most (the first in agent order on a tie); undefined when none did. */
export function strongestPair(
  map: HeatMap,
): { from: string; to: string; count: number } | undefined {
  let best: { from: string; to: string; count: number } | undefined;
  map.counts.forEach((row, i) => {
    row.forEach((count, j) => {
      if (count > (best?.count ?? 0)) best = { from: map.agents[i]!, to: map.agents[j]!, count };
    });
  });
  return best;
}

/** Agents who neither started nor received an interaction of the map's kind. */
export function silentAgents(map: HeatMap): string[] {
  return map.agents.filter(
    (_, i) => sum(map.counts[i]!) === 0 && map.counts.every((row) => row[i] === 0),
  );
}

/** Agents who received interactions of the map's kind but never started one, with how many. */
export function listenersOnly(map: HeatMap): Array<{ agent: string; received: number }> {
  return map.agents.flatMap((agent, i) => {
    const received = sum(map.counts.map((row) => row[i]!));
    return sum(map.counts[i]!) === 0 && received > 0 ? [{ agent, received }] : [];
  });
}

/** The largest count in the map (0 when it is empty). */
export function maxCount(map: HeatMap): number {
  return Math.max(0, ...map.counts.flat());
}

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
