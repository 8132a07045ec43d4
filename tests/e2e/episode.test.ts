import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('a CuisineWorld episode in the editor', () => {
  const studio = studioForSuite();

  it('plays the greedy template and shows the kitchen and every step', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-cuisineworld-greedy.society.json').click();
    await page.getByTestId('node-kitchen').waitFor();
    // The greedy dispatcher needs no model, so a live run needs no key.
    await page.getByTestId('tb-run-live').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/succeeded/i);

    await page.getByTestId('run-tab-report:dispatcher').click();
    const summary = page.getByTestId('episode-dispatcher-summary');
    expect(await summary.textContent()).toMatch(
      /level_3 · step 60 of 60 · \d+ served · \d+ failed · \d+ open · 0 refused · done/,
    );
    const served = Number(/(\d+) served/.exec((await summary.textContent()) ?? '')?.[1]);
    expect(served).toBeGreaterThan(0);
    expect(await page.getByTestId('episode-step-0').textContent()).toMatch(/t=0.*goto_agent0_/);
    expect(await page.getByTestId('episode-step-59').count()).toBe(1);
    expect(await page.getByTestId('episode-agent-agent1').textContent()).toMatch(
      /agent1 at \w+\d, holds/,
    );
    await s.screenshot('cuisineworld-episode');
    expect(s.pageErrors).toEqual([]);
  });
});
