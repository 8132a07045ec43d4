import { lazy, Suspense, useEffect, useId, useState } from 'react';

/** Monaco arrives with the first JSON view opened, never with the canvas. */
const CodeEditor = lazy(() => import('./monaco/CodeEditor.tsx'));

export type ApplyResult = null | string | string[];

/**
 * A JSON view in Monaco that follows `value` until someone edits it, then applies on request.
 * Invalid JSON (or a value `onApply` refuses) shows the reason and changes nothing.
 */
export function JsonEditor({
  label,
  value,
  onApply,
  testId,
  rows = 8,
  applyLabel = 'Apply',
}: {
  label: string;
  value: unknown;
  /** Returns null when applied, or what is wrong. */
  onApply: (parsed: unknown, text: string) => ApplyResult;
  testId: string;
  rows?: number;
  applyLabel?: string;
}) {
  const shown = value === undefined ? '' : JSON.stringify(value, null, 2);
  const [text, setText] = useState(shown);
  const [edited, setEdited] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const id = useId();

  useEffect(() => {
    if (!edited) setText(shown);
  }, [shown, edited]);

  const apply = () => {
    let parsed: unknown;
    if (text.trim() === '') parsed = undefined;
    else {
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        setErrors([`not valid JSON: ${(error as Error).message}`]);
        return;
      }
    }
    const result = onApply(parsed, text);
    if (result === null) {
      setErrors([]);
      setEdited(false);
    } else setErrors(Array.isArray(result) ? result : [result]);
  };

  const revert = () => {
    setEdited(false);
    setErrors([]);
    setText(shown);
  };

  return (
    <div className="json-editor">
      <div className="label" id={id}>
        {label}
      </div>
      <div data-testid={testId}>
        <Suspense
          fallback={
            <div className="code-editor-loading" style={{ height: `${rows * 18 + 8}px` }}>
              Loading editor…
            </div>
          }
        >
          <CodeEditor
            value={text}
            onChange={(t) => {
              if (t === text) return;
              setText(t);
              setEdited(true);
            }}
            language="json"
            path={`json/${testId}.json`}
            minLines={rows}
            maxLines={Math.max(rows, 30)}
            ariaLabel={label}
          />
        </Suspense>
      </div>
      <div className="row">
        <button type="button" onClick={apply} disabled={!edited} data-testid={`${testId}-apply`}>
          {applyLabel}
        </button>
        <button type="button" onClick={revert} disabled={!edited} data-testid={`${testId}-revert`}>
          Revert
        </button>
      </div>
      {errors.length > 0 ? (
        <ul className="errors" data-testid={`${testId}-error`} role="alert">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
