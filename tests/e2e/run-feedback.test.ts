import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { savedFile } from './download.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** Three agents propose a slogan each and a vote picks one: live, it needs OpenAI's key. */
const SOCIETY = {
  version: 1,
  name: 'Slogans',
  models: { default: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'topic', type: 'input', position: { x: 0, y: 160 }, data: { name: 'topic' } },
    ...[0, 1, 2].map((i) => ({
      id: `a${i}`,
      type: 'agent',
      position: { x: 280, y: i * 170 },
      data: { prompt: 'Propose a slogan for {{ topic }}.', model: 'default' },
    })),
    { id: 'pick', type: 'vote', position: { x: 560, y: 160 }, data: {} },
    { id: 'slogan', type: 'output', position: { x: 820, y: 160 }, data: { name: 'slogan' } },
  ],
  edges: [
    ...[0, 1, 2].flatMap((i) => [
      {
        id: `t${i}`,
        source: 'topic',
        sourceHandle: 'value',
        target: `a${i}`,
        targetHandle: 'topic',
      },
      {
        id: `b${i}`,
        source: `a${i}`,
        sourceHandle: 'text',
        target: 'pick',
        targetHandle: 'ballots',
      },
    ]),
    { id: 'w', source: 'pick', sourceHandle: 'winner', target: 'slogan', targetHandle: 'value' },
  ],
};

describe.skipIf(!HAVE_CHROMIUM)('what a run tells the person who started it', () => {
  const studio = studioForSuite();

  it('refuses a live run without its key, pointing to Settings, then votes simulated with readable ballots and a download', async () => {
    const s = studio();
    const { page } = s;
    writeFileSync(path.join(s.workspace, 'slogans.society.json'), JSON.stringify(SOCIETY));
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-slogans.society.json').click();
    await page.getByTestId('node-pick').waitFor();
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-topic').fill('coffee');

    // Live, without a key: refused before the run starts, and the advice is the studio's, not
    // the command line's.
    // Run live asks for the estimate first (under the threshold, it starts without asking).
    await page.getByTestId('tb-run-live').click();
    const notice = page.getByTestId('notice');
    await notice.getByTestId('notice-open-keys').waitFor();
    const said = (await notice.textContent()) ?? '';
    expect(said).toMatch(
      /OPENAI_API_KEY \(provider "openai" with model profile default, for nodes a0, a1, a2\)/,
    );
    expect(said).toMatch(/Settings → Keys/);
    expect(said).not.toMatch(/--simulate|export it/);
    // The notice offers the two ways on: Settings → Keys, and Run simulated.
    expect(await notice.getByTestId('notice-open-keys').textContent()).toBe('Open Settings → Keys');
    expect(await notice.getByTestId('notice-run-simulated').textContent()).toBe('Run simulated');
    expect(await page.getByTestId('run-error').textContent()).toMatch(/OPENAI_API_KEY/);
    expect(await page.getByTestId('run-usage').textContent()).toMatch(/^0 calls · /);
    expect(s.store.listRuns()).toEqual([]);
    await s.screenshot('run-missing-key');
    await notice.getByTestId('notice-open-keys').click();
    await page.getByTestId('settings-key-input-OPENAI_API_KEY').waitFor();
    await page.keyboard.press('Escape');
    if (await page.getByTestId('settings-key-input-OPENAI_API_KEY').count())
      await page.locator('[data-testid$="-close"]').first().click();

    // Refused again, and Run simulated taken from the notice.
    await page.getByTestId('tb-run-live').click();
    await notice.getByTestId('notice-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);
    expect(await page.getByTestId('run-usage').textContent()).toMatch(/^3 calls · /);
    expect(s.store.listRuns().map((r) => r.mode)).toEqual(['simulated']);

    // Long ballots stay on one line each on the chart, whole in their tooltip; the winner is
    // written out whole, its quotation closed.
    await page.getByTestId('run-tab-report:vote').click();
    const ticks = page.getByTestId('tally-tick');
    await expect.poll(() => ticks.count()).toBeGreaterThan(0);
    for (const tick of await ticks.all()) {
      const shown = (await tick.locator('text').textContent()) ?? '';
      const whole = (await tick.locator('title').textContent()) ?? '';
      expect(shown.length).toBeLessThanOrEqual(28);
      expect(whole.startsWith(shown.replace(/…$/, ''))).toBe(true);
    }
    const winner = (await page.locator('.tally-winner-text').textContent()) ?? '';
    expect(winner.split('"').length % 2).toBe(1);
    await s.screenshot('run-vote-chart');

    // Each output downloads as a file.
    await page.getByTestId('run-tab-outputs').click();
    const shown = await page.getByTestId('output-slogan').locator('pre').textContent();
    expect(shown).toBe(winner);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('output-download-slogan').click(),
    ]);
    expect(download.suggestedFilename()).toBe('slogan.txt');
    expect(readFileSync(await savedFile(download), 'utf8')).toBe(winner);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
