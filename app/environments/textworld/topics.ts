/**
 * The topic of an area: the mood of the people in it as one number (ITCMA-S Eq. 17). The
 * paper's equation is garbled in print; it reads either as the mean of P·(A² + 1) or as the
 * mean of P·(A + 1)/2. We take the second: with P and A in [-1, 1] it stays in [-1, 1], the
 * range the paper gives (below 0 a sour atmosphere, above 0 a warm one), which the first
 * reading does not (P = 1, A = 1 gives 2). Pleasure sets the sign; arousal scales it from
 * nothing (A = -1, everyone asleep) to all of it (A = 1). Dominance plays no part.
 */
import type { WorldState } from './state.ts';

/** Pleasure, arousal and dominance, each in [-1, 1]. */
export interface Mood {
  P: number;
  A: number;
  D: number;
}

/** Anything with the agents' places: a `TextWorld`'s state, or the world itself. */
type Places =
  | Pick<WorldState, 'agents' | 'spec'>
  | { state(): Pick<WorldState, 'agents' | 'spec'> };

/**
 * The topic of every area, in world order: the mean of P·(A + 1)/2 over the agents in it that
 * have a mood (values outside [-1, 1] are clamped), or null when none of them is there.
 */
export function topics(
  world: Places,
  moods: Readonly<Record<string, Mood | undefined>>,
): Record<string, number | null> {
  const state = 'state' in world ? world.state() : world;
  const out: Record<string, number | null> = {};
  for (const area of state.spec.areas) {
    const here = state.spec.agents
      .filter((a) => state.agents[a.id]?.at === area.id)
      .map((a) => moods[a.id])
      .filter((m): m is Mood => m !== undefined);
    out[area.id] = topicOf(here);
  }
  return out;
}

/** The topic of a group of moods (null for nobody). */
export function topicOf(moods: readonly Mood[]): number | null {
  const usable = moods.filter((m) => Number.isFinite(m.P) && Number.isFinite(m.A));
  if (usable.length === 0) return null;
  let sum = 0;
  for (const m of usable) sum += (clamp(m.P) * (clamp(m.A) + 1)) / 2;
  return sum / usable.length;
}

function clamp(x: number): number {
  return Math.max(-1, Math.min(1, x));
}
