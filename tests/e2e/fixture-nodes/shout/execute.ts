import type { NodeExecutor } from '../../../../app/node-sdk/define.ts';
import type { ShoutData } from './spec.ts';

/** Renders the template with the node's inputs and says it louder. */
export const execute: NodeExecutor<ShoutData> = async (ctx) => {
  const text = await ctx.renderTemplate(
    ctx.data.template,
    { ...ctx.bindings, ...ctx.inputs },
    'template',
  );
  return { text: `${text.toUpperCase()}${'!'.repeat(ctx.data.marks)}` };
};
