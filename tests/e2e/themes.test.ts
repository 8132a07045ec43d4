/**
 * Themes and accessibility in Chromium: every view of the studio, in the light and the dark theme,
 * has no serious or critical axe-core violation (contrast, unnamed buttons and fields…); the
 * studio follows the system's colour scheme until Settings picks one, and remembers that pick
 * across a reload. One studio and one page; the views are visited in sequence (a test each) and
 * each is checked in both themes by switching the emulated system scheme, so it is reached once:
 * every rule in the dark theme, and in the light one the rules a theme can change (COLOUR_RULES).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeQaEval } from '../support/qa-eval.ts';
import { axeCheck, seriousViolations } from './axe.ts';
import { HAVE_CHROMIUM, type StudioSession, studioForSuite } from './support.ts';

const WAIT = { timeout: 20_000 };
type Scheme = 'light' | 'dark';

/** Opens a template from the gallery and waits for one of its nodes. */
async function openTemplate(page: Page, file: string, node: string) {
  await page.getByTestId('tb-gallery').click();
  await page.getByTestId(`template-open-${file}`).click();
  await page.getByTestId('gallery').waitFor({ state: 'detached' });
  await page.getByTestId(`node-${node}`).waitFor(WAIT);
}

/** Runs the open document simulated and waits for it to finish. */
async function runSimulated(page: Page) {
  await page.getByTestId('tb-run-simulated').click();
  await expect.poll(() => page.getByTestId('run-status').textContent(), WAIT).toMatch(/succeeded/i);
}

/**
 * The views checked, in the order a person meets them. Each step starts where the previous one
 * left the page; a new view (the start page, say) is one more line here.
 */
const VIEWS: Array<{
  name: string;
  reach: (s: StudioSession, evalId: string) => Promise<void>;
  /** The part of the page checked, when the rest was checked in an earlier view (the canvas). */
  within?: string;
}> = [
  {
    name: 'the start page',
    reach: async ({ page }) => {
      await page.getByTestId('tb-home').click();
      await page.getByTestId('start-page').waitFor();
    },
  },
  {
    name: 'the editor as it opens',
    reach: async ({ page }) => {
      await page.getByTestId('start-scratch').click();
      await page.locator('.react-flow').waitFor();
    },
  },
  {
    name: 'the gallery',
    within: '[data-testid="gallery"]',
    reach: async ({ page }) => {
      await page.getByTestId('tb-gallery').click();
      await page.locator('[data-testid="gallery"] article.card').first().waitFor();
    },
  },
  {
    name: 'the editor with NLSOM VQA open',
    reach: async ({ page }) => {
      await page.keyboard.press('Escape');
      await page.getByTestId('gallery').waitFor({ state: 'detached' });
      await openTemplate(page, 'nlsom-vqa.society.json', 'leader');
    },
  },
  {
    name: "the editor and the run panel's transcript after a simulated run",
    reach: async ({ page }) => {
      await runSimulated(page);
      await page.getByTestId('run-tab-transcript').click();
      await page.getByTestId('message').first().waitFor(WAIT);
    },
  },
  ...['context', 'timeline', 'usage', 'outputs', 'events', 'problems', 'runs'].map((tab) => ({
    name: `the run panel's ${tab} tab`,
    within: 'section.run-panel',
    reach: async ({ page }: StudioSession) => {
      await page.getByTestId(`run-tab-${tab}`).click();
    },
  })),
  {
    name: "the run panel's credit tab with a bar per member",
    within: 'section.run-panel',
    reach: async ({ page }) => {
      await page.getByTestId('run-tab-credit').click();
      await page.getByTestId('credit-start').click();
      await page.getByTestId('credit-bar').first().waitFor(WAIT);
    },
  },
  {
    name: 'the inspector with an agent selected',
    within: 'aside.inspector',
    reach: async ({ page }) => {
      await page.getByTestId('node-leader').click();
      await page.locator('aside.inspector .monaco-editor').first().waitFor(WAIT);
    },
  },
  {
    name: 'the editor with a CuisineWorld template open',
    reach: async ({ page }) => {
      await openTemplate(page, 'cuisineworld-short-demo.society.json', 'kitchen');
    },
  },
  {
    name: "the run panel's episodes after a simulated CuisineWorld run",
    within: 'section.run-panel',
    reach: async ({ page }) => {
      await runSimulated(page);
      await page.locator('[data-testid^="run-tab-report:"]').first().click();
    },
  },
  {
    name: "the run panel's analytics after a simulated ITCMA-S run",
    within: 'section.run-panel',
    reach: async ({ page }) => {
      await openTemplate(page, 'itcma-irollan-valley-short.society.json', 'valley');
      await runSimulated(page);
      await page.getByTestId('run-tab-report:analytics').click();
      await page.getByTestId('analytics-heatmap').waitFor(WAIT);
    },
  },
  {
    name: 'the machine view',
    within: '[data-testid="machine-view"]',
    reach: async ({ page }) => {
      await page.getByTestId('tb-machine').click();
      await page.getByTestId('machine-view').waitFor(WAIT);
    },
  },
  {
    name: 'the evals view with an eval open',
    within: '[data-testid="evals-view"]',
    reach: async ({ page }, evalId) => {
      await page.getByTestId('tb-evals').click();
      await page.locator(`[data-testid="evals-list"] li[data-eval="${evalId}"]`).click();
      await page
        .getByTestId('eval-chart-scores')
        .locator('svg.recharts-surface')
        .first()
        .waitFor(WAIT);
    },
  },
  {
    name: 'settings',
    within: '[data-testid="settings-modal"]',
    reach: async ({ page }) => {
      await page.getByTestId('tb-evals').click();
      await page.getByTestId('settings-button').click();
      await page.getByTestId('settings-keys').waitFor(WAIT);
    },
  },
];

