import type { NodeExecutor } from '../../app/node-sdk/define.ts';
import type { HumanData } from './spec.ts';

export const execute: NodeExecutor<HumanData> = async (ctx) => {
  const prompt = await ctx.renderTemplate(
    ctx.data.prompt,
    { ...ctx.bindings, ...ctx.inputs, loop: ctx.loop },
    'prompt',
  );
  // Inside a loop the person is asked every round, each time under its own name (`scene@r2`),
  // so a recording keeps every round's answer; one given ahead as `scene` answers them all.
  const name = ctx.data.name;
  const at = ctx.loop ? ctx.instanceId.slice(ctx.instanceId.lastIndexOf('@') + 1) : '';
  const example = exampleFor(ctx.data.examples, ctx.loop?.round);
  const answer = await ctx.askHuman({
    ...(at ? { name: `${name}@${at}`, fallback: name } : { name }),
    prompt,
    ...(example === undefined ? {} : { example }),
  });
  await ctx.message(answer);
  return { text: answer };
};

/** The example for a round: round N takes item N, later rounds the last; outside a loop the first. */
function exampleFor(examples: string[], round: number | undefined): string | undefined {
  if (examples.length === 0) return undefined;
  return examples[Math.min(round ?? 1, examples.length) - 1];
}
