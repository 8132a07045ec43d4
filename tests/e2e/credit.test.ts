/**
 * The Credit tab, in Chromium through the studio: the NLSOM VQA template run simulated, credited
 * from the run panel (each of its three members left out in a fork made by the backend), one bar
 * per member, and a member's fork opened with one click and left again for the credit.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('crediting the members of a run from the Credit tab', () => {
  const studio = studioForSuite();

  it('shows one bar per member and opens a member fork in one click', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('node-storm').waitFor();
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/succeeded/i);
    const [parent] = s.store.listRuns().map((r) => r.id);

    await page.getByTestId('run-tab-credit').click();
    await page.getByTestId('credit-start').click();
    const bars = page.getByTestId('credit-bar');
    await expect.poll(() => bars.count(), { timeout: 30_000 }).toBe(3);
    const rows = await bars.allTextContents();
    for (const [i, row] of rows.entries()) {
      expect(row).toContain(`member#${i}`);
      expect(row).toMatch(/\d+ re-sent · \d+ from record · 3 left out/);
      expect(row).toMatch(/decisive: \S+@/);
    }
    // Each bar's fork is a stored run forked from the one credited.
    const forks = s.store.listRuns().filter((r) => r.parentRunId === parent);
    expect(forks).toHaveLength(3);
    await s.screenshot('credit-bars');

    await page.getByTestId('credit-open-member#1').click();
    await page.getByTestId('run-tab-credit').click();
    const forkOf = page.getByTestId('credit-fork-of');
    await forkOf.waitFor();
    expect(await forkOf.textContent()).toContain(`fork of ${parent} without member#1`);
    await page.getByTestId('credit-back').click();
    await expect.poll(() => page.getByTestId('credit-bar').count()).toBe(3);
    expect(s.pageErrors).toEqual([]);
  }, 90_000);
});
