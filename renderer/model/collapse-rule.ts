/**
 * When a container (a group, a mindstorm) is drawn collapsed, as one card: the user's choice,
 * kept in the node's editor-only `ui` data (`{ "ui": { "collapsed": true } }`, which the engine
 * ignores), or else the default: a replicated container of COLLAPSE_FROM copies or more (or
 * replicated over a template parameter's list) starts collapsed, since its members stand for that many copies each and the copies are listed on its
 * card. Pure, so the editor benchmark counts the cards a document opens with the same rule.
 */

/** Replicated containers with at least this many copies open collapsed unless told otherwise. */
export const COLLAPSE_FROM = 6;

interface NodeShape {
  id: string;
  type?: string;
  parentId?: string;
  data: Record<string, unknown>;
}

/** The user's own choice for a node, when one was made. */
export function collapseChoice(data: Record<string, unknown>): boolean | undefined {
  const ui = data.ui;
  if (!ui || typeof ui !== 'object') return undefined;
  const collapsed = (ui as Record<string, unknown>).collapsed;
  return typeof collapsed === 'boolean' ? collapsed : undefined;
}

/**
 * How many copies a node's `replicate` makes (0 when it has none). A list taken from a template
 * parameter (`{ "$param": "styles" }`) counts as many: the parameter may make it any length.
 */
export function copiesOf(data: Record<string, unknown>): number {
  const items = (data.replicate as { items?: unknown } | undefined)?.items;
  if (Array.isArray(items)) return items.length;
  const param = items && typeof items === 'object' && '$param' in items;
  return param ? Number.POSITIVE_INFINITY : 0;
}

/** Whether a container is drawn collapsed: the user's choice, else the default rule. */
export function isCollapsedData(data: Record<string, unknown>): boolean {
  return collapseChoice(data) ?? copiesOf(data) >= COLLAPSE_FROM;
}

/**
 * The ids of nodes hidden inside a collapsed container, each with the outermost collapsed
 * container that stands for it on the canvas. Linear in the nodes: each node's answer reuses
 * its parent's.
 */
export function collapsedOwners(
  nodes: readonly NodeShape[],
  isContainer: (type: string | undefined) => boolean,
): Map<string, string> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // For each node: the outermost collapsed container among itself and its ancestors, or null.
  const memo = new Map<string, string | null>();
  const outermost = (id: string, depth: number): string | null => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    // Parents that form a cycle are not followed forever.
    const above = node?.parentId && depth < 100 ? outermost(node.parentId, depth + 1) : null;
    const own = node && isContainer(node.type) && isCollapsedData(node.data) ? node.id : null;
    const result = above ?? own;
    memo.set(id, result);
    return result;
  };
  const owners = new Map<string, string>();
  for (const node of nodes) {
    const owner = node.parentId ? outermost(node.parentId, 0) : null;
    if (owner) owners.set(node.id, owner);
  }
  return owners;
}
