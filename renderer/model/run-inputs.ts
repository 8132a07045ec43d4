/**
 * What the run panel's Inputs form asks for, read from the node types' specs, so the editor
 * names no node type: run inputs (`runInput`) and answers a person may give ahead (`answers`).
 */
import type { FlowNode } from './document.ts';
import { specHook } from './ports.ts';

/** One field of the Inputs form: a run input's value or a person's answer. */
export interface RunInputField {
  /** The node that asks. */
  id: string;
  name: string;
  modality: string;
  description: string;
  hasDefault: boolean;
  /** An answer a person gives (a human node's): before the run starts, else when asked. */
  human: boolean;
}

/**
 * What the run asks for, in node order: each run input's value (the spec's `runInput`) and
 * each answer a node lets a person give ahead (its `answers`). Answers asked once per step of
 * an episode are not here: the run asks for them as it plays.
 */
export function runInputFields(nodes: readonly FlowNode[]): RunInputField[] {
  const fields: RunInputField[] = [];
  for (const node of nodes) {
    const input = specHook(node, 'runInput');
    if (input && typeof input.name === 'string' && input.name) {
      fields.push({
        id: node.id,
        name: input.name,
        modality: typeof input.modality === 'string' ? input.modality : 'text',
        description: typeof input.description === 'string' ? input.description : '',
        hasDefault: input.default !== undefined,
        human: false,
      });
    }
    for (const answer of specHook(node, 'answers') ?? []) {
      if (answer.perStep || typeof answer.name !== 'string' || !answer.name) continue;
      fields.push({
        id: node.id,
        name: answer.name,
        modality: 'text',
        description: typeof answer.prompt === 'string' ? answer.prompt : '',
        hasDefault: false,
        human: true,
      });
    }
  }
  return fields;
}
