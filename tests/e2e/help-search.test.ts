/**
 * The help and the search in Chromium: `?` opens the shortcuts and the docs (served by the
 * studio itself: a docs link opens a page with no request leaving the machine), the listed keys
 * do what it says, `?` typed in a field stays text; the toolbar's search finds a node of an
 * opened template and centres it, a finished run and opens it, an eval and shows it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EvalItemRecord } from '../../app/eval/types.ts';
import { societyHere } from '../support/cli.ts';
import { qaEvalArgs, writeQaEval } from '../support/qa-eval.ts';
import { axeCheck, seriousViolations } from './axe.ts';
import { HAVE_CHROMIUM, studioForSuite, visibleBox } from './support.ts';

const TEMPLATE = 'nlsom-artist-critic.society.json';

/** Leaves no field focused: keys then go to the page, as after a click on the canvas. */
async function blur(page: Page): Promise<void> {
  const focused = page.locator(':focus');
  if (await focused.count()) await focused.blur();
}

/** axe-core over one part of the page: no serious or critical violation. */
async function expectNoSeriousViolations(page: Page, selector: string): Promise<void> {
  expect(seriousViolations(await axeCheck(page, { include: [selector] }))).toEqual([]);
}

describe.skipIf(!HAVE_CHROMIUM)('help and search', () => {
  const studio = studioForSuite();
  const files = writeQaEval();
  let evalId = '';
  let items: EvalItemRecord[] = [];

  beforeAll(async () => {
    // An eval (and its item runs) in the studio's own store, as `society eval --db` makes one.
    const run = await societyHere(
      qaEvalArgs(files, studio().dbFile, path.join(files.dir, 'report.html')),
    );
    expect(run.code, run.stderr).toBe(0);
    evalId = JSON.parse(run.stdout).evalId;
    items = studio().store.evalItems(evalId);
  }, 30_000);

  it('? lists the shortcuts that work and links to docs the studio serves itself', async () => {
    const s = studio();
    const { page } = s;
    page.setDefaultTimeout(8000);
    const origin = new URL(s.studio.url).origin;
    const requests: string[] = [];
    const record = (r: Request) => requests.push(r.url());
    page.context().on('request', record);
    try {
      // Typed in a field, ? is text.
      const palette = page.getByTestId('palette-search');
      await palette.click();
      await page.keyboard.type('a?');
      expect(await palette.inputValue()).toBe('a?');
      expect(await page.getByTestId('help-overlay').count()).toBe(0);
      await palette.fill('');

      await blur(page);
      await page.keyboard.press('?');
      const help = page.getByRole('dialog', { name: 'Help' });
      await help.waitFor();
      expect(await help.getAttribute('aria-modal')).toBe('true');
      await s.screenshot('help-overlay');
      await expectNoSeriousViolations(page, '[data-testid="help-overlay"]');
      for (const [id, text] of [
        ['help', '?'],
        ['search', 'Ctrl+K'],
        ['undo', 'Ctrl+Z'],
        ['save', 'Ctrl+S'],
        ['delete', 'Delete'],
        ['close', 'Esc'],
      ]) {
        expect(await page.getByTestId(`help-shortcut-${id}`).textContent(), id).toContain(text);
      }
      // Focus is inside, and Tab and Shift+Tab keep it there.
      const focused = page.locator(':focus');
      const focusInHelp = () => help.locator(':focus').count();
      expect(await focusInHelp()).toBe(1);
      await page.keyboard.press('Shift+Tab');
      expect(await focusInHelp()).toBe(1);
      expect(await focused.textContent()).toBe('All docs');
      await page.keyboard.press('Tab');
      expect(await focused.getAttribute('aria-label')).toBe('Close help');

      // A docs link opens the page the studio renders, with nothing fetched from elsewhere.
      const [docs] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByTestId('help-doc-graph-format.md').click(),
      ]);
      await docs.waitForLoadState();
      expect(docs.url()).toBe(`${origin}/docs/graph-format.md`);
      const heading = docs.getByRole('heading', { level: 1 });
      await heading.waitFor();
      await s.screenshot('help-docs-page', docs);
      expect(await heading.textContent()).toBe(
        /^# (.+)$/m.exec(readFileSync('docs/graph-format.md', 'utf8'))?.[1]?.replaceAll('`', ''),
      );
      // Its links go to the other docs, served the same way.
      await docs.locator('a[href="/docs/"]').first().click();
      await docs.locator('a[href="/docs/itcma.md"]').waitFor();
      await docs.close();

      // Escape (listed) closes the help.
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });

      // Ctrl+Z (listed) undoes: a node added from the palette goes away.
      const nodes = page.locator('.react-flow__node');
      const before = await nodes.count();
      await page.getByTestId('palette-agent').click();
      await expect.poll(() => nodes.count()).toBe(before + 1);
      await blur(page);
      await page.keyboard.press('ControlOrMeta+z');
      await expect.poll(() => nodes.count()).toBe(before);

      // The toolbar's Help opens it too, and focus returns to the button when it closes.
      await page.getByTestId('help-button').click();
      await help.waitFor();
      await page.keyboard.press('Escape');
      await help.waitFor({ state: 'detached' });
      expect(await focused.getAttribute('data-testid')).toBe('help-button');
    } finally {
      page.context().off('request', record);
    }
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);

  it('finds a node of the open template and centres it, a run and opens it, an eval', async () => {
    const { page } = studio();
    page.setDefaultTimeout(8000);
    // At the smaller window the toolbar still holds the search and Help, inside the window.
    await page.setViewportSize({ width: 1280, height: 720 });
    for (const id of ['search-input', 'help-button']) {
      const box = await visibleBox(page.getByTestId(id));
      expect(box.x + box.width, id).toBeLessThanOrEqual(1280);
    }
    expect(await page.locator('.toolbar').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(
      true,
    );
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId(`template-open-${TEMPLATE}`).click();
    const collector = page.locator('.react-flow__node[data-id="collector"]');
    // The node added and undone above left the document changed: opening asks first.
    await page.getByTestId('confirm-ok').or(collector).first().waitFor();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await collector.waitFor();

    // `/` goes to the search; the arrows walk the list; Enter picks.
    await blur(page);
    await page.keyboard.press('/');
    const search = page.getByRole('combobox', { name: 'Search nodes, runs and evals' });
    expect(await page.locator(':focus').getAttribute('data-testid')).toBe('search-input');
    await page.keyboard.type('collector');
    const results = page.getByTestId('search-result');
    await expect.poll(() => results.first().getAttribute('data-id')).toBe('collector');
    expect(await search.getAttribute('aria-expanded')).toBe('true');
    expect(await results.first().getAttribute('aria-selected')).toBe('true');
    await studio().screenshot('search-node');
    await expectNoSeriousViolations(page, '.search-box');
    await page.keyboard.press('Enter');
    await expect.poll(() => collector.getAttribute('class')).toContain('selected');
    const canvas = await visibleBox(page.getByTestId('canvas'));
    await expect
      .poll(async () => {
        const box = await collector.boundingBox();
        if (!box) return Number.POSITIVE_INFINITY;
        return Math.hypot(
          box.x + box.width / 2 - (canvas.x + canvas.width / 2),
          box.y + box.height / 2 - (canvas.y + canvas.height / 2),
        );
      })
      .toBeLessThan(4);
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    await expect.poll(() => inspector.textContent()).toContain('collector');

    // ? typed in the prompt's code editor (Monaco) is text, not the help.
    const prompt = inspector.locator('.monaco-editor').first();
    await prompt.click();
    await page.keyboard.press('End');
    await page.keyboard.type('?');
    await expect.poll(() => prompt.locator('.view-lines').textContent()).toContain('?');
    expect(await page.getByTestId('help-overlay').count()).toBe(0);
    await blur(page);

    // A finished run, by its id: it opens in the run panel.
    const runId = items[0]?.runId ?? '';
    expect(runId).not.toBe('');
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type(runId.slice(0, 10));
    const run = page.locator(`[data-testid="search-result"][data-kind="run"][data-id="${runId}"]`);
    await run.waitFor();
    expect(await run.textContent()).toContain('succeeded');
    await run.click();
    await expect.poll(() => page.locator('.run-bar code').first().textContent()).toBe(runId);
    await expect.poll(() => page.getByTestId('run-status').textContent()).toMatch(/succeeded/i);

    // An eval, by its name: the Evals view opens on it.
    await page.keyboard.press('ControlOrMeta+k');
    await page.keyboard.type('one question');
    const found = page.locator(`[data-testid="search-result"][data-kind="eval"]`);
    await found.waitFor();
    while (
      (await page.locator('[role="option"][aria-selected="true"]').getAttribute('data-kind')) !==
      'eval'
    )
      await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.locator(`[data-testid="eval-detail"][data-eval="${evalId}"]`).waitFor();
    expect(await search.inputValue()).toBe('');
  }, 60_000);
});
