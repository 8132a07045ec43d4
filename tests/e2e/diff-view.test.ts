/**
 * A run and its fork compared in the Diff tab, ticked in the order a person meets them (the
 * fork, newest, first): the parent stands on the removed side and the fork on the added side,
 * as the legend says; inside a changed message only the changed words are marked; and the
 * fork's mode reads the same in the run bar and in the Runs list. The run panel offers the run's
 * tabs only once it has their data.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const PAIR = {
  version: 1,
  name: 'Painter and critic',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  settings: { seed: 1 },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: 'a fox' } },
    {
      id: 'painter',
      type: 'agent',
      position: { x: 220, y: 0 },
      data: { model: 'm', prompt: 'Describe a painting of {{ q }}' },
    },
    {
      id: 'critic',
      type: 'agent',
      position: { x: 440, y: 0 },
      data: { model: 'm', prompt: 'Review this painting: {{ p }}' },
    },
    { id: 'answer', type: 'output', position: { x: 660, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    ['q', 'value', 'painter', 'q'],
    ['painter', 'text', 'critic', 'p'],
    ['critic', 'text', 'answer', 'value'],
  ].map(([source, sourceHandle, target, targetHandle]) => ({
    id: `${source}.${sourceHandle}-${target}.${targetHandle}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  })),
};

describe.skipIf(!HAVE_CHROMIUM)('the Diff tab', () => {
  const studio = studioForSuite();

  it('shows the parent as removed and the fork as added, marks changed words, names the mode once', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'pair.society.json', PAIR, 'critic');
    // Before a run the panel offers only the tabs that have something: Inputs, Transcript,
    // Problems and Runs.
    const tabNames = () => page.locator('.run-tabs [role="tab"]').allTextContents();
    expect(await tabNames()).toEqual(['Inputs', 'Transcript', 'Problems', 'Runs']);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    const parentId = s.store.listRuns()[0]!.id;
    // The run's own tabs join once it has their data (Diff only when two runs are compared).
    await expect
      .poll(async () => (await tabNames()).map((t) => t.replace(/\d+$/, '')))
      .toEqual([
        'Inputs',
        'Transcript',
        'Context',
        'Timeline',
        'Usage',
        'Outputs',
        'Events',
        'Problems',
        'Runs',
      ]);
    const said = s.store.events(parentId, { types: ['message'] }) as Array<{
      from: string;
      text: string;
    }>;
    const painted = said.find((m) => m.from.startsWith('painter'))!;

    // Fork: the painter says one word differently.
    await page.getByTestId('run-tab-runs').click();
    await page.getByTestId('fork-button').click();
    await page.getByTestId('fork-instance').selectOption(painted.from);
    const edited = `${painted.text} with a crimson sky`;
    await page.getByTestId('fork-text').fill(edited);
    await page.getByTestId('fork-start').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded', 'succeeded']);
    const fork = s.store.listRuns().find((r) => r.id !== parentId)!;
    await expect.poll(() => page.getByTestId('run-status').textContent()).toBe('succeeded');

    // One name for the fork's mode: the run bar's is the Runs list's.
    const barMode = await page.getByTestId('run-mode').textContent();
    await page.getByTestId('run-tab-runs').click();
    const row = page.locator(`[data-run="${fork.id}"]`);
    expect(await row.getByTestId('run-mode-cell').textContent()).toContain(barMode);
    expect(barMode).toBe(fork.mode);

    // Tick the fork (listed first, newest) and then its parent, and compare.
    await row.getByTestId('run-pick').check();
    await page.locator(`[data-run="${parentId}"]`).getByTestId('run-pick').check();
    await page.getByTestId('compare-button').click();
    await page.getByTestId('diff-view').waitFor();
    expect(await page.getByTestId('run-tab-diff').getAttribute('aria-selected')).toBe('true');
    const legend = (await page.getByTestId('diff-legend').textContent()) ?? '';
    expect(legend).toContain(`removed: ${parentId} (parent)`);
    expect(legend).toContain(`added: ${fork.id} (fork)`);
    const changed = page.locator('[data-testid="diff-message"][data-change="changed"]').first();
    await changed.waitFor();
    // The parent's words the fork dropped are marked removed, the fork's new words added:
    // " with a crimson sky" only, not the whole message.
    const added = await changed.getByTestId('diff-word-added').allTextContents();
    expect(added.join('').trim()).toBe('with a crimson sky');
    expect(await changed.getByTestId('diff-word-removed').count()).toBe(0);
    const removedSide = changed.getByTestId('diff-removed-side');
    expect(await removedSide.textContent()).toContain(painted.text);
    const colours = await changed.evaluate((row) => {
      const of = (id: string) =>
        row.ownerDocument.defaultView!.getComputedStyle(row.querySelector(`[data-testid="${id}"]`)!)
          .backgroundColor;
      return { removed: of('diff-removed-side'), added: of('diff-added-side') };
    });
    // Red-ish for removed, green-ish for added.
    const rgb = (c: string) => c.match(/\d+(\.\d+)?/g)!.map(Number);
    const [rr, rg] = rgb(colours.removed);
    const [ar, ag] = rgb(colours.added);
    expect(rr).toBeGreaterThan(rg!);
    expect(ag).toBeGreaterThan(ar!);
    await s.screenshot('diff-fork-vs-parent');
    expect(s.pageErrors).toEqual([]);
  }, 20_000);
});
