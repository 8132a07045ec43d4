import {
  type ChangeEvent,
  lazy,
  type ReactNode,
  Suspense,
  useCallback,
  useId,
  useMemo,
  useState,
} from 'react';
import { CATALOGUE, catalogueEntry } from '../../app/experts/catalogue.ts';
import type { FieldEditorMeta } from '../../app/node-sdk/define.ts';
import { isParamRef } from '../../app/schema/params.ts';
import { viewOf } from '../editor/nodeViews.ts';
import type { FlowNode } from '../model/document.ts';
import { parseNodeData, slotSourcesOf } from '../model/ports.ts';
import { specOf } from '../model/registry.ts';
import {
  describeFields,
  type FieldDesc,
  getIn,
  modalityChoices,
  setIn,
  shownFields,
} from '../model/schemaForm.ts';
import { updateNodeData, useEditor } from '../store.ts';
import { LinesField, ReplicateField, replicateAsLines } from './ListFields.tsx';

/** The datalist that offers values for a text field, by the editor it declares. */
const SUGGESTIONS: Partial<Record<NonNullable<FieldEditorMeta['editor']>, string>> = {
  'model-profile': 'model-profiles',
  'expert-module': 'expert-modules',
  'expert-model': 'expert-models',
};

/** The catalogue's models for an expert node's module: its default first. */
function expertModels(data: unknown): string[] {
  const module = (data as { module?: unknown } | undefined)?.module;
  const entry = typeof module === 'string' ? catalogueEntry(module) : undefined;
  return entry ? [entry.models.default, ...entry.models.alternates] : [];
}

/**
 * A choice of the document's library graphs (`graphs`); a name the library lacks stays shown,
 * marked, so an unresolved reference is visible rather than silently replaced.
 */
function LibraryGraphSelect({
  id,
  testId,
  value,
  onChange,
}: {
  id: string;
  testId: string;
  value: string;
  onChange: (name: string) => void;
}) {
  const names = useEditor((s) => Object.keys(s.meta.graphs ?? {}).join('\u0000'));
  const list = names.split('\u0000').filter(Boolean);
  const known = list.includes(value);
  return (
    <select id={id} data-testid={testId} value={value} onChange={(e) => onChange(e.target.value)}>
      {known ? null : <option value={value}>{value || '—'} (not in the library)</option>}
      {list.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      ))}
    </select>
  );
}

/** Monaco arrives with the first prompt editor shown, never with the canvas. */
const CodeEditor = lazy(() => import('./monaco/CodeEditor.tsx'));

