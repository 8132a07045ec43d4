import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api.ts';
import { SettingsList, useSettingsChange } from './SettingsList.tsx';

/**
 * The origins documents may contact (a simulator's URL): none until the person allows one here,
 * with `society hosts --allow`, or from the prompt a run shows when it needs one. The backend
 * keeps them (the same setting the CLI reads) and checks what is typed.
 */
export function HostsSection() {
  const [origins, setOrigins] = useState<string[] | null>(null);
  const [value, setValue] = useState('');
  const { busy, error, setError, run } = useSettingsChange();
  useEffect(() => {
    api()
      .call('settings.hosts.list', {})
      .then((s) => setOrigins(s.origins))
      .catch((e: Error) => setError(e.message));
  }, [setError]);

  const change = async (
    method: 'settings.hosts.allow' | 'settings.hosts.revoke',
    origin: string,
  ) => {
    const done = await run(
      () => api().call(method, { origin }),
      (s) => setOrigins(s.origins),
    );
    if (done && method === 'settings.hosts.allow') setValue('');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) void change('settings.hosts.allow', value.trim());
  };

  return (
    <SettingsList
      id="settings-hosts"
      testId="settings-hosts"
      title="Allowed hosts"
      intro={
        <>
          A document's simulator is contacted only at an origin you allow here (scheme://host:port;
          this machine's ports too), never because a document names it. The same list as{' '}
          <code>society hosts</code>.
        </>
      }
      items={origins}
      empty={{ text: 'No host allowed yet.', testId: 'hosts-none' }}
      listTestId="hosts-list"
      row={(origin) => (
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
      )}
      form={{
        testId: 'hosts-form',
        onSubmit: submit,
        fields: [
          {
            label: 'Origin',
            testId: 'host-origin',
            placeholder: 'http://127.0.0.1:5123',
            value,
            onChange: setValue,
          },
        ],
        submit: { label: 'Allow', testId: 'host-allow' },
      }}
      busy={busy}
      error={error}
      errorTestId="hosts-error"
    />
  );
}
