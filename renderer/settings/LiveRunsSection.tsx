import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api.ts';

/**
 * The threshold above which Run live shows its estimate and asks before anything is sent (the
 * backend keeps it, and refuses a live run above it that was not agreed to).
 */
export function LiveRunsSection() {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api()
      .call('settings.liveRuns.get', {})
      .then((s) => setValue(String(s.askAboveUsd)))
      .catch((e: Error) => setError(e.message));
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const askAboveUsd = Number(value);
    if (value.trim() === '' || !Number.isFinite(askAboveUsd) || askAboveUsd < 0) {
      setError('the threshold is an amount in dollars, 0 or more');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const stored = await api().call('settings.liveRuns.set', { askAboveUsd });
      setValue(String(stored.askAboveUsd));
      setSaved(true);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="settings-section" id="settings-live-runs" data-testid="settings-live-runs">
      <h3>Live runs</h3>
      <p className="muted small">
        Run live calls the models with your keys. When a run's worst-case estimate (the one{' '}
        <code>society run FILE --estimate</code> prints) is above this amount, the studio shows the
        estimate and asks before sending anything. Models without a price count nothing.
      </p>
      <form className="settings-form" data-testid="live-runs-form" onSubmit={submit}>
        <label className="settings-threshold">
          <span>Ask before a live run estimated above ($)</span>
          <input
            type="number"
            min={0}
            step="any"
            required
            data-testid="live-threshold"
            value={value}
            onChange={(e) => {
              setSaved(false);
              setValue(e.target.value);
            }}
          />
        </label>
        {error ? (
          <p className="errors" role="alert" data-testid="live-threshold-error">
            {error}
          </p>
        ) : null}
        <div className="row end">
          {saved ? (
            <span className="ok small" data-testid="live-threshold-saved">
              Saved
            </span>
          ) : null}
          <button
            type="submit"
            className="primary"
            disabled={busy}
            data-testid="live-threshold-save"
          >
            Save threshold
          </button>
        </div>
      </form>
    </section>
  );
}
