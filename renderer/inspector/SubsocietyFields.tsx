import { openGraph, pickSourceToUpdate } from '../editor/library-actions.ts';
import type { FlowNode } from '../model/document.ts';
import type { Library } from '../model/library.ts';
import { subgraphOf } from '../model/ports.ts';
import { useEditor } from '../store.ts';

/**
 * For a node standing for a library graph (a sub-society), below its form (where the graph is
 * chosen, by the `library-graph` field editor): that graph's description and size, a way in to
 * edit it, and, for a graph copied from another document, "Update from source".
 */
export function SubsocietyFields({ node }: { node: FlowNode }) {
  const graphs = useEditor((s) => s.meta.graphs);
  const path = useEditor((s) => s.path);
  const graph = subgraphOf(node);
  if (graph === undefined) return null;
  const library = (graphs ?? {}) as Library;
  const chosen = Object.hasOwn(library, graph) ? library[graph] : undefined;
  // The graph open on the canvas is edited there; its library entry is behind by those edits.
  const open = path.some((step) => step.graph === graph);
  return (
    <section className="subsociety-fields" data-testid="subsociety-fields">
      {chosen?.description ? (
        <p className="muted small" data-testid="subsociety-description">
          {chosen.description}
        </p>
      ) : null}
      {chosen ? (
        <p className="muted small">
          {chosen.nodes.length} nodes
          {chosen.source ? (
            <>
              {' '}
              · copied from <q data-testid="subsociety-source">{chosen.source.name}</q>
            </>
          ) : null}
        </p>
      ) : null}
      <div className="row">
        <button
          type="button"
          data-testid="subsociety-open"
          disabled={!chosen || open}
          onClick={() => openGraph(graph, node.id)}
        >
          Open sub-society
        </button>
        {chosen?.source ? (
          <button
            type="button"
            data-testid="subsociety-update"
            title="Pick the source document again: when it changed, the library graph is replaced (after you confirm)"
            onClick={() => pickSourceToUpdate(graph)}
          >
            Update from source…
          </button>
        ) : null}
      </div>
    </section>
  );
}
