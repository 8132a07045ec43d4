import { type FormEvent, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';

type PriceRow = ApiResult<'settings.prices.get'>[number];

const dollars = (n: number) => n.toFixed(3);

/** A non-negative number of dollars as typed, or undefined. */
function parseDollars(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$|^\.\d+$/.test(t)) return undefined;
  return Number(t);
}

/**
 * The price table costs, estimates and money budgets use: the built-in prices and the user's own
 * (`society prices --set MODEL=IN/OUT`), which replace a default or add a model.
 */
export function PricesSection({
  prices,
  onChange,
}: {
  prices: PriceRow[] | null;
  onChange: (rows: PriceRow[]) => void;
}) {
  const [model, setModel] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const edit = (row: PriceRow) => {
    setModel(row.model);
    setInput(String(row.inputPerMillion));
    setOutput(String(row.outputPerMillion));
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const inputPerMillion = parseDollars(input);
    const outputPerMillion = parseDollars(output);
    if (inputPerMillion === undefined || outputPerMillion === undefined) {
      setError('give input and output as dollars per million tokens, e.g. 0.15 and 0.60');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onChange(
        await api().call('settings.prices.set', {
          model: model.trim(),
          inputPerMillion,
          outputPerMillion,
        }),
      );
      setModel('');
      setInput('');
      setOutput('');
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const reset = async (row: PriceRow) => {
    setError(null);
    try {
      onChange(await api().call('settings.prices.reset', { model: row.model }));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <section className="settings-section" id="settings-prices" data-testid="settings-prices">
      <h3>Prices</h3>
      <p className="muted small">
        US dollars per million tokens, for costs, estimates and budgets. The defaults are OpenAI's
        published standard prices; a model id also prices its dated versions (
        <code>gpt-4o-mini</code> prices <code>gpt-4o-mini-2024-07-18</code>). Models without a price
        (local, simulated) cost nothing and show "no price".
      </p>
      {prices === null ? <p className="muted">Loading…</p> : null}
      {prices ? (
        <table className="settings-table" data-testid="price-table">
          <thead>
            <tr>
              <th>model</th>
              <th className="num">input $/M</th>
              <th className="num">output $/M</th>
              <th>default</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {prices.map((row) => (
              <tr
                key={row.model}
                className={row.overridden ? 'is-yours' : undefined}
                data-testid={`price-row-${row.model}`}
              >
                <td className="code">{row.model}</td>
                <td className="num">{dollars(row.inputPerMillion)}</td>
                <td className="num">{dollars(row.outputPerMillion)}</td>
                <td className="muted small">
                  {row.overridden
                    ? row.default
                      ? `yours (default ${dollars(row.default.inputPerMillion)} / ${dollars(row.default.outputPerMillion)})`
                      : 'yours'
                    : 'default'}
                </td>
                <td>
                  <span className="row settings-actions">
                    <button
                      type="button"
                      data-testid={`price-edit-${row.model}`}
                      onClick={() => edit(row)}
                    >
                      Edit
                    </button>
                    {row.overridden ? (
                      <button
                        type="button"
                        data-testid={`price-reset-${row.model}`}
                        onClick={() => reset(row)}
                        title={row.default ? 'Back to the built-in price' : 'Remove this price'}
                      >
                        {row.default ? 'Reset' : 'Remove'}
                      </button>
                    ) : null}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <form
        className="settings-form settings-price-form"
        data-testid="price-form"
        onSubmit={submit}
      >
        <label>
          model
          <input
            type="text"
            required
            spellCheck={false}
            placeholder="gpt-4o-mini"
            data-testid="price-form-model"
            value={model}
            onChange={(e) => setModel(e.target.value)}
          />
        </label>
        <label>
          input $/M
          <input
            type="text"
            inputMode="decimal"
            required
            placeholder="0.15"
            data-testid="price-form-input"
            value={input}
            onChange={(e) => setInput(e.target.value)}
          />
        </label>
        <label>
          output $/M
          <input
            type="text"
            inputMode="decimal"
            required
            placeholder="0.60"
            data-testid="price-form-output"
            value={output}
            onChange={(e) => setOutput(e.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={busy} data-testid="price-form-save">
          Set price
        </button>
      </form>
      {error ? (
        <p className="errors" role="alert" data-testid="price-form-error">
          {error}
        </p>
      ) : null}
    </section>
  );
}
