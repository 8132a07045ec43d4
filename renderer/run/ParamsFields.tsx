import { useMemo } from 'react';
import type { ParamSpec } from '../../app/schema/params.ts';
import { type ParamField, paramFields, paramFieldValue } from '../model/params.ts';
import { useEditor } from '../store.ts';

/**
 * One typed control per template parameter of the document, filled with its default: a number
 * box within its bounds, a checkbox, a choice of its values, or a list as comma-separated text.
 * What the person sets is sent with the run (controller.ts); the document is not changed.
 */
export function ParamsFields() {
  const params = useEditor((s) => s.meta.params);
  const fields = useMemo(() => paramFields(params), [params]);
  const values = useEditor((s) => s.paramValues);
  if (fields.length === 0) return null;
  const setValue = (name: string, value: string | boolean) =>
    useEditor.setState((s) => ({ paramValues: { ...s.paramValues, [name]: value } }));
  return (
    <fieldset className="inputs-form params-form" data-testid="params-form">
      <legend>Parameters</legend>
      {fields.map((field) => (
        <div key={field.name} className="field">
          <label htmlFor={`run-param-${field.name}`}>
            {field.param.label ?? field.name}{' '}
            <span className="field-hint">
              {field.param.type}, default {formatDefault(field.param)}
            </span>
          </label>
          {field.param.description ? (
            <p className="muted small">{field.param.description}</p>
          ) : null}
          <ParamControl field={field} value={paramFieldValue(field, values)} onChange={setValue} />
        </div>
      ))}
    </fieldset>
  );
}

function ParamControl({
  field,
  value,
  onChange,
}: {
  field: ParamField;
  value: string | boolean;
  onChange: (name: string, value: string | boolean) => void;
}) {
  const { name, param } = field;
  const id = `run-param-${name}`;
  const testId = `param-${name}`;
  const text = typeof value === 'string' ? value : String(value);
  const set = (v: string | boolean) => onChange(name, v);
  switch (param.type) {
    case 'integer':
    case 'number':
      return (
        <input
          id={id}
          type="number"
          data-testid={testId}
          value={text}
          min={param.min}
          max={param.max}
          step={param.type === 'integer' ? 1 : 'any'}
          onChange={(e) => set(e.target.value)}
        />
      );
    case 'boolean':
      return (
        <input
          id={id}
          type="checkbox"
          data-testid={testId}
          checked={value === true}
          onChange={(e) => set(e.target.checked)}
        />
      );
    case 'enum':
      return (
        <select id={id} data-testid={testId} value={text} onChange={(e) => set(e.target.value)}>
          {param.values.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      );
    case 'list':
      return (
        <textarea
          id={id}
          rows={2}
          data-testid={testId}
          value={text}
          placeholder="comma-separated, or a JSON array"
          onChange={(e) => set(e.target.value)}
        />
      );
    case 'text':
      return (
        <input
          id={id}
          type="text"
          data-testid={testId}
          value={text}
          onChange={(e) => set(e.target.value)}
        />
      );
    default:
      return param satisfies never;
  }
}

function formatDefault(param: ParamSpec): string {
  return Array.isArray(param.default) ? `${param.default.length} items` : String(param.default);
}
