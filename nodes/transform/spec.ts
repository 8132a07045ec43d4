import { z } from 'zod';
import {
  baseData,
  firstLine,
  slotPorts,
  slotsSchema,
  templateProblems,
} from '../../app/node-sdk/common.ts';
import { defineNode } from '../../app/node-sdk/define.ts';
import type { Modality } from '../../app/schema/modality.ts';

const OUTPUT: Record<'text' | 'json' | 'number' | 'lines', Modality> = {
  text: 'text',
  json: 'json',
  number: 'number',
  lines: 'list<text>',
};

export const transformData = z.strictObject({
  ...baseData,
  /** A Liquid template; each root variable is an input. Rendered, never evaluated as code. */
  template: z.string().min(1).meta({ editor: 'code', language: 'liquid', lines: 6 }),
  slots: slotsSchema,
  /** How the rendered text is read: as is, as JSON, as a number, or one list item per line. */
  output: z.enum(['text', 'json', 'number', 'lines']).default('text'),
});
export type TransformData = z.infer<typeof transformData>;

/** Reshapes values with a declarative template: joins, formats, extracts, builds JSON. */
export const spec = defineNode({
  type: 'transform',
  title: 'Transform',
  group: 'Data',
  description:
    'Reshapes values with a template (Liquid syntax, no code): format, join, build JSON.',
  data: transformData,
  ports: (data) => ({
    inputs: slotPorts([data.template], data),
    outputs: [{ name: 'value', modality: OUTPUT[data.output] }],
  }),
  // The single-call baseline reasons first and ends with its answer: that last line is scored.
  baseline: {
    lastLine: () => ({
      data: {
        label: 'Final line',
        template: '{{ text | strip | split: "\n" | last | strip }}',
      },
      input: 'text',
      output: 'value',
    }),
  },
  check: (data) => templateProblems({ template: data.template }),
  outputTokens(ctx) {
    const template = ctx.data.template;
    const vars = ctx.copies(ctx.node)[0] ?? {};
    let tokens = ctx.templateTokens(ctx.node, template, vars);
    if (ctx.loop && ctx.readsTranscript(template)) {
      tokens += ctx.transcriptTokens(ctx.loop, ctx.node, ctx.at);
    }
    return tokens;
  },

  summary: (data) => firstLine(data.template),
  initialData: () => ({ template: '{{ value }}' }),
});
