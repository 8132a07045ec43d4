/**
 * The Layout command: arranges the society (or the selected nodes) with elkjs as one undo step.
 * ELK is loaded the first time it is needed, so the canvas does not wait for it.
 */
import type { ELK } from 'elkjs/lib/elk-api';
import { AUTO_SIZE, type FlowNode } from '../model/document.ts';
import { layoutGraph } from '../model/layout.ts';
import { pushHistory, useEditor } from '../store.ts';

let elk: Promise<ELK> | undefined;

function loadElk(): Promise<ELK> {
  elk ??= import('elkjs/lib/elk.bundled.js').then(({ default: ELKConstructor }) => {
    return new ELKConstructor();
  });
  return elk;
}

/**
 * Lays out every node, or only `only` (and what is inside them), and returns how many nodes
 * moved. The rest of the canvas stays where it is.
 */
export async function autoLayout(only?: ReadonlySet<string>): Promise<number> {
  const { nodes, edges } = useEditor.getState();
  if (nodes.length === 0) return 0;
  const scope = only ? withMembers(only, nodes) : undefined;
  const result = await layoutGraph(await loadElk(), nodes, edges, scope);
  // The document may have changed while ELK worked; apply to what is there now, by id.
  pushHistory();
  let moved = 0;
  useEditor.setState((s) => ({
    dirty: true,
    nodes: s.nodes.map((n) => {
      const position = result.positions.get(n.id);
      const size = result.sizes.get(n.id);
      if (!position && !size) return n;
      moved++;
      const next: FlowNode = { ...n, ...(position ? { position } : {}) };
      if (size) {
        next.width = size.width;
        next.height = size.height;
        // A size the layout chose is the document's own from now on: it is saved.
        delete (next as Record<string, unknown>)[AUTO_SIZE];
      }
      return next;
    }),
  }));
  return moved;
}

/** The chosen nodes and every node inside any of them. */
function withMembers(only: ReadonlySet<string>, nodes: readonly FlowNode[]): Set<string> {
  const scope = new Set(only);
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of nodes) {
      if (n.parentId && scope.has(n.parentId) && !scope.has(n.id)) {
        scope.add(n.id);
        grew = true;
      }
    }
  }
  return scope;
}
