/**
 * The accessibility check the end-to-end tests use (tests/e2e/axe.ts) finds what it is asked to
 * find, on a small page made for it: an unnamed button, text too faint to read, a region left
 * out of the check. So a view that passes it passed a check that can fail.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { axeCheck, seriousViolations } from './axe.ts';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from './chromium.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>axe check</title></head><body>
<main>
  <section id="faint"><p style="color:#c8c8c8;background:#ffffff">Faint words</p></section>
  <section id="unnamed"><button></button></section>
  <section id="fine"><p style="color:#111111;background:#ffffff">Plain words</p><button>Go</button></section>
</main></body></html>`;
const PAGE_URL = `data:text/html,${encodeURIComponent(PAGE)}`;

describe.skipIf(!HAVE_CHROMIUM)('the axe check of the end-to-end tests', () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const endpoint = inject('chromiumEndpoint');
    browser = endpoint
      ? await chromium.connect(endpoint)
      : await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await (await browser.newContext()).newPage();
    await page.goto(PAGE_URL);
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('finds an unnamed button and faint text on the whole page, and only the rules asked for', async () => {
    const whole = seriousViolations(await axeCheck(page));
    expect(whole.some((line) => line.startsWith('button-name (critical, 1)'))).toBe(true);
    expect(whole.some((line) => line.startsWith('color-contrast (serious, 1)'))).toBe(true);

    const colours = await axeCheck(page, { rules: ['color-contrast'] });
    expect(colours.violations.map((v) => v.id)).toEqual(['color-contrast']);
  });

  it('checks only the parts included, and again after the page is loaded anew', async () => {
    const fine = await axeCheck(page, { include: ['#fine'] });
    expect(seriousViolations(fine)).toEqual([]);
    // A rule that ran and passed is listed: the check looked.
    expect(fine.passes.map((p) => p.id)).toContain('color-contrast');

    // A new document: axe is no longer in the page, and is put in again.
    await page.goto(PAGE_URL);
    expect(await page.evaluate(() => 'axe' in globalThis)).toBe(false);
    const unnamed = seriousViolations(await axeCheck(page, { include: ['#unnamed'] }));
    expect(unnamed.map((line) => line.split(' ')[0])).toEqual(['button-name']);
  });
});
