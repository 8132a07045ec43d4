/**
 * The run view's Analytics tab: a run whose node reports interactions and series (the fixture
 * type `gossip`, tests/e2e/fixture-nodes/gossip/) shows its heat map and one chart per series;
 * a run without them has no such tab.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryWithFixtures } from './fixture-nodes.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

const WAIT = { timeout: 10_000 };

/** Three days of a four-agent village, two steps a day. */
const VILLAGE = {
  version: 1,
  name: 'Village',
  settings: { seed: 3 },
  nodes: [
    { id: 'days', type: 'chorus', version: 2, position: { x: 40, y: 40 }, data: { times: 3 } },
    {
      id: 'village',
      type: 'gossip',
      parentId: 'days',
      position: { x: 40, y: 60 },
      data: { steps: 2 },
    },
    { id: 'summary', type: 'output', position: { x: 520, y: 60 }, data: { name: 'summary' } },
  ],
  edges: [
    {
      id: 'e1',
      source: 'village',
      sourceHandle: 'text',
      target: 'summary',
      targetHandle: 'value',
    },
  ],
};

describe.skipIf(!HAVE_CHROMIUM)('the Analytics tab', () => {
  const studio = studioForSuite(async () => ({ registry: await registryWithFixtures() }));

  it('shows who chatted with whom and a chart per series after a simulated run', async () => {
    const s = studio();
    const { page } = s;
    // A document with no run yet: no Analytics tab.
    expect(await page.getByTestId('run-tab-report:analytics').count()).toBe(0);
    writeFileSync(path.join(s.workspace, 'village.society.json'), JSON.stringify(VILLAGE));
    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-village.society.json').click();
    await page.getByTestId('node-village').waitFor(WAIT);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), WAIT)
      .toMatch(/succeeded/i);

    await page.getByTestId('run-tab-report:analytics').click();
    const heatmap = page.getByTestId('analytics-heatmap');
    await heatmap.waitFor(WAIT);
    expect(await heatmap.locator('tbody th').allTextContents()).toEqual([
      'ann',
      'bob',
      'cy',
      'dee',
    ]);
    // Every cell names its pair and count; dee only waves, so its chat row is empty.
    const cells = heatmap.locator('td');
    expect(await cells.count()).toBe(16);
    const counts = await cells.evaluateAll((tds) => tds.map((td) => Number(td.dataset.count)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(18);
    expect(counts.slice(12)).toEqual([0, 0, 0, 0]);
    expect(await cells.nth(12).getAttribute('title')).toBe('dee → ann: 0 chat interactions');
    expect(await page.getByTestId('analytics-heatmap-summary').textContent()).toContain(
      '18 chat interactions among 4 agents',
    );
    expect(await page.getByTestId('analytics-heatmap-summary').textContent()).toMatch(
      /never started one: dee \(received \d+\)/,
    );

    // The wave kind is one choice away.
    await page.getByTestId('analytics-kind').selectOption('wave');
    await expect
      .poll(() => page.getByTestId('analytics-heatmap-summary').textContent(), WAIT)
      .toContain('6 wave interactions');

    // Resources: a line per agent over six steps; topics: a row per area.
    const resources = page.getByTestId('analytics-series-resources');
    await expect.poll(() => resources.locator('.recharts-line').count(), WAIT).toBe(4);
    expect(await resources.locator('h3').textContent()).toBe('Resources (coins)');
    const topic = page.getByTestId('analytics-series-topic');
    expect(await topic.locator('tbody th').allTextContents()).toEqual(['canteen', 'library']);
    expect(await topic.locator('thead th').count()).toBe(1 + 6);
    await page.getByTestId('analytics-series-mood').waitFor();
    await s.screenshot('analytics-tab');
    expect(s.pageErrors).toEqual([]);
  }, 30_000);
});
