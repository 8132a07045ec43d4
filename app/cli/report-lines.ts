/**
 * The terminal's line for a node's report, as its node type says (`NodeSpec.reportLine`). The
 * report names its node copy; that copy's `node.started`, earlier in the same run, names its
 * type, so the lines need nothing but the run's events and the node types.
 */
import type { NodeRegistry } from '../node-sdk/registry.ts';
import type { RunEvent } from '../runtime/events.ts';

/**
 * Reads a run's events in order; for a report, the line its node type gives (`null`: none),
 * or `undefined` when the type leaves it to the generic line.
 */
export type ReportLines = (e: RunEvent) => string | null | undefined;

export function reportLines(registry: Pick<NodeRegistry, 'get'>): ReportLines {
  const types = new Map<string, string>();
  return (e) => {
    if (e.type === 'node.started') types.set(e.instance, e.nodeType);
    if (e.type !== 'report') return undefined;
    const type = types.get(e.instance);
    return type === undefined ? undefined : registry.get(type)?.reportLine?.(e.kind, e.data);
  };
}
