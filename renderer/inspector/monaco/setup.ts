/**
 * Monaco, bundled with the app and never fetched from a CDN: `loader.config({ monaco })` hands
 * @monaco-editor/react this build instead of letting it load one. Only what the inspector uses
 * is imported — the editor core, the interactive features (suggest, find, hover, folding,
 * brackets, multi-cursor, clipboard), JSON with its worker, and our template language — so the
 * bundle carries no TypeScript service or eighty unused grammars. Workers are Vite `?worker`
 * chunks served from the app's own origin, which the CSP's `worker-src 'self'` allows.
 *
 * This module is loaded lazily (the first time a prompt or JSON editor appears), so the canvas
 * never waits for it.
 */
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/editor/browser/coreCommands';
import 'monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard';
import 'monaco-editor/editor/contrib/comment/browser/comment';
import 'monaco-editor/editor/contrib/contextmenu/browser/contextmenu';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo';
import 'monaco-editor/editor/contrib/find/browser/findController';
import 'monaco-editor/editor/contrib/folding/browser/folding';
import 'monaco-editor/editor/contrib/format/browser/formatActions';
import 'monaco-editor/editor/contrib/hover/browser/hoverContribution';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor';
import 'monaco-editor/editor/contrib/placeholderText/browser/placeholderText.contribution';
import 'monaco-editor/editor/contrib/snippet/browser/snippetController2';
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/editor/contrib/wordHighlighter/browser/wordHighlighter';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations';
import 'monaco-editor/editor/common/standaloneStrings';
import 'monaco-editor/language/json/monaco.contribution';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';
import {
  type SlotSources,
  type SlotSuggestion,
  TEMPLATE_LANGUAGE,
  templateContextAt,
  templateLanguageConfiguration,
  templateMonarch,
  templateSuggestions,
} from './templateLanguage.ts';

declare global {
  interface Window {
    MonacoEnvironment?: monaco.Environment;
  }
}

window.MonacoEnvironment = {
  getWorker: (_workerId: string, label: string) =>
    label === 'json' ? new JsonWorker() : new EditorWorker(),
};

/**
 * Monaco's colour themes, one per studio theme (renderer/theme.ts), matched to its palette; slots
 * stand out in the prompt. Monaco takes literal colours, not CSS properties.
 */
export const THEMES = { dark: 'society-dark', light: 'society-light' } as const;

monaco.editor.defineTheme(THEMES.dark, {
  base: 'vs-dark',
  inherit: true,
  rules: [
    { token: 'delimiter.slot', foreground: 'c792ea', fontStyle: 'bold' },
    { token: 'variable.slot', foreground: 'ffcb6b', fontStyle: 'bold' },
    { token: 'delimiter.tag', foreground: '82aaff' },
    { token: 'keyword.filter', foreground: '89ddff' },
    { token: 'keyword', foreground: '82aaff' },
  ],
  colors: {
    'editor.background': '#12141a',
    'editorGutter.background': '#12141a',
  },
});

monaco.editor.defineTheme(THEMES.light, {
  base: 'vs',
  inherit: true,
  rules: [
    { token: 'delimiter.slot', foreground: '7a35c4', fontStyle: 'bold' },
    { token: 'variable.slot', foreground: '855d00', fontStyle: 'bold' },
    { token: 'delimiter.tag', foreground: '1f5fbf' },
    { token: 'keyword.filter', foreground: '0a7369' },
    { token: 'keyword', foreground: '1f5fbf' },
  ],
  colors: {
    'editor.background': '#ffffff',
    'editorGutter.background': '#ffffff',
  },
});

monaco.languages.register({ id: TEMPLATE_LANGUAGE, aliases: ['Prompt template'] });
monaco.languages.setMonarchTokensProvider(
  TEMPLATE_LANGUAGE,
  templateMonarch as unknown as monaco.languages.IMonarchLanguage,
);
monaco.languages.setLanguageConfiguration(TEMPLATE_LANGUAGE, templateLanguageConfiguration);

/** Each open template editor's model, by URI, mapped to where its suggestions come from. */
const sourcesByModel = new Map<string, () => SlotSources>();

/** Tells the completion provider what a template editor's node can name; returns the undo. */
export function provideSlotSources(model: monaco.editor.ITextModel, sources: () => SlotSources) {
  const key = model.uri.toString();
  sourcesByModel.set(key, sources);
  return () => {
    if (sourcesByModel.get(key) === sources) sourcesByModel.delete(key);
  };
}

const KIND: Record<SlotSuggestion['kind'], monaco.languages.CompletionItemKind> = {
  slot: monaco.languages.CompletionItemKind.Variable,
  upstream: monaco.languages.CompletionItemKind.Reference,
  replica: monaco.languages.CompletionItemKind.Constant,
  reserved: monaco.languages.CompletionItemKind.Module,
  filter: monaco.languages.CompletionItemKind.Function,
};

monaco.languages.registerCompletionItemProvider(TEMPLATE_LANGUAGE, {
  triggerCharacters: ['{', ' ', '|'],
  provideCompletionItems(model, position) {
    const sources = sourcesByModel.get(model.uri.toString());
    if (!sources) return { suggestions: [] };
    const before = model.getValueInRange({
      startLineNumber: 1,
      startColumn: 1,
      endLineNumber: position.lineNumber,
      endColumn: position.column,
    });
    const context = templateContextAt(before);
    const word = model.getWordUntilPosition(position);
    const range = {
      startLineNumber: position.lineNumber,
      endLineNumber: position.lineNumber,
      startColumn: word.startColumn,
      endColumn: word.endColumn,
    };
    const suggestions = templateSuggestions(context, sources()).map((s, i) => ({
      label: s.label,
      kind: KIND[s.kind],
      detail: s.detail,
      insertText: s.label,
      range,
      // Keep our order (the node's own slots first) rather than Monaco's alphabetical one.
      sortText: String(i).padStart(3, '0'),
    }));
    return { suggestions };
  },
});

loader.config({ monaco });

export { monaco };
