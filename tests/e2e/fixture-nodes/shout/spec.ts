/**
 * A node type that exists only for the end-to-end tests: everything it has (a summary, starting
 * data, a code-editor field, a data migration, a card view, run-time behaviour) lives in this
 * folder, which is the point. It renders its template and shouts it, with no model call.
 */
import { z } from 'zod';
import {
  baseData,
  firstLine,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../../../app/node-sdk/common.ts';
import { defineNode } from '../../../../app/node-sdk/define.ts';

export const shoutData = z.strictObject({
  ...baseData,
  /** What it says: a Liquid template whose slots are inputs (version 1 called it `text`). */
  template: z.string().min(1).meta({ editor: 'code', language: 'liquid', lines: 4 }),
  slots: slotsSchema,
  /** Exclamation marks after it (version 1 had only `loud`: three marks, or one). */
  marks: z.number().int().min(0).max(10).default(1),
});
export type ShoutData = z.infer<typeof shoutData>;

export const spec = defineNode({
  type: 'shout',
  title: 'Shout',
  group: 'Data',
  description: 'Test fixture: renders its template in capitals, without a model.',
  data: shoutData,
  ports: (data) => ({
    inputs: slotPorts([data.template], data),
    outputs: [{ name: 'text', modality: 'text' }],
  }),
  check: (data) => templateProblems({ template: data.template }),
  callsPerRun: () => 0,

  // A shout holds no nodes; container hooks (rounds, stop conditions, graph checks) are the
  // chorus's, in ../chorus/.

  summary: (data) => `${firstLine(data.template)}${'!'.repeat(data.marks)}`,
  initialData: () => ({ template: 'hello world' }),
  version: 2,
  migrations: {
    1: ({ text, loud, ...rest }) => {
      if (typeof text !== 'string') throw new Error('"text" must be a string');
      return { ...rest, template: text, marks: loud === true ? 3 : 1 };
    },
  },
});
