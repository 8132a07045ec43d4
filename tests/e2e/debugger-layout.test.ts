import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite, VQA_QUESTION } from './support.ts';

/** Height on screen of an element, 0 when it is not shown. */
async function heightOf(page: Page, selector: string): Promise<number> {
  return (await page.locator(selector).first().boundingBox())?.height ?? 0;
}

/** The tab body's height, and whether its first line is on screen. */
async function tabBody(page: Page) {
  const box = await page.locator('.run-body').boundingBox();
  const viewport = page.viewportSize();
  return {
    height: box?.height ?? 0,
    onScreen: box !== null && viewport !== null && box.y + 40 < viewport.height,
  };
}

describe.skipIf(!HAVE_CHROMIUM)('the debugger while paused', () => {
  const studio = studioForSuite();

  it('keeps the tabs readable at 1440×900 and 1280×720, follows the canvas, remembers its size', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('node-storm').waitFor();
    await page.getByTestId('run-tab-inputs').click();
    // The form comes filled with the template's examples, which its cassette was recorded with.
    await expect.poll(() => page.getByTestId('input-question').inputValue()).toBe(VQA_QUESTION);
    expect(await page.getByTestId('input-image-example').isChecked()).toBe(true);
    await page.getByTestId('break-round').fill('1');
    await page.getByTestId('tb-replay').click();
    const banner = page.getByTestId('paused-banner');
    await banner.waitFor({ timeout: 20_000 });
    await page.getByTestId('tb-step-message').click();
    await expect.poll(() => banner.textContent()).toMatch(/before organizer@r1 sends a message/);

    // Selecting a node on the canvas shows what it was sent; the held agent comes back with
    // the next step.
    await page.getByTestId('run-tab-context').click();
    await page.getByTestId('node-describe').click();
    await expect
      .poll(() => page.getByTestId('context-meta').textContent())
      .toMatch(/describe#\d+@init/);
    await page.getByTestId('node-leader').click();
    await expect.poll(() => page.getByTestId('context-no-calls').textContent()).toMatch(/leader/);
    await page.getByTestId('tb-step-message').click();
    await expect.poll(() => banner.textContent()).toMatch(/before member#0@r1 sends a message/);
    await expect
      .poll(() => page.getByTestId('context-meta').textContent())
      .toContain('member#0@r1');

    // The held message's editor sits beside the tabs: the transcript stays readable.
    for (const size of [
      { width: 1440, height: 900 },
      { width: 1280, height: 720 },
    ]) {
      await page.setViewportSize(size);
      await page.getByTestId('run-tab-transcript').click();
      await expect.poll(async () => (await tabBody(page)).height).toBeGreaterThanOrEqual(140);
      expect((await tabBody(page)).onScreen).toBe(true);
      expect(await page.getByTestId('message').first().isVisible()).toBe(true);
      expect(await page.getByTestId('held-message-editor').isVisible()).toBe(true);
      // The canvas keeps room too.
      expect(await heightOf(page, '.react-flow')).toBeGreaterThanOrEqual(250);
      await page.getByTestId('run-tab-context').click();
      await page.getByTestId('context-meta').waitFor();
      expect(await page.getByTestId('context-meta').textContent()).toContain('member#0@r1');
      await s.screenshot(`debugger-paused-${size.width}x${size.height}`);
    }

    // A size given with the handle is kept for the next window.
    await page.setViewportSize({ width: 1440, height: 900 });
    // The panel settles into the larger window before the handle is taken where it then sits.
    let settled = -1;
    await expect
      .poll(async () => {
        const [before, now] = [settled, await heightOf(page, '.run-split')];
        settled = now;
        return now === before;
      })
      .toBe(true);
    const handle = await page.getByTestId('run-panel-resize').boundingBox();
    if (!handle) throw new Error('no resize handle');
    await page.mouse.move(handle.x + 200, handle.y + 2);
    await page.mouse.down();
    await page.mouse.move(handle.x + 200, handle.y - 120, { steps: 4 });
    await page.mouse.up();
    await expect.poll(() => heightOf(page, '.run-split')).toBeGreaterThan(300);
    const dragged = await heightOf(page, '.run-split');
    const again = await s.newPage();
    expect(Math.abs((await heightOf(again, '.run-split')) - dragged)).toBeLessThanOrEqual(2);
    await again.close();

    await page.getByTestId('tb-stop').click();
    await expect.poll(() => page.getByTestId('run-status').textContent()).toMatch(/cancelled/i);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
