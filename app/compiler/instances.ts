/**
 * How many node instances a document expands to: each node runs once per copy of itself and of
 * every group around it, so a group of 1,000 copies around a node of 1,000 copies runs that node
 * a million times. Counted at validation, before the machine builder, the estimator or the
 * engine ever lay the copies out.
 */
import { formatPath, type Problem } from '../schema/problems.ts';

/** What the count needs of a planned node: where it sits and how often it is copied. */
export interface CountedNode {
  id: string;
  index: number;
  /** The container the node sits in, or `root` at the top. */
  scope: string;
  replicate?: { items: unknown[] };
}

/** Counts above this are named as "over 10^15" rather than spelt out. */
const SPELT_OUT = 1e15;

function spell(count: number): string {
  return count > SPELT_OUT ? 'over 10^15' : count.toLocaleString('en-US');
}

/**
 * The first node that takes the document past `maxInstances`, as a problem; none when the whole
 * document fits. Expects the container tree free of cycles (analysis breaks them first).
 */
export function instanceProblems(
  nodes: ReadonlyMap<string, CountedNode>,
  maxInstances: number,
): Problem[] {
  const copies = new Map<string, number>();
  /** Copies of a node: its own replicas times those of every container around it. */
  const copiesOf = (start: CountedNode): number => {
    // Walk up to the first container already counted, then fill the chain in going down, so
    // every node is counted once however deep groups nest.
    const chain: CountedNode[] = [];
    let above = 1;
    for (let n: CountedNode | undefined = start; n; n = nodes.get(n.scope)) {
      // A cycle would have been broken by now; this only keeps a mistake from hanging.
      if (chain.length > nodes.size) break;
      const known = copies.get(n.id);
      if (known !== undefined) {
        above = known;
        break;
      }
      chain.push(n);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const n = chain[i] as CountedNode;
      above *= n.replicate?.items.length ?? 1;
      copies.set(n.id, above);
    }
    return copies.get(start.id) ?? above;
  };

  let total = 0;
  // Formatted only for a message: the first number formatted loads the locale data (~12 ms).
  const limit = () => maxInstances.toLocaleString('en-US');
  for (const node of nodes.values()) {
    const count = copiesOf(node);
    total += count;
    if (count > maxInstances) {
      return [
        {
          path: formatPath(
            node.replicate
              ? ['nodes', node.index, 'data', 'replicate', 'items']
              : ['nodes', node.index, 'parentId'],
          ),
          node: node.id,
          message: `runs as ${spell(count)} copies once the replicas around it are multiplied out; a document may expand to at most ${limit()} node instances`,
        },
      ];
    }
    if (total > maxInstances) {
      return [
        {
          path: formatPath(['nodes', node.index]),
          node: node.id,
          message: `takes the document past ${limit()} node instances (replicas multiplied out), the most a document may expand to`,
        },
      ];
    }
  }
  return [];
}
