import { z } from 'zod';
import { urlProblem } from '../../app/environments/external/url.ts';
import { stepReportSchema } from '../../app/environments/step-report.ts';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

export const simulatorData = z.strictObject({
  ...baseData,
  /**
   * Where the simulator listens: `http(s)://…` posts to `<url>/reset` and `<url>/step`,
   * `ws(s)://…` speaks over a WebSocket. Its origin is contacted only once the user allows it
   * (`society hosts --allow`, Settings → Allowed hosts), this machine's ports included.
   */
  url: z
    .string()
    .min(1)
    .default('http://127.0.0.1:5123')
    .meta({ placeholder: 'http://127.0.0.1:5123 or ws://127.0.0.1:5123' }),
  /** Sent with reset: the simulator draws the episode's random choices from it. */
  seed: z.union([z.string(), z.number()]).default(0),
  /** The episode ends after this many steps, whatever the simulator says. */
  maxSteps: z.number().int().min(1).max(10_000).default(100),
  /** How long one request may wait for its answer. */
  timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  /** Sent with reset as is: settings the simulator knows (a map, a level, a scene). */
  options: z.record(z.string(), z.unknown()).default({}),
});
export type SimulatorData = z.infer<typeof simulatorData>;

/**
 * An outside simulator driven over the reset/step protocol (docs/simulator-protocol.md). In a
 * loop, the first round resets and every round plays its `action`; the episode travels from
 * round to round through the node's own `episode` output, wired back to its `episode` input
 * over an edge marked previousRound.
 */
export const spec = defineNode({
  type: 'simulator',
  title: 'Simulator',
  group: 'Structure',
  description:
    'An outside simulator (Habitat-style, Minecraft-style) over HTTP or WebSocket: resets in the first round, plays one action a round.',
  data: simulatorData,
  check: (data) => {
    const problem = urlProblem(data.url);
    return problem ? [{ path: ['url'], message: problem }] : [];
  },
  origins: (data) => [data.url],
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
      { name: 'observation', modality: 'text', description: 'what the world shows now' },
      { name: 'actions', modality: 'list<text>', description: 'the actions it offers now' },
      { name: 'reward', modality: 'number', description: "the last step's reward (0 at reset)" },
      { name: 'done', modality: 'boolean', description: 'true once the episode is over' },
      { name: 'state', modality: 'json', description: "the simulator's state, as it sent it" },
      {
        name: 'episode',
        modality: 'json',
        description: 'session, step and last answer: wire it back to the episode input',
      },
    ],
  }),
  callsPerRun: () => 0,
  // Each step of the episode, shown like a dispatcher's (the Episodes tab, run-view.tsx).
  reports: { step: stepReportSchema },
  // Each step is also a message (`t=3: goto_agent0_storage0 …`): the terminal says it once.
  reportLine: () => null,

  summary: (data) => `${data.url} · seed ${data.seed} · ≤${data.maxSteps} steps`,
});
