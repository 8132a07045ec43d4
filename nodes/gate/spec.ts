import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

export const gateData = z.strictObject({
  ...baseData,
  /** Off: everything passes and nothing is drawn (an ablation without the gate). */
  enabled: z.boolean().default(true),
  /**
   * How the chance of passing is found:
   * - `resources`: p = 0.5 + sigmoid(S) / 2, S being the resources of `key` (ITCMA-S, Eq. 18:
   *   an agent's action is carried out with a chance that grows with its resources);
   * - `fixed`: p is `probability`.
   */
  chance: z.enum(['resources', 'fixed']).default('resources'),
  /** The chance of passing when `chance` is `fixed`. */
  probability: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .meta({ showWhen: { field: 'chance', is: 'fixed' } }),
  /**
   * Whose resources decide, when `resources` arrives as a table by name (`{"AY": 3, …}`): a
   * template, so each replica reads its own (`{{ agent }}`).
   */
  key: z.string().max(200).default('').meta({ editor: 'code', language: 'liquid', lines: 1 }),
  /** S for a key the table does not hold yet (ITCMA-S: every agent starts with 1). */
  initial: z
    .number()
    .min(-1000)
    .max(1000)
    .default(1)
    .meta({ showWhen: { field: 'chance', is: 'resources' } }),
});
export type GateData = z.infer<typeof gateData>;

/**
 * Lets a value through with a probability, drawn from the run's seeded random source: the same
 * seed draws the same, and the draw is kept in the node's outputs, so replay and resume after a
 * crash give the same outcome. ITCMA-S's resource-gated execution is its `resources` mode.
 */
export const spec = defineNode({
  type: 'gate',
  title: 'Random gate',
  group: 'Decisions',
  description:
    'Passes a value on with a probability drawn from the seeded random source: fixed, or 0.5 + sigmoid(resources)/2 as in ITCMA-S.',
  data: gateData,
  ports: (data) => ({
    inputs: [
      { name: 'value', modality: 'any', required: true, description: 'what may pass' },
      ...(data.chance === 'resources'
        ? [
            {
              name: 'resources',
              modality: 'any' as const,
              description: 'S: a number, or a table of numbers by name (read at `key`)',
            },
          ]
        : []),
    ],
    outputs: [
      { name: 'passed', modality: 'any', description: 'the value if it passed, else null' },
      { name: 'executed', modality: 'boolean' },
      {
        name: 'outcome',
        modality: 'json',
        description: '{ key, value, executed, p, draw, resources }',
      },
    ],
  }),
  callsPerRun: () => 0,
  // A simulated answer that flows through the gate takes the shape its destination asks for.
  passesShape: (_data, port) => port === 'value',
  summary: (data) =>
    !data.enabled
      ? 'off: everything passes'
      : data.chance === 'fixed'
        ? `p = ${data.probability}`
        : `p = 0.5 + σ(S)/2${data.key ? ` · ${data.key}` : ''}`,
});
