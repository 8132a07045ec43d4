import { z } from 'zod';
import {
  baseData,
  firstLine,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../app/node-sdk/common.ts';
import { defineNode, type PortSpec } from '../../app/node-sdk/define.ts';
import { filterCalls } from './estimate.ts';

/**
 * Our wording of ITCMA-S's Elim request (Zhang et al. 2024, §3.4, Eq. 16): score every action
 * for the goal, 1 to 5. `actions` is the list being scored; in `each` mode `action` is the one.
 */
export const DEFAULT_PROMPT = `Your goal: {{ goal }}

Actions you could take now:
{{ actions | numbered }}

How much does each action help with the goal? Score each from 1 (not at all) to 5 (directly).
Answer with JSON only: {"scores": [one whole number per action, in the order listed]}.`;

export const DEFAULT_PROMPT_EACH = `Your goal: {{ goal }}
Actions you could take now:
{{ actions | numbered }}

How much does this action help with the goal: "{{ action }}"? Answer with one whole number
from 1 (not at all) to 5 (directly).`;

export const filterData = z.strictObject({
  ...baseData,
  /** A model profile name from the document's `models`. */
  model: z.string().min(1).meta({ editor: 'model-profile' }),
  /** Off: every action stays and no model is asked (an ablation without the filter). */
  enabled: z.boolean().default(true),
  /**
   * `batched`: one call scores every action; `each`: one call per action (Eq. 16 as written:
   * μ = Elim(Des, G, AS, a_i) for every a_i).
   */
  mode: z.enum(['batched', 'each']).default('batched'),
  /**
   * The request; each root variable is an input, except `actions` and `action` (its own).
   * Absent: our wording of Elim for the mode (`DEFAULT_PROMPT`, `DEFAULT_PROMPT_EACH`).
   */
  prompt: z.string().min(1).optional().meta({ editor: 'code', language: 'liquid', lines: 8 }),
  slots: slotsSchema,
  /** Actions scored under this are removed (the paper gives no value). */
  threshold: z.number().min(1).max(5).default(3),
  /** At least this many actions stay (the best scored), so an agent is never left with none. */
  keepAtLeast: z.number().int().min(0).max(100).default(1),
  /** Actions past this many are not scored and not kept: a bound on a step's calls and prompt. */
  maxActions: z.number().int().min(1).max(200).default(40),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
});
export type FilterData = z.infer<typeof filterData>;

/** The names the filter gives its own template: not input ports. */
const OWN = ['actions', 'action'];

/**
 * An action filter: a model scores each candidate action 1–5 for a goal, and the actions under
 * the threshold are removed (ITCMA-S's Elim, after PET's Eliminate step).
 */
export const spec = defineNode({
  type: 'filter',
  title: 'Action filter',
  group: 'Decisions',
  description:
    'A model scores each candidate action 1–5 for a goal; those under the threshold are removed (ITCMA-S Elim).',
  data: filterData,
  ports(data) {
    const inputs: PortSpec[] = [
      {
        name: 'actions',
        modality: 'list<text>',
        required: true,
        description: 'the candidate actions',
      },
      ...slotPorts([promptOf(data)], data, OWN),
    ];
    return {
      inputs,
      outputs: [
        { name: 'kept', modality: 'list<text>', description: 'the actions that stay, in order' },
        { name: 'removed', modality: 'list<text>' },
        { name: 'scores', modality: 'json', description: '[{ action, score }] in order' },
      ],
    };
  },
  models: (data) => [data.model],
  check: (data) => templateProblems({ prompt: data.prompt, model: data.model }),
  callsPerRun: (data) => (!data.enabled ? 0 : data.mode === 'each' ? data.maxActions : 1),
  estimate: filterCalls,
  // What leaves is a part of what came in, at most `maxActions` short actions (the scores a
  // little more).
  outputTokens: (ctx, port) => {
    const actions = Math.min(ctx.portTokens(ctx.node, 'actions'), ctx.data.maxActions * 12);
    return port === 'scores' ? Math.ceil(actions * 1.5) : actions;
  },
  summary: (data) =>
    [
      data.model,
      data.enabled ? undefined : 'off',
      `${data.mode} · under ${data.threshold} removed`,
      firstLine(data.prompt, 30),
    ]
      .filter(Boolean)
      .join(' · '),
  initialData: ({ profile }) => ({ model: profile }),
});

/** The filter's request: its own, or our wording of Elim for its mode. */
export function promptOf(data: Pick<FilterData, 'prompt' | 'mode'>): string {
  return data.prompt ?? (data.mode === 'each' ? DEFAULT_PROMPT_EACH : DEFAULT_PROMPT);
}
