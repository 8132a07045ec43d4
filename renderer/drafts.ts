/**
 * The unsaved document, kept in the browser so that losing the studio does not lose it. While
 * the document has changes not saved to a file, a copy goes to localStorage (a moment after each
 * change, and at once when the connection is lost); saving or opening another document drops
 * it. A page opened later at the studio's address (a reload, or the new address a restarted
 * studio printed: the studio reuses its port for a workspace, so its pages share this storage)
 * offers to restore it.
 *
 * localStorage, unlike the token's sessionStorage (renderer/studio-token.ts), outlives the tab:
 * that is the point here, and a document holds no key (keys live in the app's key store and
 * never in a document), so nothing secret is written.
 */
import { create } from 'zustand';
import { readDocument } from './model/document.ts';
import { currentDocument, loadDocument, notify, useEditor } from './store.ts';

/** The localStorage entry holding the unsaved document. */
export const DRAFT_STORAGE_KEY = 'society.studio.unsaved';

/** An unsaved document as kept: its name, the file it came from, when, and the document. */
export interface Draft {
  name: string;
  fileName: string | null;
  savedAt: number;
  document: unknown;
}

type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The kept draft, or null when there is none (or it is not one this page can read). */
export function readDraft(storage: DraftStorage | undefined): Draft | null {
  try {
    const raw = storage?.getItem(DRAFT_STORAGE_KEY);
    if (!raw) return null;
    const draft = JSON.parse(raw) as Partial<Draft>;
    if (typeof draft.name !== 'string' || typeof draft.savedAt !== 'number' || !draft.document)
      return null;
    return {
      name: draft.name,
      fileName: typeof draft.fileName === 'string' ? draft.fileName : null,
      savedAt: draft.savedAt,
      document: draft.document,
    };
  } catch {
    return null; // storage off, or an entry from elsewhere
  }
}

export function writeDraft(storage: DraftStorage | undefined, draft: Draft | null): void {
  try {
    if (draft) storage?.setItem(DRAFT_STORAGE_KEY, JSON.stringify(draft));
    else storage?.removeItem(DRAFT_STORAGE_KEY);
  } catch {
    // Storage full or off: the document stays in the page only, as before.
  }
}

/** The draft a page found when it opened, until restored or discarded. */
export const useDraftOffer = create<{ offer: Draft | null }>(() => ({ offer: null }));

function browserStorage(): DraftStorage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** Keeps the document now when it has unsaved changes (the connection was lost, say). */
export function keepDraftNow(storage = browserStorage()): void {
  const state = useEditor.getState();
  if (!state.dirty || useDraftOffer.getState().offer) return;
  const document = currentDocument(state);
  writeDraft(storage, {
    name: document.name,
    fileName: state.fileName,
    savedAt: Date.now(),
    document,
  });
}

/**
 * Offers a draft found at startup, then keeps the unsaved document as it changes. Returns the
 * function that stops watching.
 */
export function watchDrafts(storage = browserStorage()): () => void {
  const found = readDraft(storage);
  if (found) useDraftOffer.setState({ offer: found });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = useEditor.subscribe((state, before) => {
    // A draft on offer is not overwritten until the person chose what to do with it.
    if (useDraftOffer.getState().offer) return;
    if (state.dirty) {
      timer ??= setTimeout(() => {
        timer = undefined;
        keepDraftNow(storage);
      }, 500);
    } else if (before.dirty) {
      clearTimeout(timer);
      timer = undefined;
      writeDraft(storage, null);
    }
  });
  return () => {
    clearTimeout(timer);
    stop();
  };
}

/** Puts the offered draft on the canvas, unsaved as it was. */
export function restoreDraft(storage = browserStorage()): void {
  const offer = useDraftOffer.getState().offer;
  if (!offer) return;
  const result = readDocument(offer.document);
  useDraftOffer.setState({ offer: null });
  if (!result.ok) {
    notify('error', `the kept document could not be read: ${result.problems[0]?.message ?? ''}`);
    writeDraft(storage, null);
    return;
  }
  loadDocument(result.doc, { fileName: offer.fileName, dirty: true });
  keepDraftNow(storage);
  notify('info', `Restored "${offer.name}": save it to keep it in the workspace`);
}

/** Drops the offered draft. */
export function discardDraft(storage = browserStorage()): void {
  useDraftOffer.setState({ offer: null });
  writeDraft(storage, null);
}
