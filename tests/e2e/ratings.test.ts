/**
 * Rating eval items in Chromium: a simulated eval made with `--rubric itcma` shows its five
 * rating columns in the Evals view; a click on an item opens the rating panel under it, and a
 * person's scores saved there are stored with the run (read back through the store and the
 * CLI) and shown in the eval's table at once. The rater's name is remembered.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EvalItemRecord } from '../../app/eval/types.ts';
import { societyHere } from '../support/cli.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

const TRIVIA = fileURLToPath(new URL('../../docs/examples/trivia.society.json', import.meta.url));
const DATA = fileURLToPath(new URL('../../docs/examples/trivia.jsonl', import.meta.url));

describe.skipIf(!HAVE_CHROMIUM)('rating eval items in the studio', () => {
  const studio = studioForSuite();
  let evalId = '';
  let items: EvalItemRecord[] = [];

  beforeAll(async () => {
    // Into the studio's own store, as `society eval --db` would put it.
    const made = await societyHere([
      'eval',
      TRIVIA,
      '--data',
      DATA,
      '--map',
      'question=question',
      '--expect',
      'answer',
      '--scorer',
      'contains',
      '--limit',
      '3',
      '--simulate',
      '--rubric',
      'itcma',
      '--json',
      '-q',
      '--db',
      studio().dbFile,
    ]);
    expect(made.code, made.stderr).toBe(0);
    evalId = JSON.parse(made.stdout).evalId;
    items = studio().store.evalItems(evalId);
    expect(items).toHaveLength(3);
  }, 30_000);

  it('stores a rating entered in the panel and shows it in the eval table', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-evals').click();
    await page.locator(`[data-testid="eval-detail"][data-eval="${evalId}"]`).waitFor();

    // The table has a column per scale of the rubric, nothing rated yet.
    const variant = page.locator('[data-testid="eval-variants"] tr[data-variant="default"]');
    const headers = await page.locator('[data-testid="eval-variants"] th').allTextContents();
    expect(headers.slice(-5)).toEqual([
      'Personification',
      'Consistency',
      'Logicality',
      'Exploration',
      'Proactiveness',
    ]);
    const personification = variant.locator(
      '[data-testid="eval-rating"][data-scale="personification"]',
    );
    expect(await personification.textContent()).toBe('–');

    // A click on an item opens its run below and the rating panel under the item.
    const picked = items[1]!;
    await page.locator(`[data-testid="eval-item"][data-run="${picked.runId}"]`).click();
    const panel = page.locator(`[data-testid="rating-panel"][data-run="${picked.runId}"]`);
    await panel.waitFor();
    const scale = (id: string) => panel.locator(`[data-testid="rating-scale"][data-scale="${id}"]`);
    expect(await panel.getByTestId('rating-scale').count()).toBe(5);
    expect(await scale('exploration').textContent()).toContain('discover the world around it');
    expect(await panel.getByTestId('rating-save').isDisabled()).toBe(true);

    await scale('personification').locator('label', { hasText: /^6$/ }).click();
    await scale('consistency').locator('label', { hasText: /^5$/ }).click();
    await panel.getByTestId('rating-rater').fill('ada');
    await panel.getByTestId('rating-note').fill('reads like a person');
    await panel.getByTestId('rating-save').click();
    await expect
      .poll(() => panel.getByTestId('rating-status').textContent())
      .toBe('Saved 2 scores as ada');

    // Stored with the run, as the command line sees it.
    expect(
      s.store.ratingsOfRun(picked.runId!).map((r) => [r.rater, r.scale, r.score, r.note]),
    ).toEqual([
      ['ada', 'consistency', 5, 'reads like a person'],
      ['ada', 'personification', 6, 'reads like a person'],
    ]);
    const cli = await societyHere(['ratings', evalId, '--json', '--db', s.dbFile]);
    expect(JSON.parse(cli.stdout).ratings).toHaveLength(2);

    // Shown in the eval table: the mean per scale with its n.
    await expect.poll(() => personification.textContent()).toBe('6.00 n=1');
    expect(
      await variant.locator('[data-testid="eval-rating"][data-scale="consistency"]').textContent(),
    ).toBe('5.00 n=1');
    await s.screenshot('ratings-panel');
    await variant.scrollIntoViewIfNeeded();
    await s.screenshot('ratings-table');

    // Another item: the panel opens there, with the rater's name remembered.
    const next = items[2]!;
    await page.locator(`[data-testid="eval-item"][data-run="${next.runId}"]`).click();
    const other = page.locator(`[data-testid="rating-panel"][data-run="${next.runId}"]`);
    await other.waitFor();
    expect(await other.getByTestId('rating-rater').inputValue()).toBe('ada');
    await other
      .locator('[data-testid="rating-scale"][data-scale="personification"] label', {
        hasText: /^2$/,
      })
      .click();
    await other.getByTestId('rating-save').click();
    // Two items now: mean 4 over n = 2.
    await expect.poll(() => personification.textContent()).toBe('4.00 n=2');

    // Back on the first item, the panel starts from what ada gave it.
    await page.locator(`[data-testid="eval-item"][data-run="${picked.runId}"]`).click();
    const again = page.locator(`[data-testid="rating-panel"][data-run="${picked.runId}"]`);
    await again.waitFor();
    await expect.poll(() => again.getByLabel('Personification: 6').isChecked()).toBe(true);
    expect(s.pageErrors).toEqual([]);
    expect(s.foreignRequests).toEqual([]);
  }, 60_000);
});
