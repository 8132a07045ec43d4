import { type FormEvent, useEffect, useState } from 'react';
import type { ModelDefaults } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { useModelDefaults } from './defaults.ts';

type Use = keyof ModelDefaults;

const USES: Array<{ use: Use; label: string; hint: string }> = [
  { use: 'text', label: 'Text', hint: 'agents, summaries, organizers and leaders' },
  { use: 'vision', label: 'Vision', hint: 'members that look at images' },
];

/**
 * The models the editor gives new documents (a `default` and a `vision` profile) and new agent
 * and summarize nodes. Existing documents keep their own profiles.
 */
export function DefaultsSection({ providerNames }: { providerNames: string[] }) {
  const stored = useModelDefaults((s) => s.defaults);
  const [draft, setDraft] = useState<ModelDefaults>(stored);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(stored), [stored]);

  const set = (use: Use, key: 'provider' | 'model', value: string) => {
    setSaved(false);
    setDraft((d) => ({ ...d, [use]: { ...d[use], [key]: value } }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const defaults = await api().call('settings.defaults.set', {
        text: { provider: draft.text.provider, model: draft.text.model.trim() },
        vision: { provider: draft.vision.provider, model: draft.vision.model.trim() },
      });
      useModelDefaults.setState({ defaults, loaded: true });
      setSaved(true);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" id="settings-defaults" data-testid="settings-defaults">
      <h3>Default models</h3>
      <p className="muted small">
        A new document gets a <code>default</code> profile (text) and a <code>vision</code> profile
        from these; a new agent or summarize node uses the document's profile for the text model.
      </p>
      <form className="settings-form" data-testid="defaults-form" onSubmit={submit}>
        {USES.map(({ use, label, hint }) => {
          const names = providerNames.includes(draft[use].provider)
            ? providerNames
            : [draft[use].provider, ...providerNames];
          return (
            <div className="settings-default" key={use}>
              <span>
                {label} <span className="muted small">{hint}</span>
              </span>
              <select
                aria-label={`${label} provider`}
                data-testid={`defaults-${use}-provider`}
                value={draft[use].provider}
                onChange={(e) => set(use, 'provider', e.target.value)}
              >
                {names.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
              <input
                type="text"
                aria-label={`${label} model`}
                spellCheck={false}
                required
                data-testid={`defaults-${use}-model`}
                value={draft[use].model}
                onChange={(e) => set(use, 'model', e.target.value)}
              />
            </div>
          );
        })}
        {error ? (
          <p className="errors" role="alert" data-testid="defaults-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          {saved ? (
            <span className="ok small" data-testid="defaults-saved">
              Saved
            </span>
          ) : null}
          <button type="submit" className="primary" disabled={busy} data-testid="defaults-save">
            Save defaults
          </button>
        </div>
      </form>
    </section>
  );
}
