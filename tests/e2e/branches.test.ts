/**
 * A branch not taken, in the studio: the tie-judge template run simulated (both voters answer
 * yes, no tie), so its router does not take the `tie` branch and the judge never starts. The
 * canvas shows the judge as skipped with why, the machine view marks its task skipped, and no
 * call of it is recorded.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('a branch not taken in the studio', () => {
  const studio = studioForSuite();

  it('shows the judge skipped on the canvas and in the machine view when the ballots do not tie', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-tie-judge.society.json').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('node-judge').waitFor();

    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    const status = page.getByTestId('status-judge');
    await expect.poll(() => status.textContent()).toBe('skipped');
    expect(await status.getAttribute('title')).toBe('route.tie: no rule matched');
    expect(await page.getByTestId('node-judge').getAttribute('data-state')).toBe('skipped');
    // What did run is shown as done; the run made the voters' two calls, not the judge's.
    expect(await page.getByTestId('node-route').getAttribute('data-state')).toBe('done');
    expect(await page.getByTestId('node-decision').getAttribute('data-state')).toBe('done');
    await expect.poll(() => page.getByTestId('run-usage').textContent()).toMatch(/^2 calls · /);
    await s.screenshot('branch-skipped-canvas');

    await page.getByTestId('tb-machine').click();
    const judge = page.locator('[data-testid^="machine-highlight-"][data-testid$="/#judge"]');
    await expect.poll(() => judge.textContent(), { timeout: 10_000 }).toBe('skipped');
    expect(await page.locator('.mv-legend').textContent()).toContain('skipped');
    const route = page.locator('[data-testid^="machine-highlight-"][data-testid$="/#route"]');
    expect(await route.textContent()).toBe('done');
    await s.screenshot('branch-skipped-machine');
    expect(s.pageErrors).toEqual([]);
  });
});
