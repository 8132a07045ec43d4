import { type NodeExecutor, type NodeOutputs, notTaken } from '../../app/node-sdk/define.ts';
import { firstMatch, readLabel } from './route.ts';
import { branches, ELSE, type RouterData } from './spec.ts';

export const execute: NodeExecutor<RouterData> = async (ctx) => {
  const data = ctx.data;
  const value = ctx.inputs.value;
  // What the choice reads besides the value: the run's other values wired to `reads` ports.
  const read = Object.fromEntries(Object.keys(data.reads).map((n) => [n, ctx.inputs[n]]));
  let chosen: string;
  let why: string;
  if (data.mode === 'rules') {
    const index = await ctx.compute(
      firstMatch,
      { rules: data.rules, data: { ...ctx.bindings, ...read, value } },
      'its rules',
    );
    chosen = index === -1 ? ELSE : data.rules[index]!.output;
    why = index === -1 ? 'no rule matched' : `rule ${index + 1} chose "${chosen}"`;
  } else {
    const labels = data.outputs;
    const prompt = await ctx.renderTemplate(
      data.prompt,
      { ...ctx.bindings, ...read, value, labels },
      'prompt',
    );
    const result = await ctx.callModel({
      profile: data.model!,
      messages: [{ role: 'user', content: prompt }],
      ...(data.maxTokens ? { maxTokens: data.maxTokens } : {}),
      ...(data.temperature !== undefined ? { temperature: data.temperature } : {}),
      // A simulated model names one label, the one the prompt talks about most: a ballot for one.
      answerShape: { kind: 'ballot', candidates: labels, form: 'single' },
    });
    const label = readLabel(result.text, labels);
    if (label === undefined && data.unclear === 'fail') {
      throw new Error(
        `the model answered "${result.text.trim().slice(0, 80)}", not one of: ${labels.join(', ')}`,
      );
    }
    chosen = label ?? ELSE;
    why = label ? `the model chose "${label}"` : 'the model named no branch';
  }
  const outputs: NodeOutputs = {};
  for (const branch of branches(data)) outputs[branch] = branch === chosen ? value : notTaken(why);
  return outputs;
};
