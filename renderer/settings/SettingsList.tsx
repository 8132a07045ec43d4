import { type FormEvent, type ReactNode, useState } from 'react';

/** One text field of a settings form. */
export interface SettingsField {
  label: string;
  testId: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  required?: boolean;
  inputMode?: 'decimal' | 'text';
  spellCheck?: boolean;
}

/** The form under a settings list: its fields, its button, and how it is laid out. */
export interface SettingsForm {
  testId: string;
  fields: SettingsField[];
  /** Shown between the fields and the button (a choice the fields depend on, say). */
  before?: ReactNode;
  submit: { label: string; testId: string };
  onSubmit: (e: FormEvent) => void;
  /**
   * `stacked` (default): the fields one under another, the error in the form above the button;
   * `inline`: the fields and the button in one row (the class `className` lays out), the error
   * under the form.
   */
  layout?: 'stacked' | 'inline';
  className?: string;
}

/**
 * A section of Settings that keeps a list (allowed hosts, prices, MCP servers): a title and what
 * it is for, the list as a table (or a line when it is empty), what the caller adds under it,
 * and a form that adds to it, with the one error line of the last change.
 */
export function SettingsList<T>(props: {
  id: string;
  testId: string;
  title: string;
  intro: ReactNode;
  items: T[] | null;
  /** Said when the list is empty; without it an empty list shows an empty table. */
  empty?: { text: string; testId: string };
  listTestId: string;
  head?: ReactNode;
  row: (item: T) => ReactNode;
  children?: ReactNode;
  form: SettingsForm;
  busy: boolean;
  error: string | null;
  errorTestId: string;
}) {
  const { items, empty, form, error } = props;
  const errorLine = error ? (
    <p className="errors" role="alert" data-testid={props.errorTestId}>
      {error}
    </p>
  ) : null;
  const inline = form.layout === 'inline';
  const submit = (
    <button
      type="submit"
      className="primary"
      disabled={props.busy}
      data-testid={form.submit.testId}
    >
      {form.submit.label}
    </button>
  );
  const showTable = items !== null && (items.length > 0 || !empty);
  return (
    <section className="settings-section" id={props.id} data-testid={props.testId}>
      <h3>{props.title}</h3>
      <p className="muted small">{props.intro}</p>
      {items === null ? <p className="muted">Loading…</p> : null}
      {items?.length === 0 && empty ? (
        <p className="muted small" data-testid={empty.testId}>
          {empty.text}
        </p>
      ) : null}
      {showTable ? (
        <table className="settings-table" data-testid={props.listTestId}>
          {props.head ? <thead>{props.head}</thead> : null}
          <tbody>{items.map(props.row)}</tbody>
        </table>
      ) : null}
      {props.children}
      <form
        className={['settings-form', form.className].filter(Boolean).join(' ')}
        data-testid={form.testId}
        onSubmit={form.onSubmit}
      >
        {form.before}
        {form.fields.map((field) => (
          <label key={field.testId}>
            <span>{field.label}</span>
            <input
              type="text"
              placeholder={field.placeholder}
              required={field.required}
              inputMode={field.inputMode}
              spellCheck={field.spellCheck}
              data-testid={field.testId}
              value={field.value}
              onChange={(e) => field.onChange(e.target.value)}
            />
          </label>
        ))}
        {inline ? submit : null}
        {inline ? null : errorLine}
        {inline ? null : <div className="row end">{submit}</div>}
      </form>
      {inline ? errorLine : null}
    </section>
  );
}

/**
 * The busy flag and error line of a settings list: `run` makes one change, hands its answer to
 * `apply`, and resolves to whether it was made (its error shown when not).
 */
export function useSettingsChange() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async <R,>(change: () => Promise<R>, apply: (result: R) => void) => {
    setBusy(true);
    setError(null);
    try {
      apply(await change());
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
