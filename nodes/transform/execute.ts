import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { TransformData } from './spec.ts';

export const execute: NodeExecutor<TransformData> = async (ctx) => {
  const text = await ctx.renderTemplate(
    ctx.data.template,
    { ...ctx.bindings, ...ctx.inputs, loop: ctx.loop },
    'template',
  );
  return { value: readAs(text, ctx.data.output) };
};

export function readAs(text: string, output: TransformData['output']): unknown {
  switch (output) {
    case 'text':
      return text;
    case 'json':
      try {
        return JSON.parse(text);
      } catch (error) {
        throw new Error(
          `the template did not produce JSON (${(error as Error).message}): ${text.slice(0, 80)}`,
        );
      }
    case 'number': {
      const n = Number(text.trim());
      if (text.trim() === '' || Number.isNaN(n))
        throw new Error(`the template did not produce a number: "${text.trim().slice(0, 40)}"`);
      return n;
    }
    case 'lines':
      return text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
    default:
      return output satisfies never;
  }
}
