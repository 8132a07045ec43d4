/**
 * What the run panel's Inputs form asks for, read from the node types' specs, so the editor
 * names no node type: run inputs (`runInput`) and answers a person may give ahead (`answers`).
 */
import { isFileModality } from '../../app/node-sdk/example.ts';
import type { Modality } from '../../app/schema/modality.ts';
import type { FlowNode } from './document.ts';
import { specHook } from './ports.ts';

/**
 * The form's value of a file input that means "the document's example": the API resolves it
 * from the document sent with the run, so the page never sends the example's bytes twice.
 */
export const EXAMPLE_VALUE = 'example';

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
  /**
   * The document's example for the input, as the form holds values: text as it reads (JSON for
   * numbers, booleans and JSON), a file as its `data:` URL (for the preview).
   */
  example?: string;
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
        ...exampleOf(node),
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

function exampleOf(node: FlowNode): { example?: string } {
  const example = specHook(node, 'exampleInput');
  if (!example || example.value === undefined) return {};
  const { value } = example;
  return { example: typeof value === 'string' ? value : JSON.stringify(value) };
}

/**
 * What a field holds: what the person typed or picked, else the document's example (a file's
 * as EXAMPLE_VALUE), else nothing. A field the person emptied stays empty: `''` is a value.
 */
export function fieldValue(field: RunInputField, values: Readonly<Record<string, string>>): string {
  const typed = values[field.name];
  if (typed !== undefined) return typed;
  if (field.example === undefined) return '';
  return isFileModality(field.modality as Modality) ? EXAMPLE_VALUE : field.example;
}
