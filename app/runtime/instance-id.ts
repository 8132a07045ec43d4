/** How a node's instances are named in a scope: its path, then the node's id. */

/** What naming needs of a scope's context (machine-runtime.ts `ScopeContext`). */
export interface InstanceScope {
  /** Instance prefix: '' at the top, `artist#3/` inside replica 3 of group artist. */
  path: string;
  /** The id prefix the scope's instances leave out (`judge/` in a copy of sub-society judge). */
  local?: string;
}

/**
 * The instance id of node `id` in a scope, without its replica or loop position: `judge/agent1`
 * in the run's own scope, `judge#2/agent1` in copy 2 of a replicated sub-society `judge`.
 */
export function instanceOf(context: InstanceScope, id: string): string {
  const { local } = context;
  return context.path + (local && id.startsWith(local) ? id.slice(local.length) : id);
}

/**
 * The node an instance id (`judge#2/agent1@r3`, `artists#3/mission`) belongs to among `nodes`:
 * copies and the loop position set aside, the longest tail of its path that is a node's id (a
 * laid-out sub-society's members have ids with `/`, a plain group's do not).
 */
export function nodeOfInstance<T>(nodes: ReadonlyMap<string, T>, instance: string): T | undefined {
  const segments = (instance.split('@')[0] ?? '').split('/').map((s) => s.replace(/#\d+$/, ''));
  for (let i = 0; i < segments.length; i++) {
    const found = nodes.get(segments.slice(i).join('/'));
    if (found) return found;
  }
  return undefined;
}
