import { type FormEvent, useRef, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';

type KeyStatus = ApiResult<'settings.keys'>[number];

/**
 * One key: whether it is set, its last four characters, and a field to enter it.
 *
 * The field is uncontrolled on purpose: the key never enters React state. On submit its value is
 * read once, the field is emptied at once (which also resets React's value tracker, the only
 * other holder) and then replaced by a fresh element, and the value leaves in the request. After
 * that nothing in the page refers to it, so it does not survive the next garbage collection.
 */
function KeyRow({ status, onStatus }: { status: KeyStatus; onStatus: (s: KeyStatus) => void }) {
  const { name } = status;
  const input = useRef<HTMLInputElement>(null);
  const [field, setField] = useState(0);
  const [typed, setTyped] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const send = async (e: FormEvent) => {
    e.preventDefault();
    const element = input.current;
    if (!element?.value) return;
    const value = element.value;
    element.value = '';
    setField((n) => n + 1);
    setTyped(false);
    setError(null);
    setBusy(true);
    try {
      onStatus(await api().call('settings.setKey', { name, value }));
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const clear = async () => {
    setError(null);
    try {
      onStatus(await api().call('settings.clearKey', { name }));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const id = `settings-key-${name}`;
  return (
    <form className="settings-key" onSubmit={send} autoComplete="off">
      <label htmlFor={id} className="code">
        {name}
      </label>
      <span
        className={`settings-key-status${status.configured ? ' is-set' : ''}`}
        data-testid={`settings-key-status-${name}`}
      >
        {status.configured
          ? `set · …${status.last4 ?? ''}${status.source === 'environment' ? ' (from the environment)' : ''}`
          : 'not set'}
      </span>
      <input
        key={field}
        ref={input}
        id={id}
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder={status.configured ? 'enter a new key to replace it' : 'paste the key'}
        data-testid={`settings-key-input-${name}`}
        onInput={(e) => setTyped(e.currentTarget.value.length > 0)}
      />
      <button
        type="submit"
        className="primary"
        disabled={!typed || busy}
        data-testid={`settings-key-save-${name}`}
      >
        Save
      </button>
      <button
        type="button"
        disabled={!status.configured || status.source === 'environment'}
        title={
          status.source === 'environment'
            ? 'This key comes from the environment the studio was started in'
            : undefined
        }
        data-testid={`settings-key-clear-${name}`}
        onClick={clear}
      >
        Clear
      </button>
      {error ? (
        <p
          className="errors settings-row-error"
          role="alert"
          data-testid={`settings-key-error-${name}`}
        >
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** Keys go to the backend and stay there; the page only ever learns the last four characters. */
export function KeysSection({
  keys,
  onStatus,
}: {
  keys: KeyStatus[] | null;
  onStatus: (s: KeyStatus) => void;
}) {
  return (
    <section className="settings-section" id="settings-keys" data-testid="settings-keys">
      <h3>Keys</h3>
      <p className="muted small">
        Kept by the studio, never in documents, exports or this page: once sent, a key shows only as
        its last four characters. Simulated runs and template cassettes need none. A provider you
        add below that names a key variable gets a row here.
      </p>
      {keys === null ? <p className="muted">Loading…</p> : null}
      {keys?.map((status) => (
        <KeyRow key={status.name} status={status} onStatus={onStatus} />
      ))}
    </section>
  );
}
