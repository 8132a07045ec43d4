/**
 * Graphs of the document's library offered to a model as tools (agents-as-tools,
 * experts-as-tools): a graph's input nodes become the tool's JSON Schema, its output nodes the
 * result. The gateway (tools.ts) runs a call as a child graph of the calling instance, so the
 * graph's own model and expert calls are recorded, replayed, budgeted and shown like any child
 * graph's. Nothing here names a node type: input and output nodes are read through the
 * `runInput` and `runOutput` hooks (app/compiler/expand.ts `libraryPorts`).
 */
import { libraryPorts, type SpecLookup } from '../compiler/expand.ts';
import type { ToolOffer } from '../node-sdk/define.ts';
import { isGivenModality, modalityJsonSchema, toolName } from '../node-sdk/tool-modalities.ts';
import type { ToolDefinition, ToolResult } from '../providers/tools.ts';
import type { GraphDocument } from '../schema/document.ts';

/**
 * The tool a library graph is as an offer presents it: named after the graph (or the offer's
 * `name`), described by its `description` (or the offer's), its inputs a model can write as the
 * schema's properties (required unless the input has a default), each described by its input
 * node's description; with the names of the inputs the node gives instead (`given`). Undefined
 * when the document has no such graph.
 */
export function graphToolDefinition(
  doc: Pick<GraphDocument, 'graphs'>,
  specs: SpecLookup,
  offer: ToolOffer & { source: { kind: 'graph'; graph: string } },
): { definition: ToolDefinition; given: string[] } | undefined {
  const name = offer.source.graph;
  const graph = Object.hasOwn(doc.graphs ?? {}, name) ? doc.graphs?.[name] : undefined;
  const ports = libraryPorts(doc, specs).subgraphPorts(name);
  if (!graph || !ports) return undefined;
  const described = new Map<string, string>();
  // Run on its own, the graph reads its inputs' defaults: a model may leave those out.
  const optional = new Set<string>();
  for (const node of graph.nodes) {
    const spec = specs.get(node.type);
    const parsed = spec?.runInput ? spec.data.safeParse(node.data) : undefined;
    const input = parsed?.success ? spec?.runInput?.(parsed.data) : undefined;
    if (input?.description) described.set(input.name, input.description);
    if (input && input.default !== undefined) optional.add(input.name);
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const given: string[] = [];
  for (const port of ports.inputs) {
    if (isGivenModality(port.modality)) {
      given.push(port.name);
      continue;
    }
    const description = described.get(port.name);
    properties[port.name] = {
      ...modalityJsonSchema(port.modality),
      ...(description ? { description } : {}),
    };
    if (!optional.has(port.name)) required.push(port.name);
  }
  const about = offer.description ?? graph.description ?? `Runs the graph "${name}".`;
  const note = given.length
    ? ` Its ${given.join(', ')} ${given.length === 1 ? 'is' : 'are'} given: you do not pass ${given.length === 1 ? 'it' : 'them'}.`
    : '';
  const definition: ToolDefinition = {
    name: offer.name ?? toolName(name),
    description: about + note,
    parameters: {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
  };
  return { definition, given };
}

/** What a model reads of a graph's outputs: one output's value as such, several as a JSON object. */
export function graphToolResult(outputs: Record<string, unknown>): Omit<ToolResult, 'source'> {
  const names = Object.keys(outputs);
  const value = names.length === 1 ? outputs[names[0]!] : outputs;
  const content = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
  return { content, structured: outputs };
}
