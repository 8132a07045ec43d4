/**
 * The provider profiles a document needs to run live: those its model profiles name and those
 * its nodes reach themselves (an expert model's Hugging Face profile, through the `providers`
 * hook on its spec). The gallery and the export manifest list them.
 */
import { readNodeData } from './lenient-data.ts';
import type { NodeRegistry } from './registry.ts';

/** What the list is read from: a parsed document, valid or a work in progress. */
export interface ProviderSource {
  models?: Record<string, { provider: string }> | undefined;
  nodes: ReadonlyArray<{ type: string; data?: unknown }>;
  /** The document's library: its graphs' nodes run too, wherever a node stands for one. */
  graphs?: Readonly<Record<string, { nodes: ReadonlyArray<{ type: string; data?: unknown }> }>>;
}

/** Provider profile names the document uses, sorted, each once. */
export function documentProviders(doc: ProviderSource, registry: NodeRegistry): string[] {
  const names = new Set(Object.values(doc.models ?? {}).map((m) => m.provider));
  const library = Object.values(doc.graphs ?? {}).flatMap((g) => g.nodes);
  for (const node of [...doc.nodes, ...library]) {
    const spec = registry.get(node.type);
    if (!spec?.providers) continue;
    const data =
      typeof node.data === 'object' && node.data !== null
        ? (node.data as Record<string, unknown>)
        : {};
    try {
      for (const name of spec.providers(readNodeData(spec, data))) names.add(name);
    } catch {
      // Data too broken to say: the compiler reports it; the list names what it can.
    }
  }
  return [...names].sort();
}
