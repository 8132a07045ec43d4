import { z } from 'zod';
import {
  baseData,
  firstLine,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../app/node-sdk/common.ts';
import { defineNode, type PortSpec } from '../../app/node-sdk/define.ts';
import { analyticsReports } from '../../app/node-sdk/reported.ts';

/**
 * Our wording of the matrix's request (ITCMA-S, §4.2: a model ranks the agents by their goals
 * and the topics of the areas). `agents` lists each agent's id, goal, place and resources.
 */
export const DEFAULT_PROMPT = `You weigh the standing of the members of a small community after each turn.

Members (id, goal, where they are, resources):
{% for a in agents %}- {{ a.id }}: goal "{{ a.goal }}"; in {{ a.place }}; resources {{ a.resources }}
{% endfor %}
The mood of each place (from -1, hostile, to 1, warm):
{{ topics }}

What happened this turn:
{{ events }}

Rank every member from the most to the least esteemed now, by how their actions serve their
goals and the mood where they are. Answer with JSON only: {"ranking": ["id", …]} naming each
member once.`;

export const matrixData = z.strictObject({
  ...baseData,
  /** A model profile name from the document's `models`. */
  model: z.string().min(1).meta({ editor: 'model-profile' }),
  /** Off: no model is asked and holdings stay as they are (an ablation without the matrix). */
  enabled: z.boolean().default(true),
  prompt: z
    .string()
    .min(1)
    .default(DEFAULT_PROMPT)
    .meta({ editor: 'code', language: 'liquid', lines: 10 }),
  slots: slotsSchema,
  /** What the top-ranked agent gains (Eq. 19's s_max; the paper gives no value). */
  sMax: z.number().min(0).max(1000).default(3),
  /** What the last agent of the upper half gains (Eq. 19's s_min). */
  sMin: z.number().min(0).max(1000).default(1),
  /**
   * `add`: each step's allocation is added to what an agent holds (the paper's figures show
   * totals rising and falling over the run); `replace`: an agent holds this step's allocation.
   */
  update: z.enum(['add', 'replace']).default('add'),
  /** What every agent holds before the first allocation (ITCMA-S: 1). */
  initial: z.number().min(-1000).max(1000).default(1),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
});
export type MatrixData = z.infer<typeof matrixData>;

/** Names the matrix's template gets from its own inputs. */
const OWN = ['agents', 'resources'];

/**
 * The matrix: a model ranks the agents, and a declarative rule (ITCMA-S Eq. 19) turns the
 * ranking into resources: the upper half gain, the lower half lose.
 */
export const spec = defineNode({
  type: 'matrix',
  title: 'Matrix (rank → resources)',
  group: 'Decisions',
  description:
    'A model ranks the agents; Eq. 19 of ITCMA-S turns the ranking into resources (upper half gain s_max…s_min, lower half lose).',
  data: matrixData,
  reports: analyticsReports,
  ports(data) {
    const inputs: PortSpec[] = [
      {
        name: 'agents',
        modality: 'json',
        required: true,
        description: 'the agents: ids, or records with id, goal and place',
      },
      {
        name: 'resources',
        modality: 'json',
        description: "what each agent holds now, by id (the previous step's `resources`)",
      },
      ...slotPorts([data.prompt], data, OWN),
    ];
    return {
      inputs,
      outputs: [
        { name: 'ranking', modality: 'list<text>', description: 'agent ids, most esteemed first' },
        { name: 'resources', modality: 'json', description: 'what each agent holds now, by id' },
        { name: 'allocation', modality: 'json', description: "this step's change, by id" },
      ],
    };
  },
  models: (data) => [data.model],
  check: (data) => [
    ...templateProblems({ prompt: data.prompt, model: data.model }),
    ...(data.sMin > data.sMax
      ? [{ path: ['sMin'], message: `s_min (${data.sMin}) is above s_max (${data.sMax})` }]
      : []),
  ],
  callsPerRun: (data) => (data.enabled ? 1 : 0),
  // An id and a number per agent, whatever the model wrote.
  outputTokens: (ctx) => Math.ceil(ctx.portTokens(ctx.node, 'agents') / 3) + 20,
  summary: (data) =>
    [
      data.model,
      data.enabled ? undefined : 'off',
      `s ${data.sMin}…${data.sMax} · ${data.update}`,
      firstLine(data.prompt, 30),
    ]
      .filter(Boolean)
      .join(' · '),
  initialData: ({ profile }) => ({ model: profile }),
});
