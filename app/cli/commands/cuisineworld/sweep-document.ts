/**
 * The documents a sweep plays: the user's dispatcher document (or one built from flags), one
 * copy per episode with the world's set-up and the ablations written into the nodes that hold
 * them. Which nodes those are, and which of their fields, each node type's spec says through
 * its `episode` hook: the sweep names no node type.
 */
import type {
  EpisodeSetting,
  EpisodeSettings,
} from '../../../environments/cuisineworld/settings.ts';
import type { NodeRegistry } from '../../../node-sdk/registry.ts';
import type { GraphDocument } from '../../../schema/document.ts';
import { UsageError } from '../../errors.ts';

type StoredNode = { id: string; type: string; data?: Record<string, unknown> };

/** The settings the document's nodes hold now (the first node holding each wins). */
export function readEpisodeSettings(
  doc: Pick<GraphDocument, 'nodes'>,
  registry: NodeRegistry,
): Partial<EpisodeSettings> {
  const found: Partial<EpisodeSettings> = {};
  for (const node of doc.nodes as StoredNode[]) {
    const hook = registry.get(node.type)?.episode;
    if (!hook) continue;
    for (const [key, value] of Object.entries(hook.read(node.data ?? {})))
      if (!(key in found)) (found as Record<string, unknown>)[key] = value;
  }
  return found;
}

/**
 * A copy of `doc` with `settings` written into every node that holds them. A setting no node
 * holds is a usage error naming the flag that asked for it (`flagOf`), so an ablation never
 * silently does nothing.
 */
export function withEpisodeSettings(
  doc: GraphDocument,
  settings: Partial<EpisodeSettings>,
  registry: NodeRegistry,
  flagOf: (key: EpisodeSetting) => string,
): GraphDocument {
  const applied = new Set<string>();
  const nodes = (doc.nodes as StoredNode[]).map((node) => {
    const hook = registry.get(node.type)?.episode;
    if (!hook) return node;
    const result = hook.apply(node.data ?? {}, settings);
    for (const key of result.applied) applied.add(key);
    return { ...node, data: result.data };
  });
  for (const key of Object.keys(settings) as EpisodeSetting[]) {
    if (settings[key] === undefined || applied.has(key)) continue;
    throw new UsageError(
      `${flagOf(key)}: no node of the document takes it (${key === 'level' || key === 'agents' || key === 'alpha' || key === 'seed' || key === 'maxSteps' || key === 'runner' ? 'an environment does' : 'a dispatcher that asks a model does'})`,
    );
  }
  return { ...doc, nodes: nodes as GraphDocument['nodes'] };
}

/** The graph one episode runs when no document is given: an environment and a dispatcher. */
export function episodeDocument(options: {
  controller: 'greedy' | 'model';
  model?: { provider: string; model: string };
  behaviour: 'feedback' | 'retry';
}): GraphDocument {
  return {
    version: 1,
    name: `CuisineWorld ${options.controller === 'greedy' ? 'greedy dispatcher' : 'dispatcher'}`,
    ...(options.model
      ? { models: { dispatcher: { ...options.model, temperature: 0.1, maxTokens: 100 } } }
      : {}),
    nodes: [
      {
        id: 'kitchen',
        type: 'environment',
        position: { x: 0, y: 0 },
        data: { level: 'level_0', agents: 2, seed: 0, maxSteps: 60, alpha: 1 },
      },
      {
        id: 'dispatcher',
        type: 'dispatcher',
        position: { x: 300, y: 0 },
        data: {
          controller: options.controller,
          behaviour: options.behaviour,
          ...(options.model ? { model: 'dispatcher' } : {}),
        },
      },
      { id: 'metrics', type: 'output', position: { x: 600, y: 0 }, data: { name: 'metrics' } },
    ],
    edges: [
      {
        id: 'w',
        source: 'kitchen',
        sourceHandle: 'world',
        target: 'dispatcher',
        targetHandle: 'world',
      },
      {
        id: 'm',
        source: 'dispatcher',
        sourceHandle: 'metrics',
        target: 'metrics',
        targetHandle: 'value',
      },
    ],
  };
}
