import { useCallback, useEffect, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { Modal } from '../files/Modals.tsx';
import { DefaultsSection } from './DefaultsSection.tsx';
import { loadModelDefaults } from './defaults.ts';
import { HostsSection } from './HostsSection.tsx';
import { KeysSection } from './KeysSection.tsx';
import { LiveRunsSection } from './LiveRunsSection.tsx';
import { McpSection } from './McpSection.tsx';
import { PricesSection } from './PricesSection.tsx';
import { ProvidersSection } from './ProvidersSection.tsx';
import { ThemeSection } from './ThemeSection.tsx';
import './settings.css';

type KeyStatus = ApiResult<'settings.keys'>[number];

const SECTIONS = [
  { id: 'settings-keys', label: 'Keys' },
  { id: 'settings-providers', label: 'Providers' },
  { id: 'settings-defaults', label: 'Default models' },
  { id: 'settings-prices', label: 'Prices' },
  { id: 'settings-live-runs', label: 'Live runs' },
  { id: 'settings-hosts', label: 'Allowed hosts' },
  { id: 'settings-mcp', label: 'MCP servers' },
  { id: 'settings-theme', label: 'Theme' },
] as const;

/**
 * Settings: keys, provider profiles, default models, the price table, when a live run asks
 * first, the hosts documents may contact and the MCP servers agents may use, all kept by the backend
 * (the store, or the key vault for keys); and the colour theme, kept by the browser. One scrolling page, so every control is there at once;
 * the side list jumps between sections.
 */
export function SettingsModal() {
  const [keys, setKeys] = useState<KeyStatus[] | null>(null);
  const [providers, setProviders] = useState<ApiResult<'settings.providers.list'> | null>(null);
  const [prices, setPrices] = useState<ApiResult<'settings.prices.get'> | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((e: Error) => setError(e.message), []);
  const loadKeys = useCallback(
    () => api().call('settings.keys', {}).then(setKeys).catch(fail),
    [fail],
  );
  useEffect(() => {
    loadKeys();
    api().call('settings.providers.list', {}).then(setProviders).catch(fail);
    api().call('settings.prices.get', {}).then(setPrices).catch(fail);
    loadModelDefaults();
  }, [loadKeys, fail]);

  const onKey = (status: KeyStatus) =>
    setKeys((list) => (list ?? []).map((k) => (k.name === status.name ? status : k)));

  const providerNames = [
    ...new Set([
      ...(providers?.builtin.map((p) => p.name) ?? []),
      ...(providers?.custom.map((p) => p.name) ?? []),
    ]),
  ];

  return (
    <Modal title="Settings" testId="settings-modal" wide>
      <div className="settings">
        <nav className="settings-nav" aria-label="Settings sections">
          {SECTIONS.map((s) => (
            <button
              key={s.id}
              type="button"
              className="link"
              data-testid={`settings-nav-${s.id.slice('settings-'.length)}`}
              onClick={() => document.getElementById(s.id)?.scrollIntoView({ block: 'start' })}
            >
              {s.label}
            </button>
          ))}
        </nav>
        <div className="settings-body">
          {error ? (
            <p className="errors" role="alert" data-testid="settings-error">
              {error}
            </p>
          ) : null}
          <KeysSection keys={keys} onStatus={onKey} />
          <ProvidersSection
            providers={providers}
            onChange={(list) => {
              setProviders(list);
              // A provider's key variable gets (or loses) its row among the keys.
              loadKeys();
            }}
          />
          <DefaultsSection providerNames={providerNames} />
          <PricesSection prices={prices} onChange={setPrices} />
          <LiveRunsSection />
          <HostsSection />
          <McpSection />
          <ThemeSection />
        </div>
      </div>
    </Modal>
  );
}
