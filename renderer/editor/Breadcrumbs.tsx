import { type FormEvent, useState } from 'react';
import { useEditor } from '../store.ts';
import { LibraryMenu } from './LibraryMenu.tsx';
import {
  closeGraphs,
  makeSubsociety,
  pickDocumentToInsert,
  suggestedGraphName,
} from './library-actions.ts';

/**
 * Over the canvas: where in the document's library the canvas is (`Document › artist › …`, each
 * step leading back), and the library's actions: make a sub-society from the selection (asking
 * its name), insert a document as a sub-society, and the library's graphs (rename, delete).
 */
export function Breadcrumbs() {
  const path = useEditor((s) => s.path);
  const name = useEditor((s) => s.meta.name);
  const selected = useEditor((s) => s.nodes.some((n) => n.selected));
  const [asking, setAsking] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (asking === null) return;
    const why = makeSubsociety(asking.trim());
    setError(why);
    if (!why) setAsking(null);
  };

  return (
    <div className="library-bar" data-testid="library-bar">
      <nav className="breadcrumbs" aria-label="Sub-society path" data-testid="breadcrumbs">
        <button
          type="button"
          className="crumb"
          data-testid="crumb-0"
          disabled={path.length === 0}
          title={`The document's own graph (${name})`}
          onClick={() => closeGraphs(0)}
        >
          Document
        </button>
        {path.map((step, i) => (
          <span key={step.graph}>
            <span className="crumb-sep" aria-hidden="true">
              ›
            </span>
            <button
              type="button"
              className="crumb"
              data-testid={`crumb-${i + 1}`}
              disabled={i === path.length - 1}
              title={step.via ? `${step.graph}, opened from ${step.via}` : step.graph}
              onClick={() => closeGraphs(i + 1)}
            >
              {step.graph}
            </button>
          </span>
        ))}
      </nav>
      {asking === null ? (
        <>
          <button
            type="button"
            data-testid="make-subsociety"
            disabled={!selected}
            title="Move the selected nodes into a new graph of the document's library, a sub-society node in their place"
            onClick={() => {
              setError(null);
              setAsking(suggestedGraphName());
            }}
          >
            Make sub-society
          </button>
          <button
            type="button"
            data-testid="insert-document"
            title="Copy a workspace document into this document's library and add a sub-society node running it"
            onClick={pickDocumentToInsert}
          >
            Insert document…
          </button>
          <LibraryMenu />
        </>
      ) : (
        <form className="subsociety-name" onSubmit={submit}>
          <label>
            Graph name{' '}
            <input
              data-testid="subsociety-name"
              value={asking}
              // biome-ignore lint/a11y/noAutofocus: the name is the one thing asked for here
              autoFocus
              onChange={(e) => setAsking(e.target.value)}
            />
          </label>
          <button type="submit" data-testid="subsociety-ok">
            Make
          </button>
          <button type="button" data-testid="subsociety-cancel" onClick={() => setAsking(null)}>
            Cancel
          </button>
          {error ? (
            <span className="errors" data-testid="subsociety-error">
              {error}
            </span>
          ) : null}
        </form>
      )}
    </div>
  );
}
