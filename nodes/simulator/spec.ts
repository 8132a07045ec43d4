import { z } from 'zod';
import { urlProblem } from '../../app/environments/external/url.ts';
import {
  checkSettings,
  ENVIRONMENTS,
  environmentSettings,
  settingNames,
} from '../../app/environments/registry.ts';
import { stepReportSchema } from '../../app/environments/step-report.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import type { DataProblem } from '../../app/node-sdk/define.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/** The kinds that take a setting of this name, for the field's `showWhen`. */
const takenBy = (name: string) => ({
  field: 'kind',
  in: ENVIRONMENTS.filter((kind) => settingNames(kind).includes(name)),
});

/** The settings the node holds as fields of its own; the kind's others go in `settings`. */
const OWN = ['url', 'seed', 'maxSteps', 'timeoutMs', 'options'] as const;

export const simulatorData = z.strictObject({
  ...baseData,
  /**
   * The environment it drives (app/environments/registry.ts): `external` is a simulator outside
   * the product, the others are worlds inside it, played in this process.
   */
  kind: z.enum(ENVIRONMENTS as [string, ...string[]]).default('external'),
  /**
   * Where the simulator listens: `http(s)://…` posts to `<url>/reset` and `<url>/step`,
   * `ws(s)://…` speaks over a WebSocket. Its origin is contacted only once the user allows it
   * (`society hosts --allow`, Settings → Allowed hosts), this machine's ports included.
   */
  url: z
    .string()
    .min(1)
    .default('http://127.0.0.1:5123')
    .meta({
      placeholder: 'http://127.0.0.1:5123 or ws://127.0.0.1:5123',
      showWhen: takenBy('url'),
    }),
  /** Sent with reset: the simulator draws the episode's random choices from it. */
  seed: z.union([z.string(), z.number()]).default(0),
  /** The episode ends after this many steps, whatever the simulator says. */
  maxSteps: z.number().int().min(1).max(10_000).default(100),
  /** How long one request may wait for its answer. */
  timeoutMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .meta({ showWhen: takenBy('timeoutMs') }),
  /** Sent with reset as is: settings the simulator knows (a map, a level, a scene). */
  options: z
    .record(z.string(), z.unknown())
    .default({})
    .meta({ showWhen: takenBy('options') }),
  /**
   * The kind's other settings, as its schema names them: CuisineWorld's `level` and `agents`, a
   * text world's `world` (`irollan-valley`) and `turnOrder`.
   */
  settings: z
    .record(z.string(), z.unknown())
    .default({})
    .meta({
      showWhen: {
        field: 'kind',
        in: ENVIRONMENTS.filter((kind) =>
          settingNames(kind).some((name) => !(OWN as readonly string[]).includes(name)),
        ),
      },
    }),
});
export type SimulatorData = z.infer<typeof simulatorData>;

/**
 * The settings the episode opens with: the node's own fields the kind takes, and its
 * `settings` for the rest.
 */
export function episodeSettings(data: SimulatorData): Record<string, unknown> {
  const names = settingNames(data.kind);
  const own = OWN.filter((name) => names.includes(name)).map((name) => [name, data[name]]);
  return { ...Object.fromEntries(own), ...data.settings };
}

/** The settings problems, each on the field that holds the setting, naming the setting. */
function settingsProblems(data: SimulatorData): DataProblem[] {
  const ownField = Object.keys(data.settings).find((name) =>
    (OWN as readonly string[]).includes(name),
  );
  if (ownField) {
    return [
      { path: ['settings'], message: `${ownField} is a field of its own here, not a setting` },
    ];
  }
  const result = checkSettings(data.kind, episodeSettings(data));
  if (result.ok) return [];
  const { path, message } = result.problem;
  const [first] = path;
  const title = environmentSettings(data.kind).title;
  if (typeof first === 'string' && (OWN as readonly string[]).includes(first)) {
    return [{ path: [first], message: `${title}: ${message}` }];
  }
  const named = path.map(String).join('.');
  return [{ path: ['settings'], message: `${title}: ${named ? `${named}: ` : ''}${message}` }];
}

/** True when the kind reaches a URL of its own (a simulator outside the product). */
const reachesUrl = (data: SimulatorData) => settingNames(data.kind).includes('url');

/**
 * An environment driven step by step through the contract every environment meets
 * (app/environments/types.ts): an outside simulator over the reset/step protocol
 * (docs/simulator-protocol.md), CuisineWorld or a text world, by its `kind`. In a loop, the
 * first round starts the episode and every round plays its `action`; the episode travels from
 * round to round through the node's own `episode` output, wired back to its `episode` input
 * over an edge marked previousRound.
 */
export const spec = defineNode({
  type: 'simulator',
  title: 'Simulator',
  group: 'Structure',
  description:
    'Any environment, one action a round: an outside simulator (Habitat-style, Minecraft-style) over HTTP or WebSocket, CuisineWorld or a text world, by its kind.',
  data: simulatorData,
  check: (data) => {
    const problem = reachesUrl(data) ? urlProblem(data.url) : undefined;
    return problem ? [{ path: ['url'], message: problem }] : settingsProblems(data);
  },
  origins: (data) => (reachesUrl(data) ? [data.url] : []),
  ports: () => ({
    inputs: [
      {
        name: 'action',
        modality: 'text',
        description: 'the action to play this round; in round 1 optional (reset only without it)',
      },
      { name: 'agent', modality: 'text', description: 'who acts, for a world with several' },
      {
        name: 'episode',
        modality: 'json',
        description:
          "the episode so far: this node's own episode output, over a previousRound edge",
      },
    ],
    outputs: [
      {
        name: 'observation',
        modality: 'text',
        description: 'what the world shows now (to the agent, when one acts)',
      },
      { name: 'actions', modality: 'list<text>', description: 'the actions it offers now' },
      { name: 'reward', modality: 'number', description: "the last step's reward (0 at reset)" },
      { name: 'done', modality: 'boolean', description: 'true once the episode is over' },
      { name: 'state', modality: 'json', description: "the world's state, as it shows it" },
      {
        name: 'episode',
        modality: 'json',
        description: 'where the episode stands: wire it back to the episode input',
      },
    ],
  }),
  callsPerRun: () => 0,
  // Each step of the episode, shown like a dispatcher's (the Episodes tab, run-view.tsx).
  reports: { step: stepReportSchema },
  // Each step is also a message (`t=3: goto_agent0_storage0 …`): the terminal says it once.
  reportLine: () => null,

  summary: (data) =>
    `${reachesUrl(data) ? data.url : environmentSettings(data.kind).title} · seed ${data.seed} · ≤${data.maxSteps} steps`,
});
