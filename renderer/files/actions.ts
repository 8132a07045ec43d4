/** New, Open, Save, Import and templates: the document's way in and out of the editor. */

import type { ApiResult } from '../../app/api/contract.ts';
import type { NodeMigration } from '../../app/schema/node-versions.ts';
import { serializeDocument } from '../../app/schema/parse.ts';
import type { Problem } from '../../app/schema/problems.ts';
import { api } from '../api.ts';
import { fileNameFor, newDocument, readDocument } from '../model/document.ts';
import { plural } from '../model/plural.ts';
import { documentModels, modelDefaults } from '../settings/defaults.ts';
import { currentDocument, loadDocument, notify, unlessUnsaved, useEditor } from '../store.ts';
import { rememberRecent } from './recent.ts';

const get = useEditor.getState;
const set = useEditor.setState;

export function newDoc(): void {
  unlessUnsaved('Start a new document?', () =>
    loadDocument(newDocument(documentModels(modelDefaults()))),
  );
}

/** Saves to the open file, or asks for a name the first time. */
export function save(): void {
  const { fileName } = get();
  if (fileName) void writeFile(fileName);
  else set({ modal: { kind: 'save', saveAs: false } });
}

export function saveAs(): void {
  set({ modal: { kind: 'save', saveAs: true } });
}

export function suggestedFileName(): string {
  return get().fileName ?? fileNameFor(get().meta.name);
}

/** Writes the document; returns an error message, or null when saved. */
export async function writeFile(name: string): Promise<string | null> {
  const text = serializeDocument(currentDocument());
  try {
    const written = await api().call('files.write', { name, text });
    // Only what was saved is clean: edits made while the write was under way stay unsaved.
    if (serializeDocument(currentDocument()) === text) set({ dirty: false });
    set({ fileName: written.name });
    rememberRecent(written.name);
    notify('info', `Saved ${written.name}`);
    return null;
  } catch (error) {
    notify('error', `Not saved: ${(error as Error).message}`);
    return (error as Error).message;
  }
}

function showProblems(source: string, problems: Problem[]): void {
  set({ importProblems: { source, problems } });
}

export function openFile(name: string): void {
  unlessUnsaved(`Open ${name}?`, async () => {
    try {
      const { text } = await api().call('files.read', { name });
      const result = readDocument(text);
      if (!result.ok) {
        showProblems(name, result.problems);
        return;
      }
      // Data brought up to date is not on disk yet: the document opens unsaved, and says why.
      const upgraded = result.migratedNodes;
      loadDocument(result.doc, { fileName: name, dirty: upgraded.length > 0 });
      if (upgraded.length > 0) notify('info', upgradeNote(name, upgraded));
      rememberRecent(name);
      set({ modal: null });
    } catch (error) {
      notify('error', `Could not open ${name}: ${(error as Error).message}`);
    }
  });
}

/**
 * "Upgraded shout1 (shout data v1 → v2) in old.society.json; save to keep it." A node whose type
 * was split says so: "dispatcher (planner → dispatcher)".
 */
export function upgradeNote(name: string, upgraded: readonly NodeMigration[]): string {
  const first = upgraded
    .slice(0, 3)
    .map((m) =>
      m.was && m.from === m.to
        ? `${m.node} (${m.was} → ${m.type})`
        : `${m.node} (${m.was ? `${m.was} → ` : ''}${m.type} data v${m.from} → v${m.to})`,
    )
    .join(', ');
  const more = upgraded.length > 3 ? ` and ${upgraded.length - 3} more` : '';
  return `Upgraded ${first}${more} in ${name}; save to keep it.`;
}

/** Opens a copy of a template; its cassette, if any, stays available for Run. */
export function openTemplate(file: string, hasCassette: boolean): void {
  unlessUnsaved('Open this template?', async () => {
    try {
      const { text } = await api().call('templates.open', { file });
      const result = readDocument(text);
      if (!result.ok) {
        showProblems(file, result.problems);
        return;
      }
      const doc = { ...result.doc, name: `${result.doc.name} (copy)` };
      loadDocument(doc, { template: { file, hasCassette } });
      set({ modal: null });
    } catch (error) {
      notify('error', `Could not open template ${file}: ${(error as Error).message}`);
    }
  });
}

/**
 * Imports a local file. It is checked first — parsed, then compiled by the backend — and a file
 * with problems changes nothing: its problems are listed, each naming the node or path. A file
 * that parses but whose graph has problems (a society still being built) can then be opened
 * anyway, on request.
 */
export function importFile(file: File): void {
  const reader = new FileReader();
  reader.addEventListener('load', () => {
    const text = typeof reader.result === 'string' ? reader.result : '';
    const result = readDocument(text);
    if (!result.ok) {
      showProblems(file.name, result.problems);
      return;
    }
    const load = () =>
      unlessUnsaved(`Import ${file.name}?`, () => {
        // The imported file is not in the workspace yet: saving asks for a name.
        loadDocument(result.doc, { fileName: null });
        notify('info', `Imported ${file.name}`);
      });
    void api()
      .call('document.validate', { document: result.doc as unknown as Record<string, unknown> })
      .then(
        (checked) => {
          if (checked.ok) load();
          else
            set({
              importProblems: {
                source: file.name,
                problems: checked.problems,
                openAnyway: () => {
                  set({ importProblems: null });
                  load();
                },
              },
            });
        },
        (error: Error) => notify('error', `Could not check ${file.name}: ${error.message}`),
      );
  });
  reader.addEventListener('error', () => notify('error', `Could not read ${file.name}`));
  reader.readAsText(file);
}

/**
 * Downloads the document as a file to share. The backend writes it: it refuses a document that
 * holds a key (naming where) and adds a manifest of the providers, keys, models and inputs the
 * society needs, which the notice sums up.
 */
export async function exportFile(): Promise<void> {
  let exported: ApiResult<'document.export'>;
  try {
    exported = await api().call('document.export', {
      document: currentDocument() as unknown as Record<string, unknown>,
    });
  } catch (error) {
    notify('error', (error as Error).message);
    return;
  }
  const name = suggestedFileName();
  const url = URL.createObjectURL(new Blob([exported.text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  const { providers, problems } = exported.manifest;
  const keys = providers.flatMap((p) => (p.keyVariable ? [p.keyVariable] : []));
  notify(
    'info',
    `Exported ${name}: needs ${providers.map((p) => p.name).join(', ') || 'no provider'}${
      keys.length ? ` (keys: ${[...new Set(keys)].join(', ')})` : ''
    }; no key is in the file.${problems ? ` It has ${plural(problems, 'problem')} to fix.` : ''}`,
  );
}
