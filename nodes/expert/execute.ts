import { catalogueEntry } from '../../app/experts/catalogue.ts';
import { localModelFor } from '../../app/experts/providers.ts';
import type { LabelValue } from '../../app/experts/types.ts';
import type { NodeExecutor, NodeOutputs } from '../../app/node-sdk/define.ts';
import { isImageValue } from '../../app/schema/blob-refs.ts';
import type { ExpertData } from './spec.ts';

export const execute: NodeExecutor<ExpertData> = async (ctx) => {
  const data = ctx.data;
  const entry = catalogueEntry(data.module);
  // The compiler refuses unknown modules; this guards documents run without it.
  if (!entry) throw new Error(`unknown expert module "${data.module}"`);
  if (data.backend === 'vision-chat') return visionChat(ctx, entry.id);

  const inputs: Record<string, unknown> = {};
  for (const port of entry.inputs) {
    const value = ctx.inputs[port.name];
    if (value === undefined) {
      if (port.optional) continue;
      throw new Error(`${entry.title} needs its ${port.name} input`);
    }
    inputs[port.name] = value;
  }
  const parameters = { ...entry.defaultParameters, ...data.parameters };
  // Instruction editors take their instruction as the prompt input, not as a parameter.
  if (entry.task === 'image-to-image' && typeof parameters.prompt === 'string' && !inputs.prompt) {
    inputs.prompt = parameters.prompt;
    delete parameters.prompt;
  }
  const local = data.backend === 'local';
  const answer = await ctx.callExpert({
    backend: local ? 'local' : 'huggingface',
    provider: data.provider,
    task: entry.task,
    model: local ? localModelFor(entry.id)! : (data.model ?? entry.models.default),
    inputs: local ? { image: inputs.image } : inputs,
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
  });
  const outputs = outputsOf(
    entry.outputs.map((p) => p.name),
    answer.output,
    parameters,
  );
  if (typeof outputs.text === 'string') await ctx.message(outputs.text);
  return outputs;
};

/**
 * Spreads an answer over the module's output ports: labels feed both `labels` and `text` (the
 * best class, or every detected object above the threshold, comma-separated, as OpenAGI's
 * detector reports them).
 */
function outputsOf(
  ports: string[],
  output: unknown,
  parameters: Record<string, unknown>,
): NodeOutputs {
  if (ports.includes('labels') && Array.isArray(output)) {
    const labels = output as LabelValue[];
    const threshold = typeof parameters.threshold === 'number' ? parameters.threshold : undefined;
    const names =
      threshold === undefined
        ? labels.slice(0, 1).map((l) => l.label)
        : [...new Set(labels.filter((l) => l.score > threshold).map((l) => l.label))];
    return { labels, text: names.join(', ') };
  }
  return { [ports[0]!]: output };
}

/** VQA and captioning by a vision chat model: the picture and the question in one message. */
async function visionChat(
  ctx: Parameters<NodeExecutor<ExpertData>>[0],
  module: string,
): Promise<NodeOutputs> {
  const image = ctx.inputs.image;
  if (!isImageValue(image)) throw new Error('the vision chat backend needs an image input');
  const question =
    module === 'visual-question-answering'
      ? String(ctx.inputs.question ?? '')
      : ctx.data.instruction;
  const result = await ctx.callModel({
    profile: ctx.data.visionModel!,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: question },
          { type: 'image', url: ctx.imageUrl(image), mime: image.mime, sha256: image.$image },
        ],
      },
    ],
  });
  const text = result.text.trim();
  await ctx.message(text);
  return { text };
}
