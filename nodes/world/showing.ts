/**
 * What the text-world node gives each time it runs, built from the world as it stands: what
 * every agent sees and can do, who chatted with whom, and what the step did to each of them.
 */
import { builtinWorld } from '../../app/environments/textworld/builtin.ts';
import type { WorldState } from '../../app/environments/textworld/state.ts';
import { topics } from '../../app/environments/textworld/topics.ts';
import { TextWorld } from '../../app/environments/textworld/world.ts';
import type { WorldData } from './spec.ts';

/** What `facts` tells about each agent's last step (counts; 0 or 1 for yes or no). */
export const FACTS = [
  'acted',
  'executed',
  'held',
  'refused',
  'moved',
  'chatted',
  'spokenTo',
  'company',
  'novelty',
] as const;

/** Every fact 0 for every agent: nothing has happened to anyone yet. */
export function noFacts(agents: readonly string[]): Record<string, Record<string, number>> {
  return Object.fromEntries(agents.map((a) => [a, Object.fromEntries(FACTS.map((f) => [f, 0]))]));
}

/**
 * What the node gives after a step: the world as each agent now sees it (`state` is the world's
 * state now, taken once), and the step's news.
 */
export function showing(
  world: TextWorld,
  state: WorldState,
  step: {
    chats: Carried['chats'];
    notes: Record<string, string>;
    facts: Record<string, Record<string, number>>;
    events: string;
    topics: Record<string, number | null>;
  },
): Record<string, unknown> {
  const agents = world.agents();
  const { chats, notes } = step;
  return {
    state: { world: state, chats } satisfies Carried,
    heatmap: heatmapOf(agents, chats),
    observations: Object.fromEntries(
      agents.map((a) => [a, notes[a] ? `${world.observe(a)}\n${notes[a]}` : world.observe(a)]),
    ),
    actionSpaces: Object.fromEntries(agents.map((a) => [a, world.actionSpace(a)])),
    agents: state.spec.agents.map((a) => ({
      id: a.id,
      ...(a.name ? { name: a.name } : {}),
      goal: a.goal,
      place: world.whereIs(a.id),
    })),
    facts: step.facts,
    events: step.events,
    topics: step.topics,
    step: world.stepsPlayed(),
  };
}

/**
 * What the node gives the first time round, from its data alone: the world as it starts (for an
 * estimate to size the prompts that read it). Undefined when the world does not load.
 */
export function firstShowing(data: WorldData): Record<string, unknown> | undefined {
  try {
    const world = TextWorld.create(specOf(data.world), {
      seed: data.seed,
      turnOrder: data.turnOrder,
    });
    const state = world.state();
    return showing(world, state, {
      chats: {},
      notes: {},
      facts: noFacts(world.agents()),
      events: '',
      topics: topics(state, {}),
    });
  } catch {
    return undefined;
  }
}

/** What the node carries from round to round: the world, and who chatted with whom so far. */
export interface Carried {
  world: unknown;
  chats: Record<string, Record<string, number>>;
}

/** Who started how many chats with whom: rows are initiators, columns receivers. */
function heatmapOf(
  agents: readonly string[],
  chats: Carried['chats'],
): { agents: string[]; counts: number[][]; total: number } {
  const counts = agents.map((from) => agents.map((to) => chats[from]?.[to] ?? 0));
  return {
    agents: [...agents],
    counts,
    total: counts.flat().reduce((a, b) => a + b, 0),
  };
}

export function specOf(world: WorldData['world']): unknown {
  if (typeof world !== 'string') return world;
  const found = builtinWorld(world);
  if (!found) throw new Error(`no built-in world "${world}"`);
  return found;
}