/** The form for a node's data, generated from its spec's zod schema. */
export function NodeForm({ node }: { node: FlowNode }) {
  const spec = specOf(node.type);
  const fields = useMemo(() => (spec ? describeFields(spec.data) : []), [spec]);
  const parsed = parseNodeData(node.type, node.data);
  const profiles = useEditor((s) => Object.keys(s.meta.models ?? {}).join('\u0000'));

  // The node type's own part of the inspector (its view.tsx), when it has one.
  const Section = viewOf(node.type)?.inspector;

  if (!spec) return <p className="muted">No form: the node type "{node.type}" is unknown.</p>;

  // Schema issues first; the spec's own checks only make sense on valid data.
  const problems = parsed.ok
    ? (spec.check?.(parsed.data) ?? []).map((p) => ({
        path: p.path.map(String),
        message: p.message,
      }))
    : parsed.issues.map((i) => ({ path: i.path.map(String), message: i.message }));
  const problemsAt = (path: readonly string[]) =>
    problems.filter((p) => p.path.join('.') === path.join('.')).map((p) => p.message);
  // What decides which fields show: the data with defaults, a parameter-bound value as bound
  // (which a run may set either way, so it hides nothing).
  const values = { ...parsed.data, ...paramBound(node.data) };
  const shown = shownFields(fields, values);
  // A hidden field's problems still show, in the list below the form.
  const shownPaths = new Set(
    shown.flatMap((f) => [
      f.path.join('.'),
      ...(f.field.kind === 'object'
        ? shownFields(f.field.fields, getIn(parsed.data, f.path)).map((c) => c.path.join('.'))
        : []),
    ]),
  );
  const other = problems.filter((p) => !shownPaths.has(p.path.join('.')));

  const write = (path: readonly string[], value: unknown) =>
    updateNodeData(
      node.id,
      setIn(node.data, path, value, parsed.data),
      `${node.id}:${path.join('.')}`,
    );

  return (
    <div className="node-form">
      <datalist id="expert-modules">
        {CATALOGUE.map((e) => (
          <option key={e.id} value={e.id} label={e.title} />
        ))}
      </datalist>
      <datalist id="expert-models">
        {expertModels(parsed.data).map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <datalist id="model-profiles">
        {profiles
          .split('\u0000')
          .filter(Boolean)
          .map((p) => (
            <option key={p} value={p} />
          ))}
      </datalist>
      {Section && parsed.ok ? <Section id={node.id} data={parsed.data} /> : null}
      {shown.map((f) => (
        <Field
          key={f.name}
          desc={f}
          raw={node.data}
          parsed={parsed.data}
          problemsAt={problemsAt}
          write={write}
          nodeId={node.id}
        />
      ))}
      {other.length > 0 ? (
        <ul className="errors" data-testid="node-problems">
          {other.map((p) => (
            <li key={`${p.path.join('.')}:${p.message}`}>
              {p.path.length ? `${p.path.join('.')}: ` : ''}
              {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The fields of `data` bound to a template parameter, as they are (`{ "$param": NAME }`). */
function paramBound(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, v]) => isParamRef(v)));
}

interface FieldProps {
  desc: FieldDesc;
  raw: Record<string, unknown>;
  parsed: Record<string, unknown>;
  problemsAt: (path: readonly string[]) => string[];
  write: (path: readonly string[], value: unknown) => void;
  nodeId: string;
}

function Field({ desc, raw, parsed, problemsAt, write, nodeId }: FieldProps) {
  const id = useId();
  const { field, path, name } = desc;
  const rawValue = getIn(raw, path);
  const value = rawValue !== undefined ? rawValue : getIn(parsed, path);
  const testId = `field-${path.join('.')}`;
  // A field bound to a template parameter is shown as such, never edited into a plain value.
  if (isParamRef(rawValue))
    return <ParamBoundField name={name} param={rawValue.$param} testId={testId} />;
  const problems = problemsAt(path);
  const hint = desc.hasDefault
    ? `default: ${JSON.stringify(desc.defaultValue)}`
    : desc.optional
      ? 'optional'
      : 'required';

  if (field.kind === 'object') {
    return (
      <fieldset className="field-group">
        <legend>{name}</legend>
        {shownFields(field.fields, getIn(parsed, path)).map((child) => (
          <Field
            key={child.name}
            desc={child}
            raw={raw}
            parsed={parsed}
            problemsAt={problemsAt}
            write={write}
            nodeId={nodeId}
          />
        ))}
      </fieldset>
    );
  }

  let input: ReactNode;
  switch (field.kind) {
    case 'string': {
      const text = typeof value === 'string' ? value : '';
      const set = (t: string) => write(path, t === '' && desc.optional ? undefined : t);
      const { editor = 'text', lines = 3, placeholder } = desc.meta;
      input =
        editor === 'code' ? (
          <CodeField
            testId={testId}
            nodeId={nodeId}
            path={path}
            value={text}
            onChange={set}
            label={name}
            language={desc.meta.language ?? 'liquid'}
            lines={lines}
            placeholder={placeholder}
          />
        ) : editor === 'modality' ? (
          <select
            id={id}
            data-testid={testId}
            value={text || String(desc.defaultValue ?? '')}
            onChange={(e) => set(e.target.value)}
          >
            {modalityChoices(text).map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        ) : editor === 'library-graph' ? (
          <LibraryGraphSelect id={id} testId={testId} value={text} onChange={set} />
        ) : editor === 'multiline' ? (
          <textarea
            id={id}
            rows={lines}
            data-testid={testId}
            value={text}
            placeholder={placeholder}
            onChange={(e: ChangeEvent<HTMLTextAreaElement>) => set(e.target.value)}
          />
        ) : (
          <input
            id={id}
            type="text"
            data-testid={testId}
            value={text}
            placeholder={placeholder}
            onChange={(e: ChangeEvent<HTMLInputElement>) => set(e.target.value)}
            list={SUGGESTIONS[editor]}
          />
        );
      break;
    }
    case 'number':
      input = (
        <NumberInput
          id={id}
          testId={testId}
          value={typeof value === 'number' ? value : undefined}
          integer={field.integer}
          min={field.min}
          max={field.max}
          onChange={(n) => write(path, n)}
        />
      );
      break;
    case 'boolean':
      input = (
        <input
          id={id}
          type="checkbox"
          data-testid={testId}
          checked={value === true}
          onChange={(e) => write(path, e.target.checked)}
        />
      );
      break;
    case 'enum':
      input = (
        <select
          id={id}
          data-testid={testId}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => write(path, e.target.value === '' ? undefined : e.target.value)}
        >
          {desc.optional || desc.hasDefault || value === undefined ? (
            <option value="">
              {desc.hasDefault ? `(default: ${String(desc.defaultValue)})` : '(none)'}
            </option>
          ) : null}
          {field.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case 'choice-or-number':
      input = (
        <>
          <input
            id={id}
            type="text"
            data-testid={testId}
            list={`${id}-options`}
            value={value === undefined ? '' : String(value)}
            onChange={(e) => {
              const t = e.target.value.trim();
              write(path, t === '' ? undefined : /^\d+$/.test(t) ? Number(t) : t);
            }}
          />
          <datalist id={`${id}-options`}>
            {field.options.map((o) => (
              <option key={o} value={o} />
            ))}
          </datalist>
        </>
      );
      break;
    case 'lines':
      input = Array.isArray(rawValue ?? []) ? (
        <LinesField
          id={id}
          testId={testId}
          value={((rawValue ?? []) as unknown[]).map(String)}
          onChange={(items) => write(path, items.length || !desc.optional ? items : undefined)}
        />
      ) : (
        <JsonField id={id} testId={testId} value={rawValue} onChange={(v) => write(path, v)} />
      );
      break;
    case 'replicate':
      input = replicateAsLines(rawValue) ? (
        <ReplicateField id={id} testId={testId} value={rawValue} onChange={(v) => write(path, v)} />
      ) : (
        <JsonField id={id} testId={testId} value={rawValue} onChange={(v) => write(path, v)} />
      );
      break;
    case 'json':
      input = (
        <JsonField id={id} testId={testId} value={rawValue} onChange={(v) => write(path, v)} />
      );
      break;
    default:
      field satisfies never;
  }

  return (
    <div className={`field field-${field.kind}${problems.length ? ' has-problem' : ''}`}>
      <label htmlFor={id}>
        {name}
        <span className="field-hint">{hint}</span>
      </label>
      {input}
      {problems.map((p) => (
        <div key={p} className="field-problem" role="alert">
          {p}
        </div>
      ))}
    </div>
  );
}

/**
 * A field whose value is `{ "$param": NAME }`: read-only, saying which parameter it follows and
 * that parameter's default (what the canvas shows); a run may set another value.
 */
function ParamBoundField({ name, param, testId }: { name: string; param: string; testId: string }) {
  const id = useId();
  const declared = useEditor((s) => s.meta.params?.[param]);
  const shown = declared
    ? Array.isArray(declared.default)
      ? declared.default.join(', ')
      : String(declared.default)
    : undefined;
  return (
    <div className={`field field-param${declared ? '' : ' has-problem'}`}>
      <label htmlFor={id}>
        {name}
        <span className="field-hint">bound to a parameter</span>
      </label>
      <output
        id={id}
        className="param-chip"
        data-testid={`${testId}-param`}
        title="Set its value for a run in the Inputs panel, or its default in the document's params"
      >
        parameter {param}
        {shown === undefined ? '' : ` = ${shown}`}
      </output>
      {declared ? null : (
        <div className="field-problem" role="alert">
          the document declares no parameter "{param}"
        </div>
      )}
    </div>
  );
}

/** A number box that lets people clear it or type "-" on the way to a number. */
function NumberInput({
  id,
  testId,
  value,
  integer,
  min,
  max,
  onChange,
}: {
  id: string;
  testId: string;
  value: number | undefined;
  integer: boolean;
  min?: number;
  max?: number;
  onChange: (n: number | undefined) => void;
}) {
  const [text, setText] = useState<string | null>(null);
  const finite = (n: number | undefined) => (n !== undefined && Number.isFinite(n) ? n : undefined);
  return (
    <input
      id={id}
      type="number"
      data-testid={testId}
      step={integer ? 1 : 'any'}
      min={finite(min)}
      max={finite(max)}
      value={text ?? (value === undefined ? '' : String(value))}
      onChange={(e) => {
        const t = e.target.value;
        setText(t);
        if (t.trim() === '') onChange(undefined);
        else if (!Number.isNaN(Number(t))) onChange(Number(t));
      }}
      onBlur={() => setText(null)}
    />
  );
}

/** A small JSON box for lists and records; applies as soon as the text is valid JSON. */
function JsonField({
  id,
  testId,
  value,
  onChange,
}: {
  id: string;
  testId: string;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const shown = value === undefined ? '' : JSON.stringify(value);
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <textarea
        id={id}
        className="code"
        rows={2}
        spellCheck={false}
        data-testid={testId}
        value={text ?? shown}
        placeholder="JSON"
        onChange={(e) => {
          const t = e.target.value;
          setText(t);
          if (t.trim() === '') {
            setError(null);
            onChange(undefined);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(t);
            setError(null);
            onChange(parsed);
          } catch (err) {
            setError(`not valid JSON yet: ${(err as Error).message}`);
          }
        }}
        onBlur={() => {
          if (!error) setText(null);
        }}
      />
      {error ? <div className="field-problem">{error}</div> : null}
    </>
  );
}

/**
 * A field in Monaco. A Liquid template (a prompt, a role) gets `{{ slot }}` highlighted, and
 * `{{` completing to the node's slots, what is wired into it, run inputs and replica names.
 */
function CodeField({
  testId,
  nodeId,
  path,
  value,
  onChange,
  label,
  language,
  lines,
  placeholder = '',
}: {
  testId: string;
  nodeId: string;
  path: readonly string[];
  value: string;
  onChange: (text: string) => void;
  label: string;
  language: NonNullable<FieldEditorMeta['language']>;
  lines: number;
  placeholder?: string | undefined;
}) {
  const sources = useCallback(() => {
    const { nodes, edges } = useEditor.getState();
    return slotSourcesOf(nodeId, nodes, edges);
  }, [nodeId]);
  const liquid = language === 'liquid';
  return (
    <div className="template-field" data-testid={testId} data-value={value}>
      <Suspense
        fallback={
          <div className="code-editor-loading" style={{ height: `${lines * 18 + 8}px` }}>
            Loading editor…
          </div>
        }
      >
        <CodeEditor
          value={value}
          onChange={onChange}
          language={liquid ? 'society-template' : language}
          path={`node/${nodeId}/${path.join('.')}.${liquid ? 'tpl' : language}`}
          slotSources={liquid ? sources : undefined}
          minLines={lines}
          ariaLabel={`${label} of ${nodeId}`}
          placeholder={placeholder}
        />
      </Suspense>
    </div>
  );
}
