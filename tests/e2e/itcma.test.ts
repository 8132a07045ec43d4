/**
 * ITCMA-S in Chromium: the 3-step Irollan Valley run simulated in the studio shows its heat map
 * (all six agents, chats or not) and its resources, driver and topic charts in the Analytics tab;
 * the ablation made by `society itcma eval` appears in the Evals view, and a rating entered in the
 * panel for one of its runs is stored and shown in the eval table.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { societyHere } from '../support/cli.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

const WAIT = { timeout: 10_000 };
const SHORT = fileURLToPath(
  new URL('../../templates/itcma-irollan-valley-short.society.json', import.meta.url),
);

describe.skipIf(!HAVE_CHROMIUM)('ITCMA-S in the studio', () => {
  const studio = studioForSuite();

  it('shows the heat map and the resources chart after a simulated run', async () => {
    const s = studio();
    const { page } = s;
    copyFileSync(SHORT, path.join(s.workspace, 'valley.society.json'));
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-valley.society.json').click();
    await page.getByTestId('node-valley').waitFor(WAIT);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);

    await page.getByTestId('run-tab-report:analytics').click();
    const heatmap = page.getByTestId('analytics-heatmap');
    await heatmap.waitFor(WAIT);
    // Every agent has a row, whether it chatted or not.
    expect(await heatmap.locator('tbody th').allTextContents()).toEqual([
      'AY',
      'LL',
      'MD',
      'SG',
      'WL',
      'WM',
    ]);
    expect(await heatmap.locator('td').count()).toBe(36);
    const resources = page.getByTestId('analytics-series-resources');
    await expect.poll(() => resources.locator('.recharts-line').count(), WAIT).toBe(6);
    await expect
      .poll(
        () => page.getByTestId('analytics-series-driver').locator('.recharts-line').count(),
        WAIT,
      )
      .toBe(6);
    await page.getByTestId('analytics-series-topic').waitFor(WAIT);
    await s.screenshot('itcma-analytics');
    expect(s.pageErrors).toEqual([]);
  }, 60_000);

  it('rates an ablation run in the panel and shows the rating in the eval table', async () => {
    const s = studio();
    const { page } = s;
    const made = await societyHere([
      'itcma',
      'eval',
      '--document',
      SHORT,
      '--seeds',
      '1',
      '--steps',
      '2',
      '--architectures',
      'full,original',
      '--simulate',
      '--json',
      '-q',
      '--db',
      s.dbFile,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const evalId = JSON.parse(made.stdout).evalId as string;
    const items = s.store.evalItems(evalId);
    expect(items.map((i) => i.variant).sort()).toEqual(['full', 'original']);

    await page.getByTestId('tb-evals').click();
    await page.locator(`[data-testid="eval-detail"][data-eval="${evalId}"]`).waitFor(WAIT);
    const full = items.find((i) => i.variant === 'full')!;
    await page.locator(`[data-testid="eval-item"][data-run="${full.runId}"]`).click();
    const panel = page.locator(`[data-testid="rating-panel"][data-run="${full.runId}"]`);
    await panel.waitFor(WAIT);
    await panel
      .locator('[data-testid="rating-scale"][data-scale="proactiveness"] label', { hasText: /^6$/ })
      .click();
    await panel.getByTestId('rating-rater').fill('rater-1');
    await panel.getByTestId('rating-save').click();
    await expect
      .poll(() => panel.getByTestId('rating-status').textContent(), WAIT)
      .toBe('Saved 1 score as rater-1');
    expect(s.store.ratingsOfRun(full.runId!).map((r) => [r.scale, r.score])).toEqual([
      ['proactiveness', 6],
    ]);
    const row = page.locator('[data-testid="eval-variants"] tr[data-variant="full"]');
    await expect
      .poll(() =>
        row.locator('[data-testid="eval-rating"][data-scale="proactiveness"]').textContent(),
      )
      .toBe('6.00 n=1');
    const shown = await societyHere(['eval-show', evalId, '--db', s.dbFile]);
    expect(shown.stdout).toMatch(/full.*6\.00/);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
