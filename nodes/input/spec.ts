import { z } from 'zod';
import { baseData, modalitySchema } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/** A value given when the run starts: `society run --input NAME=VALUE` or the editor's form. */
export const spec = defineNode({
  type: 'input',
  title: 'Input',
  group: 'Flow',
  description: 'A value supplied when the run starts, such as a question or an image.',
  data: z.strictObject({
    ...baseData,
    /** The name used on the command line (`--input question=...`). */
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*$/),
    modality: modalitySchema.default('text').meta({ editor: 'modality' }),
    description: z.string().optional().meta({ editor: 'multiline', lines: 3 }),
    /** Used when no value is given; without one the input is required. */
    default: z.unknown().optional(),
  }),
  ports: (data) => ({ inputs: [], outputs: [{ name: 'value', modality: data.modality }] }),
  runInput: (data) => ({
    name: data.name,
    modality: data.modality,
    ...(data.default === undefined ? {} : { default: data.default }),
    ...(data.description === undefined ? {} : { description: data.description }),
  }),
  outputTokens: (ctx) =>
    ctx.given(ctx.data.name, ctx.data.default, ctx.data.modality.includes('image')),

  summary: (data) => `${data.name} (${data.modality})`,
  initialData: ({ id }) => ({ name: id }),
});
