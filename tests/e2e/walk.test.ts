/**
 * A newcomer's first hour, walked at 1440×900 and at 1280×720: the start page, the gallery, a
 * template opened at a readable zoom, a replay paused at a breakpoint with the finished nodes'
 * values on their cards, a fork and its diff, the evals view, the 75-step ITCMA-S run's
 * analytics, Settings, and the light theme. At every stop nothing is wider than the window and
 * the toolbar's panels are within reach; where a document opens, no text a person can see is
 * under 11 px. Screenshots of each stop are kept under test-results/e2e/walk-*.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeQaEval } from '../support/qa-eval.ts';
import {
  HAVE_CHROMIUM,
  type StudioSession,
  smallestVisibleText,
  studioForSuite,
  VQA_QUESTION,
  visibleBox,
} from './support.ts';

const WAIT = { timeout: 15_000 };

/** What the page measures of itself: its widest box and the window's width. */
interface Widths {
  widest: number;
  widestWhere: string;
  window: number;
  height: number;
  scrollX: number;
}

/** The right edge of the page's widest box (html, body, the app, or anything in it). */
async function widths(page: Page): Promise<Widths> {
  return page.evaluate(() => {
    type El = {
      scrollWidth: number;
      getBoundingClientRect(): { right: number; width: number };
      tagName: string;
      className: unknown;
      getAttribute(n: string): string | null;
    };
    const g = globalThis as unknown as {
      document: { documentElement: El; querySelectorAll(s: string): Iterable<El> };
      innerWidth: number;
      innerHeight: number;
      scrollX: number;
      getComputedStyle(e: El): { display: string; visibility: string };
    };
    let widest = g.document.documentElement.scrollWidth;
    let widestWhere = 'html';
    // Every box of the page outside the canvas (whose drawing is larger than the window by
    // design, clipped by its pane) and outside any scrolling box, which clips its content.
    for (const el of g.document.querySelectorAll(
      'body *:not(.react-flow__viewport *):not(svg *)',
    )) {
      const style = g.getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden') continue;
      const right = el.getBoundingClientRect().right;
      if (right > widest + 0.5) {
        // Inside a box that clips or scrolls sideways, content may run past the window.
        let clipped = false;
        for (
          let p = (el as unknown as { parentElement: El | null }).parentElement;
          p;
          p = (p as unknown as { parentElement: El | null }).parentElement
        ) {
          const o = (g.getComputedStyle(p) as unknown as { overflowX: string }).overflowX;
          if (o !== 'visible') {
            clipped = p.getBoundingClientRect().right <= g.innerWidth + 0.5;
            break;
          }
        }
        if (clipped) continue;
        widest = right;
        widestWhere = `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}.${String(el.className)}`;
      }
    }
    return { widest, widestWhere, window: g.innerWidth, height: g.innerHeight, scrollX: g.scrollX };
  });
}

/** A stop on the walk: a screenshot, nothing wider than the window, every panel in reach. */
async function stop(s: StudioSession, size: string, name: string, editor = true): Promise<void> {
  const { page } = s;
  await s.screenshot(`walk-${size}-${name}`);
  const w = await widths(page);
  expect(w.widest, `${name}: ${w.widestWhere} runs past the window`).toBeLessThanOrEqual(
    w.window + 0.5,
  );
  expect(w.scrollX, `${name}: the page scrolled sideways`).toBe(0);
  // The toolbar's panels (Home, Gallery, Evals, Settings, Help) are on screen, and with a
  // document open so are the palette, the inspector and the run panel's tabs.
  const panels = [
    '[data-testid="tb-home"]',
    '[data-testid="tb-gallery"]',
    '[data-testid="tb-evals"]',
  ];
  panels.push('[data-testid="settings-button"]', '[data-testid="help-button"]');
  if (editor) panels.push('aside.palette', 'aside.inspector', '.run-panel [role="tablist"]');
  for (const selector of panels) {
    const box = await visibleBox(page.locator(selector).first());
    expect(box.x + box.width, `${name}: ${selector}`).toBeLessThanOrEqual(w.window + 0.5);
    expect(box.x, `${name}: ${selector}`).toBeGreaterThanOrEqual(0);
    expect(box.y, `${name}: ${selector}`).toBeGreaterThanOrEqual(0);
    expect(box.y, `${name}: ${selector}`).toBeLessThan(w.height);
  }
}

