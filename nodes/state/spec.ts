import { z } from 'zod';
import { baseData } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode } from '../../app/node-sdk/define.ts';
import { analyticsReports } from '../../app/node-sdk/reported.ts';
import { ruleProblems } from '../../app/node-sdk/rules.ts';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;

export const stateVariable = z.strictObject({
  /** The variable's name: its field in the state, and `prev.NAME` / `now.NAME` in rules. */
  name: z.string().regex(NAME, 'a name of letters, digits and _, not starting with a digit'),
  /** Its value before the first update. */
  initial: z.number().default(0),
  /**
   * How it changes each time the node runs: a JsonLogic rule (jsonlogic.com), e.g.
   * `{"-": [{"tanh": {"var": "facts.desire"}}, {"tanh": {"var": "facts.pain"}}]}`. It reads
   * `prev` (the key's values before this update), `now` (the variables above it, already
   * updated), `facts` (what arrived for the key), `key` and `step`. Absent: it keeps its value.
   */
  update: z.unknown().optional().meta({ editor: 'code', language: 'json', lines: 4 }),
  /** Bounds the value is kept within after each update. */
  min: z.number().optional(),
  max: z.number().optional(),
  /** Published as a time series (one line per key) for the run's charts. */
  chart: z.boolean().default(false),
  /** What the variable means, for people reading the document. */
  description: z.string().max(500).optional(),
});
export type StateVariable = z.infer<typeof stateVariable>;

export const stateData = z.strictObject({
  ...baseData,
  /** The variables every key holds, updated in this order. */
  variables: z.array(stateVariable).min(1).max(50),
  /** Keys that always have a state, besides those facts arrive for (agent ids). */
  keys: z.array(z.string().min(1).max(100)).max(1000).default([]),
});
export type StateData = z.infer<typeof stateData>;

/**
 * Numbers kept per key (per agent) from step to step and changed by declarative rules: ITCMA-S's
 * PAD emotion and driver are one such state. Its `state` output goes back to its `previous`
 * input over a previous-round edge; `facts` brings what happened to each key this step.
 */
export const spec = defineNode({
  type: 'state',
  title: 'State',
  group: 'Data',
  description:
    'Numbers kept per key (per agent) across rounds, changed by declarative rules (JsonLogic, no code): PAD emotion and driver.',
  data: stateData,
  reports: analyticsReports,
  ports: () => ({
    inputs: [
      {
        name: 'previous',
        modality: 'json',
        description: "the state before this update (this node's `state` in the previous round)",
      },
      {
        name: 'facts',
        modality: 'json',
        description: 'what happened to each key this step: { key: { fact: value } }',
      },
    ],
    outputs: [{ name: 'state', modality: 'json', description: '{ key: { variable: value } }' }],
  }),
  callsPerRun: () => 0,
  // A number per variable per key: the keys listed, or a handful when they arrive as facts.
  outputTokens: (ctx) => Math.max(ctx.data.keys.length, 6) * ctx.data.variables.length * 8 + 10,
  check(data) {
    const problems: DataProblem[] = [];
    const seen = new Set<string>();
    for (const [i, variable] of data.variables.entries()) {
      if (seen.has(variable.name)) {
        problems.push({
          path: ['variables', i, 'name'],
          message: `"${variable.name}" is named twice`,
        });
      }
      seen.add(variable.name);
      for (const problem of ruleProblems(variable.update)) {
        problems.push({
          path: ['variables', i, 'update', ...problem.path],
          message: problem.message,
        });
      }
      if (variable.min !== undefined && variable.max !== undefined && variable.min > variable.max) {
        problems.push({ path: ['variables', i, 'min'], message: 'min is above max' });
      }
    }
    return problems;
  },
  summary: (data) => data.variables.map((v) => v.name).join(', '),
  initialData: () => ({
    variables: [
      {
        name: 'count',
        initial: 0,
        update: { '+': [{ var: 'prev.count' }, 1] },
        chart: true,
      },
    ],
  }),
});
