import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

/** The greedy kitchen, eight steps long: short enough to scrub through in a test. */
function shortKitchen(): unknown {
  const doc = JSON.parse(
    readFileSync(
      new URL('../../templates/cuisineworld-greedy.society.json', import.meta.url),
      'utf8',
    ),
  ) as { name: string; nodes: Array<{ id: string; data: Record<string, unknown> }> };
  doc.name = 'Short kitchen';
  for (const node of doc.nodes) if (node.id === 'kitchen') node.data.maxSteps = 8;
  return doc;
}

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

  it('scrubs the episode step by step: the kitchen at each step and what was done there', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'short-kitchen.society.json', shortKitchen(), 'kitchen');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/succeeded/i);
    await page.getByTestId('run-tab-report:dispatcher').click();

    const at = page.getByTestId('episode-dispatcher-at');
    const world = page.getByTestId('episode-dispatcher-shown').getByTestId('episode-world');
    const actions = page.getByTestId('episode-dispatcher-shown').getByTestId('episode-actions');
    // A finished episode opens on its last step.
    expect(await at.textContent()).toBe('step 8 of 8');
    expect(await actions.textContent()).toBe(
      (await page.getByTestId('episode-step-7').getByTestId('episode-actions').textContent()) ?? '',
    );
    const last = await world.textContent();

    await page.getByTestId('episode-dispatcher-first').click();
    expect(await at.textContent()).toBe('step 1 of 8');
    const first = await world.textContent();
    // The agents have moved and the orders aged between the first step and the last.
    expect(first).not.toBe(last);
    expect(await actions.textContent()).toMatch(/goto_agent0_/);
    expect(await page.getByTestId('episode-dispatcher-slider').inputValue()).toBe('1');
    expect(await page.getByTestId('episode-dispatcher-previous').isDisabled()).toBe(true);

    // Arrow keys move it a step at a time, from the buttons or the slider itself.
    await page.getByTestId('episode-dispatcher-next').click();
    expect(await at.textContent()).toBe('step 2 of 8');
    await page.keyboard.press('ArrowRight');
    expect(await at.textContent()).toBe('step 3 of 8');
    await page.getByTestId('episode-dispatcher-slider').focus();
    await page.keyboard.press('ArrowLeft');
    expect(await at.textContent()).toBe('step 2 of 8');
    // A step picked in the list is shown too.
    await page.getByTestId('episode-step-7').getByRole('button').click();
    expect(await at.textContent()).toBe('step 8 of 8');
    expect(await world.textContent()).toBe(last);
    await s.screenshot('cuisineworld-episode-scrubber');
    expect(s.pageErrors).toEqual([]);
  });
});
