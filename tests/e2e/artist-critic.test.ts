/**
 * The Artist–Critic society as a researcher first meets it, in Chromium through the studio:
 * opened from the gallery, run with simulated answers, held once at round 2 for all 26 artists'
 * loops, one artist's context read (what its answerer was sent, in its own style), one Continue
 * to the end, and the critics' 50 ballots charted.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite, visibleBox } from './support.ts';

const TEMPLATE = 'nlsom-artist-critic.society.json';

describe.skipIf(!HAVE_CHROMIUM)('the Artist–Critic from the gallery', () => {
  const studio = studioForSuite();

  it('runs simulated, holds at round 2, shows an artist’s context and the 50-ballot vote', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId(`template-${TEMPLATE}`).waitFor();
    await page.getByTestId(`template-open-${TEMPLATE}`).click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('node-artists').waitFor();
    expect(await page.getByTestId('replicas-artists').textContent()).toBe('×26');
    expect(await page.getByTestId('replicas-critic').textContent()).toBe('×50');

    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('break-round').fill('2');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/paused/i);
    expect(await page.getByTestId('paused-banner').textContent()).toMatch(/before round 2/);
    // Held for all the artists' loops at once; one copy alone is an option.
    expect(await page.getByTestId('break-round-copy').isChecked()).toBe(false);
    await s.screenshot('artist-critic-paused');

    // Open the artists' sub-society (the library's `artist` graph) and pick one artist's
    // answerer: the Context tab shows what it was sent, its style in the system message, and
    // what it answered.
    await page.getByTestId('node-artists').dblclick();
    await page.getByTestId('node-talk').waitFor();
    // Every card reads its data with the parameters bound: none says its data has problems.
    expect(await page.locator('.invalid').count()).toBe(0);
    expect(await page.getByTestId('rounds-talk').textContent()).toBe('rounds ×3');
    await page.getByTestId('node-answerer').click();
    await page.getByTestId('run-tab-context').click();
    const pick = page.getByTestId('context-instance');
    await pick.waitFor();
    const artists = (await pick.locator('option').allTextContents()).filter((o) =>
      /^artists#\d+\/answerer@r1/.test(o),
    );
    expect(artists.length).toBeGreaterThan(0);
    const chosen = artists[0]!.replace(/ \(calling…\)$/, '');
    await pick.selectOption(chosen);
    await expect.poll(() => page.getByTestId('context-meta').textContent()).toContain(chosen);
    const sent = (await page.getByTestId('context-message').allTextContents()).join('\n');
    expect(sent).toMatch(/You are a .+ (Artist|Photographer)\./);
    // The answerer keeps one conversation: its first answer comes before round 1's question.
    expect(sent).toContain('What would you put in it to show that');
    expect(await page.getByTestId('context-answer').textContent()).toContain('[simulated]');
    await s.screenshot('artist-critic-context');

    // Go on to the end with the breakpoint still set: the 26 artists' loops reached round 2
    // together and one Continue let them all through (259 calls), then the critics' vote.
    await page.getByTestId('run-tab-inputs').click();
    expect(await page.getByTestId('break-round').inputValue()).toBe('2');
    await page.getByTestId('tb-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 })
      .toMatch(/succeeded/i);
    const [run] = s.store.listRuns();
    expect(s.store.events(run!.id, { types: ['paused'] })).toHaveLength(1);
    await page.getByTestId('run-tab-report:vote').click();
    expect(await page.getByTestId('tally-ballots-toggle').textContent()).toBe('50 ballots');
    const ticks = page.getByTestId('tally-tick');
    expect(await ticks.count()).toBeGreaterThan(1);
    await visibleBox(ticks.first());
    await page.getByTestId('tally-ballots-toggle').click();
    expect(await page.getByTestId('tally-ballots').locator('tr').count()).toBe(50);
    await s.screenshot('artist-critic-votes');
    expect(s.pageErrors).toEqual([]);
  }, 90_000);
});
