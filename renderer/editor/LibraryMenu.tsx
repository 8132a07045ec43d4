import { type FormEvent, useState } from 'react';
import { toDocument } from '../model/document.ts';
import { graphUses } from '../model/library.ts';
import { subgraphOf } from '../model/ports.ts';
import { useEditor } from '../store.ts';
import { deleteLibraryGraph, renameLibraryGraph } from './library-actions.ts';

/**
 * The library bar's list of the document's library graphs: each with its size and how many
 * society nodes use it, renamed in place (the nodes naming it follow) or deleted (refused while
 * a node uses it).
 */
export function LibraryMenu() {
  const graphs = useEditor((s) => s.meta.graphs);
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const names = Object.keys(graphs ?? {});
  // Counted on the document as saved would be, the graph on the canvas included.
  const doc = open ? toDocument(useEditor.getState()) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!renaming) return;
    const why = renameLibraryGraph(renaming.from, renaming.to.trim());
    setError(why);
    if (!why) setRenaming(null);
  };

  return (
    <div className="library-menu">
      <button
        type="button"
        data-testid="library-menu"
        aria-expanded={open}
        disabled={names.length === 0}
        title="The document's library graphs: rename or delete them"
        onClick={() => {
          setOpen(!open);
          setRenaming(null);
          setError(null);
        }}
      >
        Library ({names.length})
      </button>
      {open && doc ? (
        <ul className="library-list" data-testid="library-list">
          {Object.entries(doc.graphs ?? {}).map(([name, graph]) => {
            const uses = graphUses(doc, name, subgraphOf).filter((u) => u.graph !== name).length;
            return (
              <li key={name} data-testid={`library-graph-${name}`}>
                {renaming?.from === name ? (
                  <form className="subsociety-name" onSubmit={submit}>
                    <input
                      data-testid="library-rename-name"
                      aria-label={`New name for ${name}`}
                      value={renaming.to}
                      // biome-ignore lint/a11y/noAutofocus: the name is the one thing asked for here
                      autoFocus
                      onChange={(e) => setRenaming({ from: name, to: e.target.value })}
                    />
                    <button type="submit" data-testid="library-rename-ok">
                      Rename
                    </button>
                    <button type="button" onClick={() => setRenaming(null)}>
                      Cancel
                    </button>
                  </form>
                ) : (
                  <>
                    <code>{name}</code>
                    <span className="muted">
                      {graph.nodes.length} nodes · used by {uses}
                    </span>
                    <button
                      type="button"
                      data-testid={`library-rename-${name}`}
                      onClick={() => {
                        setError(null);
                        setRenaming({ from: name, to: name });
                      }}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      data-testid={`library-delete-${name}`}
                      title={
                        uses > 0
                          ? 'In use: the notice names the nodes that use it'
                          : 'Delete it (after you confirm)'
                      }
                      onClick={() => deleteLibraryGraph(name)}
                    >
                      Delete
                    </button>
                  </>
                )}
              </li>
            );
          })}
          {error ? (
            <li className="errors" data-testid="library-error">
              {error}
            </li>
          ) : null}
        </ul>
      ) : null}
    </div>
  );
}
