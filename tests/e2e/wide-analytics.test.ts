/**
 * The 75-step ITCMA-S run's Analytics tab (a 76-column "Where each agent is" table, six agents'
 * charts) never makes the page wider than the window: the analytics scroll inside the run panel,
 * both ways, and the toolbar's last buttons stay on screen, at 1440×900 and at 1280×720.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite, visibleBox } from './support.ts';

const WAIT = { timeout: 10_000 };
const VALLEY = fileURLToPath(
  new URL('../../templates/itcma-irollan-valley.society.json', import.meta.url),
);

describe.skipIf(!HAVE_CHROMIUM)('a wide Analytics tab', () => {
  const studio = studioForSuite();

  it('scrolls inside its panel and never widens the page', async () => {
    const s = studio();
    const { page } = s;
    copyFileSync(VALLEY, path.join(s.workspace, 'valley.society.json'));
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-valley.society.json').click();
    await page.getByTestId('node-valley').waitFor(WAIT);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 40_000 })
      .toMatch(/succeeded/i);
    await page.getByTestId('run-tab-report:analytics').click();
    const where = page.locator('table.category-table').first();
    await where.waitFor(WAIT);
    expect(await where.locator('thead th').count()).toBeGreaterThan(70);

    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 1280, height: 720 },
    ]) {
      await page.setViewportSize(viewport);
      await page.waitForTimeout(100);
      const widths = await page.evaluate(() => {
        // The page's globals (the tests are typed for Node, without the DOM's).
        type Sized = { scrollWidth: number; getBoundingClientRect(): { right: number } };
        const { document, innerWidth } = globalThis as unknown as {
          document: { documentElement: Sized; querySelector(s: string): Sized | null };
          innerWidth: number;
        };
        // The page's html and body clip what overflows, so the studio's own box says it too.
        return {
          page: Math.max(
            document.documentElement.scrollWidth,
            document.querySelector('.app')?.scrollWidth ?? 0,
            document.querySelector('.run-panel')?.getBoundingClientRect().right ?? 0,
          ),
          window: innerWidth,
        };
      });
      expect(widths.page, `page width at ${viewport.width}×${viewport.height}`).toBeLessThanOrEqual(
        widths.window,
      );
      // The toolbar's last buttons and the inspector are still on screen.
      for (const id of ['tb-evals', 'tb-machine']) {
        const box = await visibleBox(page.getByTestId(id));
        expect(box.x + box.width, id).toBeLessThanOrEqual(viewport.width);
      }
      // The table's last column can be scrolled to inside its own container.
      const last = where.locator('thead th').last();
      await last.scrollIntoViewIfNeeded();
      const box = await visibleBox(last);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
      // The page itself did not scroll sideways to show it.
      expect(
        await page.evaluate(() => (globalThis as unknown as { scrollX: number }).scrollX),
      ).toBe(0);
      await s.screenshot(`itcma-analytics-75-${viewport.width}`);
    }
    expect(s.pageErrors).toEqual([]);
  }, 90_000);
});
