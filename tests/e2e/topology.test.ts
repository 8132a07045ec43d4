/**
 * A mindstorm's topology in the studio: chosen in the inspector, named on the card, and drawn
 * over the members (one dot per copy) above the form.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const WAIT = { timeout: 10_000 };

const at = (x: number, y: number) => ({ x, y });

/** A mindstorm whose one member runs as five copies. */
const STORM = {
  version: 1,
  name: 'five members',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    {
      id: 'storm',
      type: 'mindstorm',
      position: at(40, 40),
      style: { width: 520, height: 260 },
      data: { maxRounds: 2, members: ['member'], rights: { rtk: true } },
    },
    {
      id: 'member',
      type: 'agent',
      parentId: 'storm',
      position: at(40, 80),
      data: {
        model: 'm',
        prompt: 'Say something, {{ who }}.',
        replicate: { items: ['ann', 'bob', 'cy', 'dee', 'eve'], as: 'who' },
      },
    },
  ],
  edges: [],
};

describe.skipIf(!HAVE_CHROMIUM)('a mindstorm topology in the studio', () => {
  const studio = studioForSuite();

  it('is chosen in the inspector, named on the card and drawn over the members', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'five.society.json', STORM, 'storm');
    await page.getByTestId('node-storm').locator('.container-header').click();
    const diagram = page.getByTestId('mindstorm-topology');
    await diagram.waitFor(WAIT);
    // Full, as a mindstorm starts: every pair of the five copies is joined.
    await expect.poll(() => diagram.textContent(), WAIT).toContain('5 members, each sees 4 others');
    expect(await diagram.locator('line').count()).toBe(10);
    expect(await page.getByTestId('field-k').count()).toBe(0);

    await page.getByTestId('field-topology').selectOption('ring');
    await expect.poll(() => diagram.textContent(), WAIT).toContain('each sees 2 others');
    expect(await diagram.locator('line').count()).toBe(5);
    await expect
      .poll(() => page.getByTestId('node-storm').locator('.node-summary').textContent(), WAIT)
      .toBe('topology ring');

    // A k-regular graph shows its k and seed; 3 × 5 is odd, so no such graph: the panel says so.
    await page.getByTestId('field-topology').selectOption('k-regular');
    await page.getByTestId('field-k').waitFor(WAIT);
    expect(await page.getByTestId('field-seed').count()).toBe(1);
    await page.getByTestId('field-k').fill('3');
    await page.getByTestId('field-k').blur();
    await expect
      .poll(() => diagram.textContent(), WAIT)
      .toContain('no 3-regular graph has 5 members');
  }, 60_000);
});
