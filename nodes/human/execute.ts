import type { NodeExecutor } from '../../app/nodes/define.ts';
import { renderTemplate } from '../../app/nodes/template.ts';
import type { HumanData } from './spec.ts';

export const execute: NodeExecutor<HumanData> = async (ctx) => {
  const prompt = renderTemplate(ctx.data.prompt, {
    ...ctx.bindings,
    ...ctx.inputs,
    loop: ctx.loop,
  });
  const answer = await ctx.askHuman({ name: ctx.data.name, prompt });
  await ctx.message(answer);
  return { text: answer };
};
