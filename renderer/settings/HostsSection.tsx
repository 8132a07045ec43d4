import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api.ts';

/**
 * The origins documents may contact (a simulator's URL): none until the person allows one here,
 * with `society hosts --allow`, or from the prompt a run shows when it needs one. The backend
 * keeps them (the same setting the CLI reads) and checks what is typed.
 */
export function HostsSection() {
  const [origins, setOrigins] = useState<string[] | null>(null);
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api()
      .call('settings.hosts.list', {})
      .then((s) => setOrigins(s.origins))
      .catch((e: Error) => setError(e.message));
  }, []);

  const change = async (
    method: 'settings.hosts.allow' | 'settings.hosts.revoke',
    origin: string,
  ) => {
    setBusy(true);
    setError(null);
    try {
      setOrigins((await api().call(method, { origin })).origins);
      if (method === 'settings.hosts.allow') setValue('');
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) void change('settings.hosts.allow', value.trim());
  };

  return (
    <section className="settings-section" id="settings-hosts" data-testid="settings-hosts">
      <h3>Allowed hosts</h3>
      <p className="muted small">
        A document's simulator is contacted only at an origin you allow here (scheme://host:port;
        this machine's ports too), never because a document names it. The same list as{' '}
        <code>society hosts</code>.
      </p>
      {origins === null ? <p className="muted">Loading…</p> : null}
      {origins?.length === 0 ? (
        <p className="muted small" data-testid="hosts-none">
          No host allowed yet.
        </p>
      ) : null}
      {origins?.length ? (
        <table className="settings-table" data-testid="hosts-list">
          <tbody>
            {origins.map((origin) => (
              <tr key={origin} data-testid={`host-${origin}`}>
                <td className="code settings-url">{origin}</td>
                <td>
                  <span className="row settings-actions">
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      data-testid={`host-revoke-${origin}`}
                      onClick={() => void change('settings.hosts.revoke', origin)}
                    >
                      Revoke
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="settings-form" data-testid="hosts-form" onSubmit={submit}>
        <label>
          <span>Origin</span>
          <input
            type="text"
            placeholder="http://127.0.0.1:5123"
            data-testid="host-origin"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        </label>
        {error ? (
          <p className="errors" role="alert" data-testid="hosts-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          <button type="submit" className="primary" disabled={busy} data-testid="host-allow">
            Allow
          </button>
        </div>
      </form>
    </section>
  );
}
