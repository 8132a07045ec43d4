/**
 * How a graph's inputs read as a tool's arguments: the JSON Schema of each modality, which
 * modalities a model cannot write (the offering node gives them), and a tool name the OpenAI
 * API takes. Pure, for node specs and the engine alike.
 */
import { parseModality } from '../schema/modality.ts';

/** Modalities a model cannot write in JSON: such inputs are given by the offering node. */
const BINARY = new Set(['image', 'audio', 'asset3d']);

/** Whether a graph input of this modality is handed to the tool by the node, not the model. */
export function isGivenModality(modality: string): boolean {
  const parsed = parseModality(modality);
  return parsed?.kind === 'scalar' && BINARY.has(parsed.name);
}

/** The JSON Schema a value of a modality takes in a tool's arguments. */
export function modalityJsonSchema(modality: string): Record<string, unknown> {
  const parsed = parseModality(modality);
  if (!parsed) return {};
  if (parsed.kind === 'list') {
    const inner = modality.trim().replace(/^list<(.+)>$/, '$1');
    return { type: 'array', items: modalityJsonSchema(inner) };
  }
  switch (parsed.name) {
    case 'text':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'label':
      return {
        type: 'object',
        properties: { label: { type: 'string' }, score: { type: 'number' } },
        required: ['label'],
      };
    default:
      // json, any: whatever the model writes.
      return {};
  }
}

/** A tool name the OpenAI API takes (`[A-Za-z0-9_-]{1,64}`) from a graph's name. */
export function toolName(graph: string): string {
  const name = graph.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
  return name === '' ? 'graph' : name;
}
