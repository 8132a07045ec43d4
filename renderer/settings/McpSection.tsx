import { type FormEvent, useEffect, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';

type Profiles = ApiResult<'settings.mcp.list'>['profiles'];

/**
 * MCP servers whose tools agents may use (the same profiles as `society mcp`): listed, HTTP ones
 * added by URL with a header read from an environment variable, never its value. A server that
 * runs a program is added from a terminal (`society mcp --add NAME --command …`), not here.
 */
export function McpSection() {
  const [profiles, setProfiles] = useState<Profiles | null>(null);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [header, setHeader] = useState('');
  const [variable, setVariable] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api()
      .call('settings.mcp.list', {})
      .then((s) => setProfiles(s.profiles))
      .catch((e: Error) => setError(e.message));
  }, []);

  const act = async (change: () => Promise<{ profiles: Profiles }>) => {
    setBusy(true);
    setError(null);
    try {
      setProfiles((await change()).profiles);
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const headers = header.trim() ? [{ name: header.trim(), env: variable.trim() }] : [];
    const added = await act(() =>
      api().call('settings.mcp.save', { name: name.trim(), url: url.trim(), headers }),
    );
    if (added) {
      setName('');
      setUrl('');
      setHeader('');
      setVariable('');
    }
  };

  return (
    <section className="settings-section" id="settings-mcp" data-testid="settings-mcp">
      <h3>MCP servers</h3>
      <p className="muted small">
        Servers whose tools a document's agents may use, by name (<code>{'{ "mcp": "NAME" }'}</code>
        ). A header's value is read from the variable you name when a run connects, never kept here.
        A server that runs a program is added from a terminal:{' '}
        <code>society mcp --add NAME --command "CMD ARGS"</code>.
      </p>
      {profiles === null ? <p className="muted">Loading…</p> : null}
      {profiles?.length === 0 ? (
        <p className="muted small" data-testid="mcp-none">
          No MCP server yet.
        </p>
      ) : null}
      {profiles?.length ? (
        <table className="settings-table" data-testid="mcp-list">
          <tbody>
            {profiles.map((p) => (
              <tr key={p.name} data-testid={`mcp-${p.name}`}>
                <td>{p.name}</td>
                <td className="code settings-url">
                  {p.transport === 'stdio' ? `runs ${p.where}` : p.where}
                </td>
                <td className="muted small">
                  {p.reads
                    .map((r) => `${r.name} from ${r.env}${r.set ? '' : ' (not set)'}`)
                    .join(', ')}
                </td>
                <td>
                  <span className="row settings-actions">
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      data-testid={`mcp-remove-${p.name}`}
                      onClick={() =>
                        void act(() => api().call('settings.mcp.remove', { name: p.name }))
                      }
                    >
                      Remove
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form className="settings-form" data-testid="mcp-form" onSubmit={(e) => void submit(e)}>
        <label>
          <span>Name</span>
          <input
            type="text"
            placeholder="tools"
            data-testid="mcp-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <label>
          <span>URL</span>
          <input
            type="text"
            placeholder="http://127.0.0.1:3001/mcp"
            data-testid="mcp-url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </label>
        <label>
          <span>Header (optional)</span>
          <input
            type="text"
            placeholder="Authorization"
            data-testid="mcp-header"
            value={header}
            onChange={(e) => setHeader(e.target.value)}
          />
        </label>
        <label>
          <span>Its value from the variable</span>
          <input
            type="text"
            placeholder="MY_SERVER_AUTH"
            data-testid="mcp-header-env"
            value={variable}
            onChange={(e) => setVariable(e.target.value)}
          />
        </label>
        {error ? (
          <p className="errors" role="alert" data-testid="mcp-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          <button type="submit" className="primary" disabled={busy} data-testid="mcp-add">
            Add
          </button>
        </div>
      </form>
    </section>
  );
}
