import { type CatalogueEntry, catalogueEntry } from '../../app/experts/catalogue.ts';
import { localModelFor } from '../../app/experts/providers.ts';
import { pngComment, STAND_IN_MARK } from '../../app/experts/render-views.ts';
import type { EntityValue, LabelValue } from '../../app/experts/types.ts';
import type { ExpertAnswer, NodeExecutor, NodeOutputs } from '../../app/node-sdk/define.ts';
import { isImageValue } from '../../app/schema/blob-refs.ts';
import { readDataUrl } from '../../app/schema/mime.ts';
import { simulatedPrefix } from '../../app/schema/simulated.ts';
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
  const parameters = {
    ...entry.defaultParameters,
    ...(await renderParameters(ctx, data.parameters ?? {})),
  };
  // Instruction editors take their instruction as the prompt input, not as a parameter.
  if (entry.task === 'image-to-image' && typeof parameters.prompt === 'string' && !inputs.prompt) {
    inputs.prompt = parameters.prompt;
    delete parameters.prompt;
  }
  const local = data.backend === 'local';
  const call = (extra: Record<string, unknown>) => {
    const merged = { ...parameters, ...extra };
    return ctx.callExpert({
      backend: local ? 'local' : 'huggingface',
      provider: data.provider,
      task: entry.task,
      model: local ? localModelFor(entry.id)! : (data.model ?? entry.models.default),
      // Image operations take the picture alone; the 3D operations take their own inputs.
      inputs: local && entry.task === 'image-to-image' ? { image: inputs.image } : inputs,
      ...(Object.keys(merged).length > 0 ? { parameters: merged } : {}),
    });
  };
  if (entry.each) return each(ctx, entry, parameters, call);

  const answer = await call({});
  const outputs = outputsOf(
    entry.outputs.map((p) => p.name),
    answer.output,
    parameters,
    answer.simulated,
  );
  if (entry.task === 'text-to-3d' && (local || answer.simulated)) {
    await ctx.message(
      `${simulatedPrefix(answer.simulated)}${STAND_IN_MARK} mesh for "${shorten(String(inputs.prompt), 80)}": no text-to-3D model ran (a simple solid in the prompt's colour; the file's header says so)`,
    );
  } else if (typeof outputs.text === 'string') await ctx.message(outputs.text);
  return outputs;
};

/**
 * The node's parameters with their texts rendered as templates over the copy's names, so the
 * copies of a replicated expert can differ (`"views": ["{{ view }}"]` renders one view each).
 */
async function renderParameters(
  ctx: Parameters<NodeExecutor<ExpertData>>[0],
  parameters: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const render = (value: unknown, field: string): Promise<unknown> | unknown => {
    if (typeof value === 'string' && value.includes('{{')) {
      return ctx.renderTemplate(value, ctx.bindings, field);
    }
    if (Array.isArray(value)) {
      return Promise.all(value.map((v, i) => render(v, `${field}[${i}]`)));
    }
    return value;
  };
  const entries = await Promise.all(
    Object.entries(parameters).map(async ([k, v]) => [k, await render(v, `parameters.${k}`)]),
  );
  return Object.fromEntries(entries);
}

/**
 * A module that runs once per item of a list parameter (the renderer, once per view): each call
 * gets one item under `each.as`, the list output gathers the answers in order, and a single
 * output of the same kind takes the first.
 */
async function each(
  ctx: Parameters<NodeExecutor<ExpertData>>[0],
  entry: CatalogueEntry,
  parameters: Record<string, unknown>,
  call: (extra: Record<string, unknown>) => Promise<ExpertAnswer>,
): Promise<NodeOutputs> {
  const { parameter, as } = entry.each!;
  const items = eachItems(parameters[parameter], parameter);
  const { [parameter]: _, ...rest } = parameters;
  const answers: ExpertAnswer[] = [];
  for (const item of items) answers.push(await call({ ...rest, [as]: item }));
  const values = answers.map((a) => a.output);
  const outputs: NodeOutputs = {};
  for (const port of entry.outputs) {
    outputs[port.name] = port.modality.startsWith('list<') ? values : values[0];
  }
  const simulated = answers.some((a) => a.simulated);
  const note = firstImageNote(ctx, values[0]);
  await ctx.message(
    `${simulatedPrefix(simulated)}${items.length} ${as}${items.length === 1 ? '' : 's'} (${items.join(', ')})${note ? `: ${note.replace(/^\[simulated\]\s*/, '')}` : ''}`,
  );
  return outputs;
}

/** The list a module runs over, checked: what the node's data says, else the catalogue's. */
export function eachItems(value: unknown, parameter: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new Error(`parameters.${parameter} must be a non-empty list`);
  }
  return value.map(String);
}

/** What a rendered picture says of itself (its PNG Comment), when it can be read here. */
function firstImageNote(
  ctx: Parameters<NodeExecutor<ExpertData>>[0],
  value: unknown,
): string | undefined {
  if (!isImageValue(value)) return undefined;
  const data = readDataUrl(ctx.imageUrl(value));
  return data ? pngComment(Buffer.from(data.base64, 'base64')) : undefined;
}

/**
 * Spreads an answer over the module's output ports: labels feed both `labels` and `text` (the
 * best class, or every detected object above the threshold, comma-separated, as OpenAGI's
 * detector reports them).
 */
function outputsOf(
  ports: string[],
  output: unknown,
  parameters: Record<string, unknown>,
  simulated: boolean,
): NodeOutputs {
  if (ports.includes('entities') && Array.isArray(output)) {
    // Each entity once, in the order the text names them.
    const words = [...new Set((output as EntityValue[]).map((e) => e.word))];
    return { entities: output, text: `${simulatedPrefix(simulated)}${words.join(', ')}` };
  }
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

/** A text cut to `max` characters, with an ellipsis when cut. */
function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
