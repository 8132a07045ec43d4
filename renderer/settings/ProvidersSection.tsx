import { type FormEvent, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { currentDestination, redirectsKey } from '../../app/api/provider-change.ts';
import { api } from '../api.ts';
import { desktopBridge } from '../transport-ipc.ts';

type ProviderList = ApiResult<'settings.providers.list'>;
type Profile = ProviderList['custom'][number];

interface Draft {
  name: string;
  baseUrl: string;
  apiKeyEnv: string;
  concurrency: string;
}

const EMPTY: Draft = { name: '', baseUrl: '', apiKeyEnv: '', concurrency: '' };

function draftOf(p: Profile): Draft {
  return {
    name: p.name,
    baseUrl: p.baseUrl ?? '',
    apiKeyEnv: p.apiKeyEnv ?? '',
    concurrency: p.concurrency === undefined ? '' : String(p.concurrency),
  };
}

function ProfileRows({
  profiles,
  builtin,
  overridden,
  onEdit,
  onRemove,
}: {
  profiles: Profile[];
  builtin: boolean;
  overridden?: ReadonlySet<string>;
  onEdit?: (p: Profile) => void;
  onRemove?: (p: Profile) => void;
}) {
  return (
    <>
      {profiles.map((p) => (
        <tr key={`${builtin}-${p.name}`} data-testid={`provider-row-${p.name}`}>
          <td className="code">{p.name}</td>
          <td className="code settings-url">{p.baseUrl ?? 'in-process'}</td>
          <td className="code">{p.apiKeyEnv ?? <span className="muted">none</span>}</td>
          <td className="num">{p.concurrency ?? ''}</td>
          <td>
            {builtin ? (
              <span className="muted small">
                built in{overridden?.has(p.name) ? ' · overridden by yours' : ''}
              </span>
            ) : (
              <span className="row settings-actions">
                <button
                  type="button"
                  data-testid={`provider-edit-${p.name}`}
                  onClick={() => onEdit?.(p)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  className="danger"
                  data-testid={`provider-remove-${p.name}`}
                  onClick={() => onRemove?.(p)}
                >
                  Remove
                </button>
              </span>
            )}
          </td>
        </tr>
      ))}
    </>
  );
}

/** The question the desktop app asks before a provider sends a key somewhere new. */
function keyRedirectQuestion(
  name: string,
  keyBefore: string | undefined,
  after: { baseUrl: string; apiKeyEnv?: string },
): string {
  const key = after.apiKeyEnv ?? keyBefore;
  return after.apiKeyEnv
    ? `Provider "${name}" will send your key ${key} to ${after.baseUrl}. Only do this for a server you trust. Continue?`
    : `Provider "${name}" used your key ${key}; it will now call ${after.baseUrl} instead, without a key. Continue?`;
}

/**
 * Provider profiles: the built-in ones (read-only) and the user's own OpenAI-compatible servers,
 * which the backend validates exactly as `society providers --add` does (it refuses anything
 * that looks like a key) and keeps in the store, so the CLI sees them too.
 */
export function ProvidersSection({
  providers,
  onChange,
}: {
  providers: ProviderList | null;
  onChange: (list: ProviderList) => void;
}) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const overridden = new Set(providers?.custom.map((p) => p.name));

  const field = (key: keyof Draft) => ({
    value: draft[key],
    onChange: (e: { target: { value: string } }) =>
      setDraft((d) => ({ ...d, [key]: e.target.value })),
  });

  const reset = () => {
    setDraft(EMPTY);
    setEditing(null);
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const concurrency = draft.concurrency.trim();
    if (concurrency && !/^\d+$/.test(concurrency)) {
      setError('concurrency: a whole number of calls at once');
      return;
    }
    const profile = {
      name: draft.name.trim(),
      baseUrl: draft.baseUrl.trim(),
      ...(draft.apiKeyEnv.trim() ? { apiKeyEnv: draft.apiKeyEnv.trim() } : {}),
      ...(concurrency ? { concurrency: Number(concurrency) } : {}),
      ...(editing ? { previousName: editing } : {}),
    };
    // Where a key would go somewhere new, the desktop app asks first (app/api/provider-change.ts);
    // the studio's backend refuses such a change and says which command makes it instead.
    const before = providers ? currentDestination(profile.name, providers) : undefined;
    if (
      desktopBridge() &&
      redirectsKey(before, { kind: 'openai-compatible', ...profile }) &&
      !window.confirm(keyRedirectQuestion(profile.name, before?.apiKeyEnv, profile))
    ) {
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onChange(await api().call('settings.providers.save', profile));
      reset();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = async (p: Profile) => {
    setError(null);
    try {
      onChange(await api().call('settings.providers.remove', { name: p.name }));
      if (editing === p.name) reset();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <section className="settings-section" id="settings-providers" data-testid="settings-providers">
      <h3>Providers</h3>
      <p className="muted small">
        A document's model profiles name a provider; how to reach it is yours. Add any server that
        speaks the OpenAI chat API (Ollama, LM Studio, vLLM, llama.cpp, a lab server). A provider
        names the environment variable holding its key, never the key.
      </p>
      {desktopBridge() ? null : (
        <p className="muted small" data-testid="provider-key-note">
          Here in the browser, a provider that uses a key is added or repointed from a terminal (
          <code>society providers --add NAME=URL --key-env VAR</code>) or in the desktop app, so no
          other page can send your key elsewhere.
        </p>
      )}
      {providers === null ? <p className="muted">Loading…</p> : null}
      {providers ? (
        <table className="settings-table" data-testid="provider-list">
          <thead>
            <tr>
              <th>name</th>
              <th>base URL</th>
              <th>key variable</th>
              <th className="num">at once</th>
              <th />
            </tr>
          </thead>
          <tbody>
            <ProfileRows
              profiles={providers.custom}
              builtin={false}
              onEdit={(p) => {
                setDraft(draftOf(p));
                setEditing(p.name);
                setError(null);
              }}
              onRemove={remove}
            />
            <ProfileRows profiles={providers.builtin} builtin overridden={overridden} />
          </tbody>
        </table>
      ) : null}
      <form
        className="settings-form"
        data-testid="provider-form"
        onSubmit={submit}
        autoComplete="off"
      >
        <h4>{editing ? `Edit ${editing}` : 'Add an OpenAI-compatible provider'}</h4>
        <div className="settings-grid">
          <label>
            name
            <input
              type="text"
              placeholder="lab"
              required
              spellCheck={false}
              data-testid="provider-form-name"
              {...field('name')}
            />
          </label>
          <label>
            base URL
            <input
              type="text"
              placeholder="http://10.0.0.5:8000/v1"
              required
              spellCheck={false}
              data-testid="provider-form-url"
              {...field('baseUrl')}
            />
          </label>
          <label>
            key variable (optional)
            <input
              type="text"
              placeholder="LAB_TOKEN"
              spellCheck={false}
              data-testid="provider-form-key-env"
              {...field('apiKeyEnv')}
            />
          </label>
          <label>
            calls at once (optional)
            <input
              type="text"
              inputMode="numeric"
              placeholder="4"
              data-testid="provider-form-concurrency"
              {...field('concurrency')}
            />
          </label>
        </div>
        {error ? (
          <p className="errors" role="alert" data-testid="provider-form-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          {editing ? (
            <button type="button" data-testid="provider-form-cancel" onClick={reset}>
              Cancel
            </button>
          ) : null}
          <button
            type="submit"
            className="primary"
            disabled={busy}
            data-testid="provider-form-save"
          >
            {editing ? 'Save changes' : 'Add provider'}
          </button>
        </div>
      </form>
    </section>
  );
}
