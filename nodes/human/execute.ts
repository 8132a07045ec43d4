import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { HumanData } from './spec.ts';

export const execute: NodeExecutor<HumanData> = async (ctx) => {
  const prompt = await ctx.renderTemplate(
    ctx.data.prompt,
    { ...ctx.bindings, ...ctx.inputs, loop: ctx.loop },
    'prompt',
  );
  const answer = await ctx.askHuman({ name: ctx.data.name, prompt });
  await ctx.message(answer);
  return { text: answer };
};