/** What the tests read of the page's globals (they are typed for Node, without the DOM's). */
interface PageGlobals {
  document: { documentElement: unknown };
  getComputedStyle(element: unknown): { backgroundColor: string };
}

/** The page's background as the user sees it: light (true) or dark. */
async function looksLight(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
    const [r, g, b] = getComputedStyle(document.documentElement)
      .backgroundColor.match(/[\d.]+/g)!
      .map(Number) as [number, number, number];
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 > 0.6;
  });
}

/**
 * The axe rules whose outcome depends on colours: all a theme changes. The other rules (names,
 * roles, structure) see the same page in either theme, so they run in the first theme checked.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/** Serious and critical axe violations on the page (or the part `within`), one line each. */
async function axeProblems(page: Page, within?: string, rules?: string[]): Promise<string[]> {
  return seriousViolations(
    await axeCheck(page, { ...(within ? { include: [within] } : {}), ...(rules ? { rules } : {}) }),
  );
}

describe.skipIf(!HAVE_CHROMIUM)('themes and accessibility', () => {
  const studio = studioForSuite();
  let evalId = '';

  beforeAll(async () => {
    // An eval to find in the Evals view, as `society eval` stores one.
    evalId = await storeQaEval(studio().dbFile);
  }, 30_000);

  // One test per view, in order on the same page: each starts where the previous one left it.
  for (const view of VIEWS) {
    it(`${view.name}: no serious or critical axe violation, dark or light as the system is`, async () => {
      const s = studio();
      const { page } = s;
      await view.reach(s, evalId);
      const problems: string[] = [];
      for (const scheme of ['dark', 'light'] as Scheme[]) {
        await page.emulateMedia({ colorScheme: scheme });
        // No choice saved: the studio is what the system says.
        await expect.poll(() => looksLight(page)).toBe(scheme === 'light');
        const rules = scheme === 'dark' ? undefined : COLOUR_RULES;
        for (const p of await axeProblems(page, view.within, rules))
          problems.push(`${scheme}: ${p}`);
        await s.screenshot(`theme-${view.name.replace(/\W+/g, '-')}-${scheme}`);
      }
      expect(problems, problems.join('\n')).toEqual([]);
      expect(s.pageErrors).toEqual([]);
    }, 60_000);
  }

  it('Settings picks a theme over the system one, and the pick survives a reload', async () => {
    const s = studio();
    const { page } = s;
    await page.emulateMedia({ colorScheme: 'dark' });
    if (!(await page.getByTestId('settings-theme').isVisible()))
      await page.getByTestId('settings-button').click();
    const theme = page.getByTestId('settings-theme');
    await theme.scrollIntoViewIfNeeded();
    expect(await page.getByTestId('theme-system').isChecked()).toBe(true);
    await page.getByTestId('theme-light').check();
    await expect.poll(() => looksLight(page)).toBe(true);
    expect(await axeProblems(page)).toEqual([]);

    // After a reload the page is light at once, the system still dark.
    await page.reload();
    await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
    expect(await looksLight(page)).toBe(true);
    await page.getByTestId('settings-button').click();
    expect(await page.getByTestId('theme-light').isChecked()).toBe(true);
    // Back to the system's scheme: dark again, and light when the system turns light.
    await page.getByTestId('theme-system').check();
    await expect.poll(() => looksLight(page)).toBe(false);
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => looksLight(page)).toBe(true);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
