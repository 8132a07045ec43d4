/**
 * Settings → Prices in the studio: a price set in the form is the user's (kept in the store the
 * CLI's `society prices` reads, marked as theirs beside the default), a bad figure is refused
 * with one line and nothing stored, and Reset puts the built-in price back.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../app/costs/prices.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('prices in Settings', () => {
  const studio = studioForSuite();

  it('sets a price, refuses a bad one, resets it to the default', async () => {
    const s = studio();
    const { page } = s;
    const model = 'gpt-4o-mini';
    expect(DEFAULT_PRICES[model]).toBeDefined();
    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-nav-prices').click();
    await page.getByTestId(`price-edit-${model}`).click();
    expect(await page.getByTestId('price-form-model').inputValue()).toBe(model);

    await page.getByTestId('price-form-input').fill('abc');
    await page.getByTestId('price-form-save').click();
    await expect
      .poll(() => page.getByTestId('price-form-error').textContent())
      .toContain('dollars per million tokens');
    expect(s.store.priceTable()).toEqual({});

    await page.getByTestId('price-form-input').fill('0.5');
    await page.getByTestId('price-form-output').fill('2');
    await page.getByTestId('price-form-save').click();
    const row = page.getByTestId(`price-row-${model}`);
    await expect.poll(() => row.textContent()).toContain('yours (default');
    expect(s.store.priceTable()[model]).toEqual({ inputPerMillion: 0.5, outputPerMillion: 2 });
    expect(await page.getByTestId('price-form-model').inputValue()).toBe('');

    await page.getByTestId(`price-reset-${model}`).click();
    await expect.poll(() => row.textContent()).not.toContain('yours');
    expect(s.store.priceTable()).toEqual({});
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
