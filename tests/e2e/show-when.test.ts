/**
 * A field that applies in one mode (its spec's `showWhen`) is in the inspector only in that
 * mode: switching a router from rules to a model hides its rules and shows the model's fields,
 * and switching back shows the rules as they were written, since a hidden field keeps its value.
 */
import { describe, expect, it } from 'vitest';
import { dropFromPalette, HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** Room for a loaded machine: the page answers well within it. */
const WAIT = { timeout: 10_000 };

const RULE = [{ output: 'yes', when: { '>': [{ var: 'value' }, 3] } }];

describe.skipIf(!HAVE_CHROMIUM)('fields shown by the mode they apply in', () => {
  const studio = studioForSuite();

  it('a router shows its rules in rules mode, its model’s fields in model mode', async () => {
    const { page } = studio();
    await dropFromPalette(page, 'router', { x: 120, y: 80 });
    await page.getByTestId('node-router1').click();
    const field = (name: string) => page.getByTestId(`field-${name}`);
    const shown = async (name: string) => (await field(name).count()) > 0;

    // Rules mode, as a router starts: its rules are there, the model's fields are not.
    await field('rules').waitFor(WAIT);
    expect(await shown('model')).toBe(false);
    expect(await shown('unclear')).toBe(false);
    expect(await shown('prompt')).toBe(false);
    expect(await shown('outputs')).toBe(true);
    await field('rules').fill(JSON.stringify(RULE));
    await field('rules').blur();

    await field('mode').selectOption('model');
    await field('model').waitFor(WAIT);
    await expect.poll(() => shown('rules'), WAIT).toBe(false);
    expect(await shown('unclear')).toBe(true);
    expect(await shown('prompt')).toBe(true);
    expect(await shown('outputs')).toBe(true);

    // Back to rules: the rule written before is still there.
    await field('mode').selectOption('rules');
    await field('rules').waitFor(WAIT);
    await expect.poll(() => shown('model'), WAIT).toBe(false);
    expect(JSON.parse(await field('rules').inputValue())).toEqual(RULE);
  }, 30_000);
});
