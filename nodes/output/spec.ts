import { z } from 'zod';
import { baseData, nameSchema } from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';

/** A result of the run, reported under its name (`outputs.answer` in `society run --json`). */
export const spec = defineNode({
  type: 'output',
  title: 'Output',
  group: 'Flow',
  description: 'A named result of the run.',
  data: z.strictObject({
    ...baseData,
    name: nameSchema,
  }),
  ports: () => ({ inputs: [{ name: 'value', modality: 'any', required: true }], outputs: [] }),
  runOutput: (data) => ({ name: data.name }),
  makeRunOutput: (name) => ({ name }),

  summary: (data) => data.name,
  initialData: ({ id }) => ({ name: id }),
});