/** No text a person can see is under 11 px (the canvas's zoom included). */
async function readable(page: Page, name: string): Promise<void> {
  const smallest = await smallestVisibleText(page);
  expect(
    smallest?.px ?? 11,
    `${name}: "${smallest?.text}" (${smallest?.where}) at ${smallest?.px} px`,
  ).toBeGreaterThanOrEqual(11 - 0.01);
}

/** Opens a template from the gallery and waits for one of its nodes. */
async function fromGallery(page: Page, search: string, file: string, node: string) {
  await page.getByTestId('tb-gallery').click();
  await page.getByTestId('gallery-search').fill(search);
  await page.getByTestId(`template-open-${file}`).click();
  await page.getByTestId('gallery').waitFor({ state: 'detached' });
  await page.getByTestId(`node-${node}`).waitFor(WAIT);
}

describe.skipIf(!HAVE_CHROMIUM)('the newcomer walk', () => {
  const studio = studioForSuite();
  let evalId = '';

  beforeAll(async () => {
    // An eval to find in the Evals view, as `society eval` stores one.
    evalId = await storeQaEval(studio().dbFile);
  }, 30_000);

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 1280, height: 720 },
  ]) {
    const size = `${viewport.width}x${viewport.height}`;
    it(`walks from the start page to the light theme at ${size}`, async () => {
      const s = studio();
      const page = await s.newPage({ startPage: true });
      const session = { ...s, page } as StudioSession;
      session.screenshot = (name: string) => s.screenshot(name, page);
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: 'dark' });

      // The start page, never a blank canvas.
      await page.getByTestId('start-page').waitFor();
      await stop(session, size, '01-start', false);
      await readable(page, 'the start page');

      // The gallery, searched; the NLSOM VQA mindstorm opens at a zoom its titles read at.
      await page.getByTestId('start-gallery').click();
      await page.locator('[data-testid="gallery"] article.card').first().waitFor(WAIT);
      await stop(session, size, '02-gallery', false);
      await page.getByTestId('gallery-search').fill('visual question');
      await page.getByTestId('template-open-nlsom-vqa.society.json').click();
      await page.getByTestId('gallery').waitFor({ state: 'detached' });
      await page.getByTestId('node-storm').waitFor(WAIT);
      await stop(session, size, '03-template');
      await readable(page, 'the VQA template at its opening zoom');

      // Run: the cassette's replay, held before round 2 with the run panel hidden first — the
      // pause shows it again, and the finished nodes' values are on their cards.
      await page.getByTestId('run-tab-inputs').click();
      expect(await page.getByTestId('input-question').inputValue()).toBe(VQA_QUESTION);
      await page.getByTestId('break-round').fill('2');
      await page.keyboard.press('Escape');
      await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('Control+j');
      await page.locator('.app[data-run-panel="collapsed"]').waitFor(WAIT);
      await page.getByTestId('tb-replay').click();
      await page.getByTestId('paused-banner').waitFor(WAIT);
      await page.locator('.app:not([data-run-panel="collapsed"])').waitFor(WAIT);
      // Zoomed out, a card says its value in a few words; at full detail, in full.
      await expect
        .poll(() => page.getByTestId('node-describe').getAttribute('data-lod-value'), WAIT)
        .toBeTruthy();
      await stop(session, size, '04-paused');
      await page.getByTestId('tb-continue').click();
      await expect
        .poll(() => page.getByTestId('run-status').textContent(), WAIT)
        .toMatch(/succeeded/i);
      await expect
        .poll(() => page.getByTestId('node-leader').getAttribute('data-lod-value'), WAIT)
        .toBeTruthy();
      await stop(session, size, '05-values');
      // The breakpoint is lifted before the fork, which would stop at it too.
      await page.getByTestId('run-tab-inputs').click();
      await page.getByTestId('break-round').fill('');

      // Fork a member's first answer, then compare the fork with its parent.
      // Newest first: this walk's replay, not an earlier walk's.
      const runs = () => s.store.listRuns().filter((r) => r.graph.startsWith('NLSOM'));
      const parent = runs().find((r) => r.status === 'succeeded' && !r.parentRunId);
      expect(parent, 'the replayed run').toBeDefined();
      const said = s.store.events(parent!.id, { types: ['message'] }) as Array<{
        from: string;
        text: string;
      }>;
      const member = said.find((m) => m.from.startsWith('member#0'))!;
      await page.getByTestId('run-tab-runs').click();
      await page.locator(`[data-run="${parent!.id}"]`).getByTestId('fork-button').click();
      await page.getByTestId('fork-instance').selectOption(member.from);
      await page.getByTestId('fork-text').fill(`${member.text} (b) a blue square.`);
      const before = runs().length;
      await page.getByTestId('fork-start').click();
      await expect.poll(() => runs().length, WAIT).toBe(before + 1);
      await expect
        .poll(() => page.getByTestId('run-status').textContent(), WAIT)
        .toMatch(/succeeded/i);
      const fork = runs().find((r) => r.parentRunId === parent!.id)!;
      await page.getByTestId('run-tab-runs').click();
      await page.locator(`[data-run="${fork.id}"]`).getByTestId('run-pick').check();
      await page.locator(`[data-run="${parent!.id}"]`).getByTestId('run-pick').check();
      await page.getByTestId('compare-button').click();
      await page.getByTestId('diff-view').waitFor(WAIT);
      await stop(session, size, '06-diff');

      // The evals view, with the stored eval's table and charts.
      await page.getByTestId('tb-evals').click();
      await page.locator(`[data-testid="evals-list"] li[data-eval="${evalId}"]`).click();
      await page
        .getByTestId('eval-chart-scores')
        .locator('svg.recharts-surface')
        .first()
        .waitFor(WAIT);
      await stop(session, size, '07-evals', false);
      await page.getByTestId('tb-evals').click();

      // ITCMA-S over 75 steps: its Analytics tab scrolls inside the run panel.
      await fromGallery(page, 'valley', 'itcma-irollan-valley.society.json', 'valley');
      await readable(page, 'the ITCMA-S template at its opening zoom');
      await page.getByTestId('tb-run-simulated').click();
      await expect
        .poll(() => page.getByTestId('run-status').textContent(), { timeout: 40_000 })
        .toMatch(/succeeded/i);
      await page.getByTestId('run-tab-report:analytics').click();
      expect(
        await page.locator('table.category-table').first().locator('thead th').count(),
      ).toBeGreaterThan(70);
      await stop(session, size, '08-itcma-analytics');

      // Settings, then the light theme.
      await page.getByTestId('settings-button').click();
      await page.getByTestId('settings-keys').waitFor(WAIT);
      await stop(session, size, '09-settings', false);
      await page.getByTestId('theme-light').check();
      await expect.poll(() => page.locator('html').getAttribute('data-theme')).toBe('light');
      await page.keyboard.press('Escape');
      await page.getByTestId('settings-keys').waitFor({ state: 'detached' });
      await stop(session, size, '10-light');
      // Back to the system's choice for the next walk.
      await page.getByTestId('settings-button').click();
      await page.getByTestId('theme-system').check();
      await page.keyboard.press('Escape');
      expect(s.pageErrors).toEqual([]);
      await page.close();
    }, 120_000);
  }
});
