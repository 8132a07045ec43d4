import { z } from 'zod';
import { baseData, modalitySchema, nameSchema } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';
import { exampleProblem } from '../../app/node-sdk/example.ts';

/** A value given when the run starts: `society run --input NAME=VALUE` or the editor's form. */
export const spec = defineNode({
  type: 'input',
  title: 'Input',
  group: 'Flow',
  description: 'A value supplied when the run starts, such as a question or an image.',
  data: z.strictObject({
    ...baseData,
    /** The name used on the command line (`--input question=...`). */
    name: nameSchema,
    modality: modalitySchema.default('text').meta({ editor: 'modality' }),
    description: z.string().optional().meta({ editor: 'multiline', lines: 3 }),
    /** Used when no value is given; without one the input is required. */
    default: z.unknown().optional(),
    /**
     * A value to try the society with (a template's: what its cassette was recorded with).
     * Text, a number, a boolean or JSON as the input takes it; a file embedded as a `data:`
     * URL, never a path (a shared document must not read the reader's files). Shown and kept
     * in the Inputs panel rather than the inspector, where a picture's base64 would be noise.
     */
    example: z.unknown().optional().meta({ editor: 'hidden' }),
  }),
  ports: (data) => ({ inputs: [], outputs: [{ name: 'value', modality: data.modality }] }),
  check: (data) => {
    if (data.example === undefined) return [];
    const problem = exampleProblem(data.modality, data.example);
    return problem ? [{ path: ['example'], message: problem }] : [];
  },
  runInput: (data) => ({
    name: data.name,
    modality: data.modality,
    ...(data.default === undefined ? {} : { default: data.default }),
    ...(data.description === undefined ? {} : { description: data.description }),
  }),
  makeRunInput: (port) => ({
    name: port.name,
    modality: port.modality,
    // An optional port stays optional: a call that leaves it out gives it nothing.
    ...(port.required ? {} : { default: null }),
    ...(port.description ? { description: port.description } : {}),
  }),
  exampleInput: (data) =>
    data.example === undefined
      ? undefined
      : { name: data.name, modality: data.modality, value: data.example },
  outputTokens: (ctx) =>
    ctx.given(ctx.data.name, ctx.data.default, ctx.data.modality.includes('image')),

  summary: (data) => `${data.name} (${data.modality})`,
  initialData: ({ id }) => ({ name: id }),
});
