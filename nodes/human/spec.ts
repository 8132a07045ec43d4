import { z } from 'zod';
import {
  baseData,
  firstLine,
  nameSchema,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

export const humanData = z.strictObject({
  ...baseData,
  /** The answer's name: `society run --input NAME=VALUE` answers without a prompt. */
  name: nameSchema,
  /** What the person is asked; a template whose slots are inputs. */
  prompt: z.string().min(1).meta({ editor: 'code', language: 'liquid', lines: 6 }),
  slots: slotsSchema,
  /**
   * Answers to try the society with when no person is at hand (a script, a recording), and
   * the default offered to one who is: round N of a loop takes item N, later rounds the last.
   * Data, like an input's example: never read from a file.
   */
  examples: z.array(z.string().min(1).max(4_000)).max(100).default([]),
});
export type HumanData = z.infer<typeof humanData>;

/** A person in the society: the run waits for their answer. */
export const spec = defineNode({
  type: 'human',
  title: 'Human',
  group: 'People',
  description: 'Waits for a person to answer (in the terminal, the editor, or from --input).',
  data: humanData,
  ports: (data) => ({
    inputs: slotPorts([data.prompt], data),
    outputs: [{ name: 'text', modality: 'text' }],
  }),
  check: (data) => templateProblems({ prompt: data.prompt }),
  sendsMessage: true,
  outputTokens: (ctx) => ctx.given(ctx.data.name, undefined, false),

  // Its answer can be given before the run: `--input NAME=VALUE` or the Inputs panel.
  answers: (data) => [{ name: data.name, prompt: data.prompt }],

  summary: (data) => [data.name, firstLine(data.prompt)].filter(Boolean).join(' · '),
  initialData: ({ id }) => ({ name: id, prompt: 'Your answer to: {{ question }}' }),
});
