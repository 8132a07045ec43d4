import { formatTranscript, type NodeExecutor } from '../../app/node-sdk/define.ts';
import type { SummarizeData } from './spec.ts';

export const execute: NodeExecutor<SummarizeData> = async (ctx) => {
  const data = ctx.data;
  const connected = ctx.inputs.text as unknown[] | undefined;
  const record =
    connected && connected.length > 0
      ? connected.flat().map(display).join(data.separator)
      : formatTranscript(ctx.loop?.transcript ?? []);
  if (data.mode === 'concatenate') {
    await ctx.message(record);
    return { summary: record };
  }
  const instructions = await ctx.renderTemplate(
    data.instructions,
    { ...ctx.bindings, loop: ctx.loop },
    'instructions',
  );
  const result = await ctx.callModel({
    profile: data.model!,
    messages: [{ role: 'user', content: `${instructions}\n\nRecord:\n${record}` }],
    maxTokens: data.maxTokens,
    temperature: data.temperature,
  });
  const summary = result.text.trim();
  await ctx.message(summary);
  return { summary };
};

function display(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
