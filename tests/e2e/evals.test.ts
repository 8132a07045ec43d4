/**
 * Evals in Chromium: the editor's Evals view shows a finished eval (made by `society eval` in the
 * studio's own store) with its recharts chart, and a click on an item opens that item's run in
 * the debugger; the `--report` page opens with no request leaving it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EvalItemRecord } from '../../app/eval/types.ts';
import { societyHere } from '../support/cli.ts';
import { qaEvalArgs, writeQaEval } from '../support/qa-eval.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** Where these tests save their screenshots. */
const SHOTS = fileURLToPath(new URL('../../test-results/evals/', import.meta.url));

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

describe.skipIf(!HAVE_CHROMIUM)('evals in the studio', () => {
  const studio = studioForSuite();
  const files = writeQaEval();
  const report = path.join(files.dir, 'report.html');
  let evalId = '';
  let items: EvalItemRecord[] = [];

  beforeAll(async () => {
    // The eval goes into the studio's own store, as a user's `society eval --db` would.
    const args = qaEvalArgs(files, studio().dbFile, report);
    const run = await societyHere(args);
    expect(run.code, run.stderr).toBe(0);
    evalId = JSON.parse(run.stdout).evalId;
    items = studio().store.evalItems(evalId);
  }, 30_000);

  it("shows a finished eval's table and chart, and opens an item's run in the debugger", async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-evals').click();
    const row = page.locator(`[data-testid="evals-list"] li[data-eval="${evalId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toMatch(/one question.*simulated.*finished/);
    const detail = page.locator(`[data-testid="eval-detail"][data-eval="${evalId}"]`);
    await detail.waitFor();
    expect(await page.getByTestId('eval-simulated').isVisible()).toBe(true);
    // The table: a line per variant; `contains` scores one row of four (grass is green).
    const small = page.locator('[data-testid="eval-variants"] tr[data-variant="small"]');
    expect(await small.textContent()).toContain('0.250');

    // The chart is recharts' SVG with a bar per variant and its error bar.
    const chart = page.getByTestId('eval-chart-scores');
    await chart.locator('svg.recharts-surface').first().waitFor();
    await expect.poll(() => chart.locator('.recharts-bar-rectangle path').count()).toBe(2);
    expect(await chart.locator('.recharts-errorBar').count()).toBeGreaterThanOrEqual(2);
    expect(
      await page.getByTestId('eval-chart-cost').locator('.recharts-scatter-symbol').count(),
    ).toBe(2);
    expect(await page.getByTestId('eval-item').count()).toBe(8);
    await shot(page, 'evals-view');

    // A click on an item opens its run below: the transcript of what its agent said.
    const picked = items.find((i) => i.variant === 'big' && i.score === 1)!;
    await page.locator(`[data-testid="eval-item"][data-run="${picked.runId}"]`).click();
    await expect.poll(() => page.getByTestId('run-status').textContent()).toMatch(/succeeded/i);
    expect(await page.locator('.run-bar code').textContent()).toBe(picked.runId);
    const message = page.getByTestId('message').first();
    await message.waitFor();
    expect(await message.textContent()).toContain('grass green');
    expect(
      await page
        .locator(`[data-testid="eval-item"][data-run="${picked.runId}"]`)
        .getAttribute('class'),
    ).toContain('current');
    await shot(page, 'evals-item-run');

    // The keyboard opens another item's run as well.
    const other = items.find((i) => i.variant === 'small' && i.item === 0)!;
    await page
      .locator(
        `[data-testid="eval-item"][data-run="${other.runId}"] [data-testid="eval-item-open"]`,
      )
      .press('Enter');
    await expect.poll(() => page.locator('.run-bar code').textContent()).toBe(other.runId);
    expect(s.pageErrors).toEqual([]);
    expect(s.foreignRequests).toEqual([]);
  }, 60_000);

  it('opens the HTML report in Chromium with no request leaving the page', async () => {
    const s = studio();
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const page = await context.newPage();
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('console', (m) => problems.push(`${m.type()}: ${m.text()}`));
      page.on('pageerror', (e) => problems.push(e.message));
      const url = pathToFileURL(report).href;
      await page.goto(url);
      // The page is all there: both charts, a bar per variant, the worst items with run ids.
      expect(await page.locator('svg[data-chart="scores"] g.bar').count()).toBe(2);
      expect(await page.locator('svg[data-chart="cost"] g.point').count()).toBe(2);
      expect(await page.locator('[data-simulated]').isVisible()).toBe(true);
      const runIds = await page.locator('[data-table="worst"] code.run-id').allTextContents();
      expect(runIds).toContain(items[0]!.runId);
      // A row's markup shows as text.
      expect(await page.getByText('Name a <b>bold</b> tag').count()).toBeGreaterThan(0);
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'report.png'), fullPage: true });
      expect(requests).toEqual([url]);

      // Loaded as content, with every request of the page caught: there is none at all.
      const caught: string[] = [];
      await page.route('**/*', (route) => {
        caught.push(route.request().url());
        return route.abort();
      });
      await page.setContent(readFileSync(report, 'utf8'));
      expect(await page.locator('svg[data-chart="scores"] g.bar').count()).toBe(2);
      expect(caught).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 30_000);
});
