/**
 * The document's `serve.chat` checked against its graph: each name is one of its run inputs
 * (a text one: a chat message is text; an image one for `image`) or, for `output`, one of its
 * run outputs, and no input takes two parts of a chat. A problem names the field, so `society validate` and
 * `society serve` say which.
 */
import type { GraphDocument } from '../schema/document.ts';
import type { Problem } from '../schema/problems.ts';
import type { GraphPlan } from './analyze.ts';

/** Problems of `doc.serve.chat` in `plan`, none when the document has no such section. */
export function chatMappingProblems(doc: GraphDocument, plan: GraphPlan): Problem[] {
  const chat = doc.serve?.chat;
  if (!chat) return [];
  const inputs = new Map<string, string>();
  const outputs: string[] = [];
  for (const node of plan.nodes.values()) {
    const input = node.spec.runInput?.(node.data);
    if (input) inputs.set(input.name, input.modality);
    const output = node.spec.runOutput?.(node.data);
    if (output) outputs.push(output.name);
  }
  const problems: Problem[] = [];
  const list = (names: Iterable<string>) => [...names].join(', ') || 'none';
  const taken = new Map<string, string>();
  for (const part of ['input', 'history', 'system', 'image'] as const) {
    const name = chat[part];
    if (name === undefined) continue;
    const path = `serve.chat.${part}`;
    const modality = inputs.get(name);
    const wanted = part === 'image' ? 'image' : 'text';
    if (modality === undefined)
      problems.push({ path, message: `no run input "${name}" (inputs: ${list(inputs.keys())})` });
    else if (modality !== wanted)
      problems.push({ path, message: `input "${name}" takes ${modality}, not ${wanted}` });
    else if (taken.has(name))
      problems.push({ path, message: `input "${name}" is already serve.chat.${taken.get(name)}` });
    taken.set(name, part);
  }
  if (chat.output !== undefined && !outputs.includes(chat.output))
    problems.push({
      path: 'serve.chat.output',
      message: `no run output "${chat.output}" (outputs: ${list(outputs)})`,
    });
  return problems;
}
