import { z } from 'zod';
import { BUILTIN_WORLDS } from '../../app/environments/textworld/builtin.ts';
import { loadWorld } from '../../app/environments/textworld/load.ts';
import { TURN_ORDERS } from '../../app/environments/textworld/state.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode } from '../../app/node-sdk/define.ts';
import { analyticsReports } from '../../app/node-sdk/reported.ts';
import { firstShowing } from './showing.ts';
import { simulatedAction } from './simulated.ts';

export const worldData = z.strictObject({
  ...baseData,
  /**
   * The world: a built-in one by name (`irollan-valley`) or a world written out here in the
   * world format (docs/textworld.md). A world arriving at the `spec` input is played instead.
   */
  world: z
    .union([z.string().min(1).max(100), z.record(z.string(), z.unknown())])
    .default('irollan-valley')
    .meta({ editor: 'code', language: 'json', lines: 3 }),
  /** The seed of the world's own draws (a shuffled turn order). */
  seed: z.union([z.string().max(200), z.number()]).default(0),
  /** How agents take turns within a step: the world's agent order, or shuffled each step. */
  turnOrder: z.enum(TURN_ORDERS).default('fixed'),
});
export type WorldData = z.infer<typeof worldData>;

/**
 * A text world played one step per round of its loop. Each time it runs it carries out the
 * actions the agents chose in the step before (in turn order), then shows every agent the world
 * as it now is: an observation, the actions it can take, and what happened to it. Its `state`
 * goes to its own `previous` input over a previous-round edge.
 */
export const spec = defineNode({
  type: 'world',
  title: 'Text world',
  group: 'Structure',
  description:
    "A text world (areas, furniture, items, agents) played one step per round: carries out the agents' actions in turn, then shows each agent what it sees and can do.",
  data: worldData,
  reports: analyticsReports,
  ports: () => ({
    inputs: [
      {
        name: 'previous',
        modality: 'json',
        description: "the world after the previous round (this node's `state`, a round back)",
      },
      {
        name: 'actions',
        modality: 'any',
        multiple: true,
        description:
          'the actions to carry out: gate outcomes ({ key, value, executed }), { agent, action }, or "AGENT: action"',
      },
      {
        name: 'moods',
        modality: 'json',
        description: "each agent's { P, A, D }, for the topic of every area",
      },
      { name: 'spec', modality: 'json', description: 'a world to play instead of `world`' },
    ],
    outputs: [
      {
        name: 'state',
        modality: 'json',
        description: 'the world now and who chatted with whom so far (plain JSON)',
      },
      {
        name: 'heatmap',
        modality: 'json',
        description: '{ agents, counts }: chats so far, rows initiators, columns receivers',
      },
      { name: 'observations', modality: 'json', description: '{ agent: what it sees, as text }' },
      { name: 'actionSpaces', modality: 'json', description: '{ agent: [actions it can take] }' },
      { name: 'agents', modality: 'json', description: '[{ id, name, goal, place }]' },
      { name: 'facts', modality: 'json', description: '{ agent: what the last step did to it }' },
      { name: 'events', modality: 'text', description: 'the last step, one line per turn' },
      { name: 'topics', modality: 'json', description: '{ area: mood of the people there }' },
      { name: 'step', modality: 'number', description: 'steps played so far' },
    ],
  }),
  callsPerRun: () => 0,
  sendsMessage: true,
  check(data) {
    const problems: DataProblem[] = [];
    if (typeof data.world === 'string') {
      if (!BUILTIN_WORLDS.includes(data.world)) {
        problems.push({
          path: ['world'],
          message: `no built-in world "${data.world}" (built in: ${BUILTIN_WORLDS.join(', ')}); or write the world out here`,
        });
      }
    } else {
      const loaded = loadWorld(data.world);
      if (!loaded.ok) {
        for (const problem of loaded.problems) {
          problems.push({ path: ['world', ...pathParts(problem.path)], message: problem.message });
        }
      }
    }
    return problems;
  },
  // What the world's tables hold, in tokens, for the worst-case estimate: the values are built
  // at run time, so they are sized from the world's agents and areas.
  // The world as it starts stands for every step: prompts that read it are rendered with it.
  sampleOutput: (data, port) => sampled(data)?.[port],
  outputTokens(ctx, port) {
    const sample = sampled(ctx.data)?.[port];
    if (sample !== undefined) {
      return ctx.tokens(typeof sample === 'string' ? sample : JSON.stringify(sample));
    }
    // A world given at the `spec` input, or one that does not load: a world the size of the
    // built-in one.
    const perAgent: Record<string, number> = {
      observations: 100,
      actionSpaces: 60,
      agents: 25,
      facts: 50,
      events: 15,
    };
    if (Object.hasOwn(perAgent, port)) return 6 * perAgent[port]!;
    if (port === 'topics') return 60;
    if (port === 'heatmap') return 100;
    if (port === 'step') return 2;
    return 4000;
  },
  // Simulated agents whose answers end here pick one of the actions listed in their prompt.
  inputShape: (_data, port) =>
    port === 'actions' ? { kind: 'custom', answer: simulatedAction } : undefined,
  summary: (data) =>
    `${typeof data.world === 'string' ? data.world : (data.world.name ?? 'own world')} · turns ${data.turnOrder}`,
});

/** The world's first showing, once per node's data (the estimate asks for it port by port). */
const showings = new WeakMap<WorldData, Record<string, unknown> | undefined>();
function sampled(data: WorldData): Record<string, unknown> | undefined {
  if (!showings.has(data)) showings.set(data, firstShowing(data));
  return showings.get(data);
}

/** `agents[2].at` → ['agents', 2, 'at']. */
function pathParts(path: string): PropertyKey[] {
  const parts: PropertyKey[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    parts.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  }
  return parts;
}
