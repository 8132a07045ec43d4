/**
 * A mindstorm's topology in the studio: chosen in the inspector and drawn over the members (one
 * dot per copy), large above the form and small on the card at full detail.
 */
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, openDocument, studioForSuite, zoomToFullDetail } from './support.ts';

const WAIT = { timeout: 10_000 };

const at = (x: number, y: number) => ({ x, y });

/** A mindstorm whose one member runs as five copies. */
const STORM = {
  version: 1,
  name: 'five members',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    {
      id: 'storm',
      type: 'mindstorm',
      position: at(40, 40),
      style: { width: 520, height: 260 },
      data: { maxRounds: 2, members: ['member'], rights: { rtk: true } },
    },
    {
      id: 'member',
      type: 'agent',
      parentId: 'storm',
      position: at(40, 80),
      data: {
        model: 'm',
        prompt: 'Say something, {{ who }}.',
        replicate: { items: ['ann', 'bob', 'cy', 'dee', 'eve'], as: 'who' },
      },
    },
  ],
  edges: [],
};

describe.skipIf(!HAVE_CHROMIUM)('a mindstorm topology in the studio', () => {
  const studio = studioForSuite();

  it('is chosen in the inspector and drawn over the members, there and on the card', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'five.society.json', STORM, 'storm');
    const card = page.getByTestId('node-storm');
    await zoomToFullDetail(page, card);
    await card.locator('.container-header').click();
    const diagram = page.getByTestId('mindstorm-topology');
    await diagram.waitFor(WAIT);
    // Full, as a mindstorm starts: every pair of the five copies is joined.
    await expect.poll(() => diagram.textContent(), WAIT).toContain('5 members, each sees 4 others');
    expect(await diagram.locator('line').count()).toBe(10);
    expect(await page.getByTestId('field-k').count()).toBe(0);
    // The card draws it too, in place of a summary in words, named for a screen reader.
    const drawn = page.getByTestId('topology-storm');
    await drawn.waitFor(WAIT);
    expect(await drawn.locator('line').count()).toBe(10);
    expect(await drawn.getAttribute('aria-label')).toBe(
      'full: each member sees every other member',
    );
    expect(await card.locator('.node-summary').count()).toBe(0);
    // Beside the title, so even this narrow card shows it whole.
    const [box, cardBox] = [await drawn.boundingBox(), await card.boundingBox()];
    expect(box!.x + box!.width).toBeLessThanOrEqual(cardBox!.x + cardBox!.width);

    await page.getByTestId('field-topology').selectOption('ring');
    await expect.poll(() => diagram.textContent(), WAIT).toContain('each sees 2 others');
    expect(await diagram.locator('line').count()).toBe(5);
    await expect.poll(() => drawn.locator('line').count(), WAIT).toBe(5);
    expect(await drawn.locator('title').textContent()).toBe(
      'ring: each member sees its two neighbours',
    );
    expect(await drawn.isVisible()).toBe(true);

    // Panning the canvas leaves the drawing alone: not one change to it while the view moves.
    // Page-side code, typed loosely: the tests are compiled without the DOM's types.
    type Watched = {
      drawingChanges: number;
      MutationObserver: new (
        f: (m: unknown[]) => void,
      ) => {
        observe(node: unknown, options: Record<string, boolean>): void;
      };
    };
    await drawn.evaluate((svg) => {
      const scope = globalThis as unknown as Watched;
      scope.drawingChanges = 0;
      new scope.MutationObserver((m) => {
        scope.drawingChanges += m.length;
      }).observe(svg, { subtree: true, attributes: true, childList: true, characterData: true });
    });
    const viewport = page.locator('.react-flow__viewport');
    const before = await viewport.getAttribute('style');
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.move(pane.x + pane.width - 30, pane.y + pane.height - 30);
    await page.mouse.down();
    await page.mouse.move(pane.x + pane.width - 90, pane.y + pane.height - 60, { steps: 8 });
    await page.mouse.up();
    expect(await viewport.getAttribute('style')).not.toBe(before);
    const changes = await page.evaluate(() => (globalThis as unknown as Watched).drawingChanges);
    expect(changes).toBe(0);

    // Zoomed out, the card is its title: the drawing is hidden with the header's other parts.
    const canvas = page.getByTestId('canvas');
    for (let i = 0; i < 20 && (await canvas.getAttribute('data-lod')) === 'full'; i++) {
      await page.locator('.react-flow__controls-zoomout').click();
    }
    await expect.poll(() => drawn.isVisible(), WAIT).toBe(false);
    await zoomToFullDetail(page, card);
    await expect.poll(() => drawn.isVisible(), WAIT).toBe(true);

    // A k-regular graph shows its k and seed; 3 × 5 is odd, so no such graph: the panel says so.
    await page.getByTestId('field-topology').selectOption('k-regular');
    await page.getByTestId('field-k').waitFor(WAIT);
    expect(await page.getByTestId('field-seed').count()).toBe(1);
    await page.getByTestId('field-k').fill('3');
    await page.getByTestId('field-k').blur();
    await expect
      .poll(() => diagram.textContent(), WAIT)
      .toContain('no 3-regular graph has 5 members');
    // Nothing to draw: the card says the topology in words.
    await expect.poll(() => drawn.count(), WAIT).toBe(0);
    expect(await card.locator('.node-summary').textContent()).toBe('topology 3-regular (seed 1)');
  }, 60_000);
});
