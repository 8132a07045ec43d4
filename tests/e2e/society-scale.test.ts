/**
 * The editor at the Artist–Critic's scale, in Chromium through the studio: 26 artist mindstorms
 * (a group replicated over art styles) shown as one card that opens to its members, 50 critics
 * as one card, a simulated run's 259 messages narrowed to one artist and one round, and the
 * critics' vote charted with every label on its own line and every ballot in a scrolling list.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ART_STYLES, artistCriticDocument, PROFESSIONS } from '../../bench/editor-artist-critic.ts';
import {
  type Box,
  HAVE_CHROMIUM,
  overlaps,
  studioForSuite,
  visibleBox,
  zoomToFullDetail,
} from './support.ts';

const FILE = 'artist-critic.society.json';
/** Model calls of the society at 3 rounds: 26 · (2·3 + 2) + 50 + 1. */
const MESSAGES = 26 * 8 + 51;

async function boxesOf(page: Page, testId: string): Promise<Box[]> {
  const boxes: Box[] = [];
  for (const element of await page.getByTestId(testId).all()) {
    const box = await element.boundingBox();
    if (box) boxes.push(box);
  }
  return boxes;
}

describe.skipIf(!HAVE_CHROMIUM)('the editor at society scale', () => {
  const studio = studioForSuite();

  it('shows 26 artists as one card, narrows the transcript, charts 50 ballots legibly', async () => {
    const s = studio();
    const { page } = s;
    writeFileSync(path.join(s.workspace, FILE), JSON.stringify(artistCriticDocument()));
    await page.getByTestId('tb-open').click();
    await page.getByTestId(`file-${FILE}`).click();

    // One card for the 26 artists, its members hidden; one for the 50 critics.
    const artists = page.getByTestId('node-artists');
    await artists.waitFor();
    expect(await artists.getAttribute('class')).toContain('collapsed');
    expect(await page.getByTestId('replicas-artists').textContent()).toBe('×26');
    expect(await page.getByTestId('replicas-critic').textContent()).toBe('×50');
    const card = page.getByTestId('collapsed-artists');
    // The card's items and members are drawn at full detail (100% zoom and more).
    await zoomToFullDetail(page, artists);
    expect(await card.locator('.collapsed-items-list').textContent()).toBe(
      ART_STYLES.slice(0, 3).join(', '),
    );
    await visibleBox(card.locator('.collapsed-more').filter({ hasText: '+23 more' }));
    expect(await page.getByTestId('node-questioner').count()).toBe(0);
    // The input's edge to a hidden member ends on the card, at that member's port.
    await visibleBox(page.getByTestId('rf__edge-object.value->questioner.object'));
    await visibleBox(page.getByTestId('handle-artists-in-questioner.object'));
    await s.screenshot('society-scale-collapsed');

    // Opened, the group shows its mindstorm and the agents in it.
    await page.getByTestId('collapse-artists').click();
    await visibleBox(page.getByTestId('node-questioner'));
    await visibleBox(page.getByTestId('node-storm'));
    expect(await page.getByTestId('collapse-artists').getAttribute('aria-expanded')).toBe('true');
    expect(await page.getByTestId('handle-artists-in-questioner.object').count()).toBe(0);
    await s.screenshot('society-scale-opened');
    await page.getByTestId('collapse-artists').click();
    await expect.poll(() => page.getByTestId('node-questioner').count()).toBe(0);

    // A simulated run, held at round 2: the transcript narrows as messages arrive.
    await page.getByTestId('break-round').fill('2');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/paused/i);
    // Held at a round of one artist's mindstorm, hidden in the card: the card says so.
    expect(await artists.getAttribute('data-state')).toBe('paused');
    await page.getByTestId('run-tab-transcript').click();
    await page.getByTestId('transcript-filter-member').selectOption('first');
    const count = page.getByTestId('transcript-count');
    const held = (await count.textContent()) ?? '';
    expect(held).toMatch(/^\d+ of \d+ messages$/);
    expect(Number(held.split(' of ')[1]?.split(' ')[0])).toBeLessThan(MESSAGES);
    await page.getByTestId('break-round').fill('');
    await page.getByTestId('tb-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/succeeded/i);
    // Every artist's first answer, once the run is over.
    await expect.poll(() => count.textContent()).toBe(`26 of ${MESSAGES} messages`);
    await page.getByTestId('transcript-filter-clear').click();
    // The card stands for its members: done when they are.
    expect(await artists.getAttribute('data-state')).toBe('done');
    // Narrowed to one artist's second round.
    await expect.poll(() => count.textContent()).toBe(`${MESSAGES} messages`);
    await page.getByTestId('transcript-filter-member').selectOption('questioner');
    await page.getByTestId('transcript-filter-copy').selectOption('artists#3');
    expect(
      await page.getByTestId('transcript-filter-copy').locator('option:checked').textContent(),
    ).toBe(`artists#3 (${ART_STYLES[3]})`);
    expect(await count.textContent()).toBe(`3 of ${MESSAGES} messages`);
    await page.getByTestId('transcript-filter-round').selectOption('r2');
    expect(await count.textContent()).toBe(`1 of ${MESSAGES} messages`);
    const message = page.getByTestId('message');
    expect(await message.count()).toBe(1);
    expect(await message.locator('.message-from').textContent()).toBe('artists#3/questioner@r2');
    expect(await message.locator('.message-item').textContent()).toBe(ART_STYLES[3]);
    // The other artists' second rounds, by dropping the member and the copy.
    await page.getByTestId('transcript-filter-member').selectOption('');
    expect(await count.textContent()).toBe(`52 of ${MESSAGES} messages`);
    await s.screenshot('society-scale-transcript');

    // The critics' vote: bars for the styles that got votes, most first, labels on one line
    // each and none over another, the winner starred, the 50 ballots in a list that scrolls.
    await page.getByTestId('run-tab-report:vote').click();
    const ticks = await boxesOf(page, 'tally-tick');
    expect(ticks.length).toBeGreaterThan(0);
    expect(ticks.length).toBeLessThanOrEqual(ART_STYLES.length);
    for (const [i, a] of ticks.entries()) {
      expect(a.height).toBeLessThan(20);
      for (const b of ticks.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
    }
    const winner = (await page.locator('.tally-winner-text').textContent()) ?? '';
    expect(ART_STYLES).toContain(winner);
    expect(await page.getByTestId('tally-tick').first().locator('text').textContent()).toBe(winner);
    // The winner's star sits left of its name, on no other label.
    const star = await visibleBox(page.locator('.tally-star'));
    expect(overlaps(star, ticks[0]!)).toBe(false);
    expect(Math.abs(star.y - ticks[0]!.y)).toBeLessThan(6);
    expect(await page.getByTestId('tally-ballots-toggle').textContent()).toBe('50 ballots');
    await page.getByTestId('tally-ballots-toggle').click();
    const rows = page.getByTestId('tally-ballots').locator('tr');
    expect(await rows.count()).toBe(50);
    expect(await rows.first().locator('code').textContent()).toBe(`critic#0 (${PROFESSIONS[0]})`);
    const list = await visibleBox(page.locator('.ballots-scroll'));
    expect(list.height).toBeLessThanOrEqual(240);
    expect(
      await page.locator('.ballots-scroll').evaluate((e) => e.scrollHeight > e.clientHeight),
    ).toBe(true);
    await s.screenshot('society-scale-votes');

    // The professions are a list in the inspector, one per line. The critic lies right of the
    // view, under the inspector: the canvas is dragged left from an empty spot above the wires,
    // as a person would, until the card is in the canvas, and clicked there.
    const critic = page.getByTestId('node-critic');
    const canvas = await visibleBox(page.getByTestId('canvas'));
    const inCanvas = async () => {
      const card = await critic.boundingBox();
      return (
        !!card &&
        card.x >= canvas.x &&
        card.y >= canvas.y &&
        card.x + card.width <= canvas.x + canvas.width &&
        card.y + card.height <= canvas.y + canvas.height
      );
    };
    for (let drag = 0; drag < 4 && !(await inCanvas()); drag++) {
      const from = { x: canvas.x + canvas.width - 60, y: canvas.y + 110 };
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(from.x - 400, from.y, { steps: 8 });
      await page.mouse.up();
    }
    await expect.poll(inCanvas).toBe(true);
    await critic.click();
    const items = page.getByTestId('field-replicate.items');
    expect(((await items.inputValue()) ?? '').split('\n')).toEqual(PROFESSIONS);
    await items.fill([...PROFESSIONS, 'sculptor'].join('\n'));
    // The card is drawn again after the document changes, with the run panel's 50 ballots and
    // 259 messages beside it: more than expect.poll's default second on a loaded machine.
    await expect
      .poll(() => page.getByTestId('replicas-critic').textContent(), { timeout: 10_000 })
      .toBe('×51');
    expect(s.pageErrors).toEqual([]);
  }, 60_000);

  it('edits the template’s styles, a list parameter, one per line for the artists’ sub-society', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-artist-critic.society.json').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    const artists = page.getByTestId('node-artists');
    await artists.waitFor();
    // One card for 26 artists: a sub-society node running the library's `artist` graph.
    expect(await artists.locator('.node-summary').textContent()).toBe('artist');
    expect(await page.getByTestId('replicas-artists').textContent()).toBe('×26');

    await artists.click();
    const items = page.getByTestId('field-replicate.items');
    const styles = ((await items.inputValue()) ?? '').split('\n');
    expect(styles).toHaveLength(26);
    expect(await page.getByTestId('field-replicate').textContent()).toContain('parameter styles');
    await items.fill([...styles, 'Ukiyo-e Artist'].join('\n'));
    await expect.poll(() => page.getByTestId('replicas-artists').textContent()).toBe('×27');
    expect(s.pageErrors).toEqual([]);
  }, 30_000);
});
