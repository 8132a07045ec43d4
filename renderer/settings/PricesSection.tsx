import { type FormEvent, useState } from 'react';
import type { ApiResult } from '../../app/api/contract.ts';
import { api } from '../api.ts';
import { SettingsList, useSettingsChange } from './SettingsList.tsx';

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
  const { busy, error, setError, run } = useSettingsChange();

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
    const set = await run(
      () =>
        api().call('settings.prices.set', {
          model: model.trim(),
          inputPerMillion,
          outputPerMillion,
        }),
      onChange,
    );
    if (set) {
      setModel('');
      setInput('');
      setOutput('');
    }
  };

  const reset = (row: PriceRow) =>
    void run(() => api().call('settings.prices.reset', { model: row.model }), onChange);

  return (
    <SettingsList
      id="settings-prices"
      testId="settings-prices"
      title="Prices"
      intro={
        <>
          US dollars per million tokens, for costs, estimates and budgets. The defaults are OpenAI's
          published standard prices; a model id also prices its dated versions (
          <code>gpt-4o-mini</code> prices <code>gpt-4o-mini-2024-07-18</code>). Models without a
          price (local, simulated) cost nothing and show "no price".
        </>
      }
      items={prices}
      listTestId="price-table"
      head={
        <tr>
          <th>model</th>
          <th className="num">input $/M</th>
          <th className="num">output $/M</th>
          <th>default</th>
          <th />
        </tr>
      }
      row={(row) => (
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
      )}
      form={{
        testId: 'price-form',
        className: 'settings-price-form',
        layout: 'inline',
        onSubmit: (e) => void submit(e),
        fields: [
          {
            label: 'model',
            testId: 'price-form-model',
            required: true,
            spellCheck: false,
            placeholder: 'gpt-4o-mini',
            value: model,
            onChange: setModel,
          },
          {
            label: 'input $/M',
            testId: 'price-form-input',
            inputMode: 'decimal',
            required: true,
            placeholder: '0.15',
            value: input,
            onChange: setInput,
          },
          {
            label: 'output $/M',
            testId: 'price-form-output',
            inputMode: 'decimal',
            required: true,
            placeholder: '0.60',
            value: output,
            onChange: setOutput,
          },
        ],
        submit: { label: 'Set price', testId: 'price-form-save' },
      }}
      busy={busy}
      error={error}
      errorTestId="price-form-error"
    />
  );
}
