/**
 * A Monaco editor for one text: a prompt, a role, a transform template, or JSON. It is a
 * controlled field — `value` in, `onChange` out on every edit — and it stays in step when the
 * value changes from elsewhere (undo, the raw JSON view) without moving the cursor of someone
 * typing. Loaded lazily with Monaco (see `setup.ts`).
 */
import Editor, { type OnMount } from '@monaco-editor/react';
import { memo, useEffect, useRef } from 'react';
import { useTheme } from '../../theme.ts';
import { type monaco, provideSlotSources, THEMES } from './setup.ts';
import './code-editor.css';
import type { SlotSources } from './templateLanguage.ts';

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  language: string;
  /** Stable per field (node id + field path): keeps each field's own model and undo stack. */
  path: string;
  /** For templates: what `{{` completes to. Read at completion time, so it is always current. */
  slotSources?: () => SlotSources;
  /** Lines shown before the editor scrolls; it grows with its content up to this. */
  maxLines?: number;
  minLines?: number;
  placeholder?: string;
  ariaLabel: string;
  onBlur?: () => void;
}

const LINE_HEIGHT = 18;

function CodeEditorImpl({
  value,
  onChange,
  language,
  path,
  slotSources,
  maxLines = 16,
  minLines = 3,
  placeholder,
  ariaLabel,
  onBlur,
}: CodeEditorProps) {
  const theme = useTheme();
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const containerRef = useRef<HTMLDivElement | null>(null);
  const sourcesRef = useRef(slotSources);
  sourcesRef.current = slotSources;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const onBlurRef = useRef(onBlur);
  onBlurRef.current = onBlur;

  const fitHeight = () => {
    const editor = editorRef.current;
    const el = containerRef.current;
    if (!editor || !el) return;
    const lines = Math.min(maxLines, Math.max(minLines, editor.getModel()?.getLineCount() ?? 1));
    const height = lines * LINE_HEIGHT + 8;
    if (el.style.height !== `${height}px`) {
      el.style.height = `${height}px`;
      editor.layout();
    }
  };

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    const model = editor.getModel();
    const cleanups: Array<() => void> = [];
    if (model) {
      cleanups.push(provideSlotSources(model, () => sourcesRef.current?.() ?? EMPTY_SOURCES));
    }
    const changes = editor.onDidChangeModelContent(() => {
      fitHeight();
      onChangeRef.current(editor.getValue());
    });
    const blurs = editor.onDidBlurEditorText(() => onBlurRef.current?.());
    cleanups.push(
      () => changes.dispose(),
      () => blurs.dispose(),
    );
    editor.onDidDispose(() => {
      for (const c of cleanups) c();
    });
    fitHeight();
  };

  // A value changed elsewhere (undo, JSON view, another field) replaces the text as one edit,
  // so Monaco's own undo still works and the cursor is kept where it can be.
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!editor || !model || model.getValue() === value) return;
    editor.pushUndoStop();
    editor.executeEdits('society', [{ range: model.getFullModelRange(), text: value }]);
    editor.pushUndoStop();
  }, [value]);

  return (
    <div
      ref={containerRef}
      // `nokey`: React Flow and the app's shortcuts leave keys typed here alone (Space, Delete).
      className="code-editor nokey"
      style={{ height: `${minLines * LINE_HEIGHT + 8}px` }}
    >
      <Editor
        defaultValue={value}
        path={path}
        language={language}
        theme={THEMES[theme]}
        onMount={onMount}
        loading={<div className="code-editor-loading">Loading editor…</div>}
        options={{
          ariaLabel,
          placeholder,
          minimap: { enabled: false },
          lineNumbers: 'off',
          glyphMargin: false,
          folding: language === 'json',
          lineDecorationsWidth: 6,
          lineNumbersMinChars: 0,
          wordWrap: 'on',
          wrappingIndent: 'same',
          scrollBeyondLastLine: false,
          fontSize: 12,
          lineHeight: LINE_HEIGHT,
          renderLineHighlight: 'none',
          overviewRulerLanes: 0,
          hideCursorInOverviewRuler: true,
          scrollbar: { alwaysConsumeMouseWheel: false, verticalScrollbarSize: 8 },
          fixedOverflowWidgets: true,
          automaticLayout: true,
          tabSize: 2,
          quickSuggestions: language === 'json' ? true : { other: true, strings: true },
          suggestOnTriggerCharacters: true,
          wordBasedSuggestions: 'off',
          contextmenu: true,
        }}
      />
    </div>
  );
}

const EMPTY_SOURCES: SlotSources = {
  slots: [],
  upstream: [],
  documentInputs: [],
  replicaNames: [],
};

export const CodeEditor = memo(CodeEditorImpl);
export default CodeEditor;
