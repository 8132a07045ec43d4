/**
 * Where an execution sits in the loops around it, as instance ids say it: `@r3` in round 3 of a
 * loop, `@gather` in its gather stage, `@r2.3` in round 3 of a loop entered in round 2 of the
 * loop around it, `@r2.gather` in that inner loop's gather stage. A loop entered again starts
 * its rounds afresh, so only the rounds of every loop together tell two executions apart.
 */
import { ancestors, type PlannedNode, topInScope } from '../compiler/analyze.ts';

/** One loop's part of a position: the round it is in, or the stage that runs. */
export type LoopSegment = number | string;

/** `r2.3` for rounds 2 then 3, `r2.gather`, `gather.r1`: a round after a round is just its number. */
export function formatPosition(segments: readonly LoopSegment[]): string {
  return segments
    .map((s, i) =>
      typeof s === 'number' ? (typeof segments[i - 1] === 'number' ? `${s}` : `r${s}`) : s,
    )
    .join('.');
}

/**
 * The segments of the loops around `id` (outermost first) read from the plan and the loops'
 * current rounds, leaving out `innermost` when it is the closest loop (its caller knows its stage).
 */
export function outerSegments(
  nodes: ReadonlyMap<string, PlannedNode>,
  id: string,
  rounds: Readonly<Record<string, { round: number } | undefined>>,
  innermost?: string,
): LoopSegment[] {
  const map = nodes as Map<string, PlannedNode>;
  const loops = ancestors(map, id).filter((a) => map.get(a)?.container === 'loop');
  if (loops.length === 0) return [];
  if (innermost !== undefined && loops[0] === innermost) loops.shift();
  return loops.reverse().map((loop) => {
    const stage = map.get(topInScope(map, id, loop) ?? id)?.stage ?? 'round';
    return stage === 'round' ? (rounds[loop]?.round ?? 0) : stage;
  });
}

/**
 * A loop's own key: its id with its place in the loops around it (`inner@r2`), or its bare id
 * when it sits in no loop. Its transcript and round checkpoints are kept under this key, so a
 * loop entered again starts them afresh.
 */
export function loopKey(
  nodes: ReadonlyMap<string, PlannedNode>,
  instance: string,
  loop: string,
  rounds: Readonly<Record<string, { round: number } | undefined>>,
): string {
  const outer = outerSegments(nodes, loop, rounds);
  return outer.length === 0 ? instance : `${instance}@${formatPosition(outer)}`;
}
