import { z } from 'zod';
import { baseData, modalitySchema, templateProblems } from '../../app/node-sdk/common.ts';
import { type DataProblem, defineNode } from '../../app/node-sdk/define.ts';
import { ruleProblems } from '../../app/node-sdk/rules.ts';
import { identifier } from '../../app/schema/document.ts';

/** The output every router has: taken when no rule matched (or, if asked, the model was unclear). */
export const ELSE = 'else';

/** What a model is asked in `model` mode, unless the data words it otherwise. */
export const DEFAULT_PROMPT =
  'Which of these labels fits the input best? Answer with the label only: ' +
  '{{ labels | join: ", " }}.\n\nInput:\n{{ value }}';

export const routerData = z.strictObject({
  ...baseData,
  /** The branches: each label is an output port that gets the input when it is chosen. */
  outputs: z.array(identifier).min(1).max(32).default(['yes']),
  /** `rules`: the first rule whose condition holds; `model`: a model picks a label. */
  mode: z.enum(['rules', 'model']).default('rules'),
  /**
   * Other values of the run the choice reads, by name: each is an input port of the given
   * modality, and its value is a variable of the rules and of the prompt (`{ "var": "tally" }`,
   * `{{ tally }}`). What is routed is still `value` alone.
   */
  reads: z.record(identifier, modalitySchema).default({}),
  /**
   * In `rules` mode, in order: the first whose `when` (JsonLogic over `{ value, …reads,
   * …bindings }`) is truthy chooses its `output`; none does: `else`.
   */
  rules: z
    .array(z.strictObject({ output: z.string(), when: z.unknown() }))
    .max(64)
    .default([])
    .meta({ showWhen: { field: 'mode', is: 'rules' } }),
  /** In `model` mode: a profile name from the document's `models`. */
  model: z
    .string()
    .optional()
    .meta({ editor: 'model-profile', showWhen: { field: 'mode', is: 'model' } }),
  /** In `model` mode: the question, with `{{ value }}` and `{{ labels }}`. */
  prompt: z
    .string()
    .default(DEFAULT_PROMPT)
    .meta({
      editor: 'code',
      language: 'liquid',
      lines: 4,
      showWhen: { field: 'mode', is: 'model' },
    }),
  /** In `model` mode, an answer that names no label: fail the node, or take `else`. */
  unclear: z
    .enum(['fail', 'else'])
    .default('fail')
    .meta({ showWhen: { field: 'mode', is: 'model' } }),
  /**
   * How often each branch is expected to be taken (any scale; `else` may be named), for the
   * likely estimate. Absent: every branch alike.
   */
  odds: z.record(z.string(), z.number().min(0).max(1e6)).optional(),
  maxTokens: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'model' } }),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .meta({ showWhen: { field: 'mode', is: 'model' } }),
});
export type RouterData = z.infer<typeof routerData>;

/** Names the rules and the prompt already give a meaning to. */
const RESERVED = ['value', 'labels'];

/** Every branch in port order: the labels, then `else`. */
export function branches(data: RouterData): string[] {
  return [...data.outputs, ELSE];
}

/**
 * Sends its input down one of N named branches, chosen by rules or by a model; the other
 * branches are not taken, so the nodes that depend only on them are skipped.
 */
export const spec = defineNode({
  type: 'router',
  title: 'Router',
  group: 'Decisions',
  description:
    'Sends its input down one named branch, chosen by JsonLogic rules (first match wins, else) or by a model; the nodes on the other branches are skipped.',
  data: routerData,
  ports: (data) => ({
    inputs: [
      { name: 'value', modality: 'any', required: true, description: 'what is routed' },
      ...Object.entries(data.reads).map(([name, modality]) => ({
        name,
        modality,
        required: true,
        description: 'a value the choice reads',
      })),
    ],
    outputs: branches(data).map((name) => ({
      name,
      modality: 'any' as const,
      description:
        name === ELSE
          ? 'the input, when no branch was chosen'
          : `the input, when "${name}" is chosen`,
    })),
  }),
  models: (data) => (data.mode === 'model' && data.model ? [data.model] : []),
  check: (data) => {
    const problems: DataProblem[] = [];
    const labels = new Set<string>();
    for (const [i, label] of data.outputs.entries()) {
      if (label === ELSE)
        problems.push({
          path: ['outputs', i],
          message: '"else" is always there: name the other branches',
        });
      else if (labels.has(label))
        problems.push({ path: ['outputs', i], message: `"${label}" is listed twice` });
      labels.add(label);
    }
    for (const name of Object.keys(data.reads)) {
      if (RESERVED.includes(name))
        problems.push({
          path: ['reads', name],
          message: `"${name}" is the router's own name for ${name === 'value' ? 'what it routes' : 'its branches'}: pick another`,
        });
    }
    for (const [i, rule] of data.rules.entries()) {
      if (rule.output !== ELSE && !labels.has(rule.output)) {
        problems.push({
          path: ['rules', i, 'output'],
          message: `"${rule.output}" is not one of the outputs (${branches(data).join(', ')})`,
        });
      }
      for (const p of ruleProblems(rule.when))
        problems.push({ path: ['rules', i, 'when', ...p.path], message: p.message });
    }
    if (data.mode === 'model') {
      if (!data.model)
        problems.push({ path: ['model'], message: 'model mode needs a model profile' });
      problems.push(...templateProblems({ prompt: data.prompt }));
    }
    return problems;
  },
  callsPerRun: (data) => (data.mode === 'model' ? 1 : 0),
  estimate: (ctx) =>
    ctx.data.mode === 'model'
      ? ctx.executions.map(() => ({
          promptTokens: ctx.tokens(
            ctx.render(ctx.data.prompt, { ...ctx.vars, labels: ctx.data.outputs }),
          ),
        }))
      : [],
  // Each branch hands the input on: what a branch leads to asks its shape of what feeds the router.
  passesShape: (_data, port) => port === 'value',
  branching: (data) => ({
    outputs: branches(data),
    ...(data.odds
      ? { odds: Object.fromEntries(branches(data).map((b) => [b, data.odds?.[b] ?? 0])) }
      : {}),
  }),
  summary: (data) =>
    `${data.mode === 'model' ? `${data.model ?? 'model'} picks` : `${data.rules.length} rules`}: ${branches(data).join(' · ')}`,
  initialData: () => ({
    outputs: ['yes'],
    rules: [{ output: 'yes', when: { '!!': [{ var: 'value' }] } }],
  }),
});
