/**
 * A branch not taken, in the studio: the tie-judge template run simulated (both voters answer
 * yes, no tie), so its router does not take the `tie` branch and the judge never starts. The
 * canvas shows the judge as skipped with why, the machine view marks its task skipped, and no
 * call of it is recorded. The coin fixture (a node type that is its folder alone) does the same
 * for the side its seeded toss did not show, and lists its toss in a run-panel tab of its own
 * ("Coin", its run-view.tsx), which a run without a coin does not have.
 */
import { describe, expect, it } from 'vitest';
import { registryWithFixtures } from './fixture-nodes.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

/** The coin fixture (tests/e2e/fixture-nodes/coin/): each side leads to an agent, merged. */
const COIN_TOSS = {
  version: 1,
  name: 'Coin toss',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  settings: { seed: 1 },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 100 }, data: { name: 'q', example: 'go' } },
    { id: 'coin', type: 'coin', position: { x: 220, y: 100 }, data: {} },
    {
      id: 'heads',
      type: 'agent',
      position: { x: 440, y: 0 },
      data: { model: 'm', prompt: 'heads: {{ t }}' },
    },
    {
      id: 'tails',
      type: 'agent',
      position: { x: 440, y: 200 },
      data: { model: 'm', prompt: 'tails: {{ t }}' },
    },
    { id: 'join', type: 'merge', position: { x: 660, y: 100 }, data: { inputs: 2 } },
    { id: 'answer', type: 'output', position: { x: 880, y: 100 }, data: { name: 'answer' } },
  ],
  edges: [
    ['q', 'value', 'coin', 'value'],
    ['coin', 'heads', 'heads', 't'],
    ['coin', 'tails', 'tails', 't'],
    ['heads', 'text', 'join', 'a'],
    ['tails', 'text', 'join', 'b'],
    ['join', 'value', 'answer', 'value'],
  ].map(([source, sourceHandle, target, targetHandle]) => ({
    id: `${source}.${sourceHandle}-${target}.${targetHandle}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  })),
};

describe.skipIf(!HAVE_CHROMIUM)('a branch not taken in the studio', () => {
  // The studio's engine knows the fixture node types too (the coin), as its editor does.
  const studio = studioForSuite(async () => ({ registry: await registryWithFixtures() }));

  it('shows the judge skipped on the canvas and in the machine view when the ballots do not tie', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-tie-judge.society.json').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('node-judge').waitFor();

    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    const status = page.getByTestId('status-judge');
    await expect.poll(() => status.textContent()).toBe('skipped');
    expect(await status.getAttribute('title')).toBe('route.tie: no rule matched');
    expect(await page.getByTestId('node-judge').getAttribute('data-state')).toBe('skipped');
    // What did run is shown as done; the run made the voters' two calls, not the judge's.
    expect(await page.getByTestId('node-route').getAttribute('data-state')).toBe('done');
    expect(await page.getByTestId('node-decision').getAttribute('data-state')).toBe('done');
    await expect.poll(() => page.getByTestId('run-usage').textContent()).toMatch(/^2 calls · /);
    // No coin reported in this run: no Coin tab; the voters' tally has its Votes tab.
    expect(await page.getByTestId('run-tab-report:coin').count()).toBe(0);
    expect(await page.getByTestId('run-tab-report:vote').textContent()).toBe('Votes1');
    await s.screenshot('branch-skipped-canvas');

    await page.getByTestId('tb-machine').click();
    const judge = page.locator('[data-testid^="machine-highlight-"][data-testid$="/#judge"]');
    await expect.poll(() => judge.textContent(), { timeout: 10_000 }).toBe('skipped');
    expect(await page.locator('.mv-legend').textContent()).toContain('skipped');
    const route = page.locator('[data-testid^="machine-highlight-"][data-testid$="/#route"]');
    expect(await route.textContent()).toBe('done');
    await s.screenshot('branch-skipped-machine');
    expect(s.pageErrors).toEqual([]);
  });

  it('shows the side the seeded coin did not show as skipped, a node type from its folder alone', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'coin.society.json', COIN_TOSS, 'coin');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded', 'succeeded']);
    const state = (id: string) => page.getByTestId(`node-${id}`).getAttribute('data-state');
    await expect.poll(() => state('join')).toBe('done');
    const shown = (await state('heads')) === 'done' ? 'heads' : 'tails';
    const other = shown === 'heads' ? 'tails' : 'heads';
    expect(await state(other)).toBe('skipped');
    expect(await page.getByTestId(`status-${other}`).getAttribute('title')).toBe(
      `coin.${other}: the coin showed ${shown}`,
    );
    await expect.poll(() => page.getByTestId('run-usage').textContent()).toMatch(/^1 calls? · /);
    // The coin's own tab lists its toss: the side that ran.
    const coinTab = page.getByTestId('run-tab-report:coin');
    expect(await coinTab.textContent()).toBe('Coin1');
    await coinTab.click();
    const flip = page.getByTestId('coin-flip-coin');
    expect(await flip.locator('td').nth(1).textContent()).toBe(shown);
    await s.screenshot('coin-run-view');
    // The machine view, still open from the test before, is redrawn for this document.
    const skippedBox = page.locator(
      `[data-testid^="machine-highlight-"][data-testid$="/#${other}"]`,
    );
    await expect.poll(() => skippedBox.textContent(), { timeout: 10_000 }).toBe('skipped');
    await s.screenshot('coin-skipped');
    expect(s.pageErrors).toEqual([]);
  });
});
