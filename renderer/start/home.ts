/**
 * Whether the start page is showing: when no document is open, as when the studio opens, or
 * after closing one with Home. Any document loaded (New, Open, a template, an import, a restored
 * draft) closes it.
 */
import { create } from 'zustand';
import { newDocument } from '../model/document.ts';
import { documentModels, modelDefaults } from '../settings/defaults.ts';
import { loadDocument, unlessUnsaved, useEditor } from '../store.ts';

export const useHome = create<{ open: boolean }>(() => ({ open: true }));

useEditor.subscribe((state, previous) => {
  if (state.epoch !== previous.epoch && useHome.getState().open) useHome.setState({ open: false });
});

/** "Build from scratch": the empty editor, with the default models. */
export function buildFromScratch(): void {
  loadDocument(newDocument(documentModels(modelDefaults())));
}

/** Closes the document (asking first when it has unsaved changes) and shows the start page. */
export function goHome(): void {
  unlessUnsaved('Close this document?', () => {
    loadDocument(newDocument(documentModels(modelDefaults())));
    useHome.setState({ open: true });
  });
}
