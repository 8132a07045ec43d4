/**
 * The ports a graph of a document's library shows as a sub-society: one input per input node,
 * one output per output node. The engine (app/compiler/expand.ts) and the editor
 * (renderer/model/library.ts) both read them here, through hooks, so neither names a node type
 * and both agree on what a society node takes and gives.
 */
import type { GraphNode, LibraryGraph } from '../schema/document.ts';
import type { Modality } from '../schema/modality.ts';
import type { NodePorts } from './define.ts';

/** What the ports are read through: node types' `runInput`/`runOutput` hooks, by node. */
export interface LibraryHooks {
  runInput(node: GraphNode): { name: string; modality: Modality } | undefined;
  runOutput(node: GraphNode): { name: string } | undefined;
  /**
   * The modality a node's output port gives, for what an output node passes on; without it
   * (or when it does not know) an output is `any`.
   */
  outputModality?(node: GraphNode, port: string): Modality | undefined;
}

/**
 * The ports of a library graph. Every input is required: a society node's input nodes are not
 * laid out with its members, so nothing but a wire gives their consumers a value (a graph run
 * on its own, as a tool, reads defaults: app/runtime/graph-tools.ts). An output's modality is
 * that of what feeds its output node, else `any`.
 */
export function graphPorts(graph: LibraryGraph, hooks: LibraryHooks): NodePorts {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const inputs: NodePorts['inputs'] = [];
  const outputs: NodePorts['outputs'] = [];
  for (const node of graph.nodes) {
    const input = hooks.runInput(node);
    if (input) inputs.push({ name: input.name, modality: input.modality, required: true });
    const output = hooks.runOutput(node);
    if (output) {
      const feed = graph.edges.find((e) => e.target === node.id);
      const source = feed && byId.get(feed.source);
      const modality = (source && hooks.outputModality?.(source, feed.sourceHandle ?? '')) ?? 'any';
      outputs.push({ name: output.name, modality });
    }
  }
  return { inputs, outputs };
}
