import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { drawEdge, dropFromPalette, HAVE_CHROMIUM, studioForSuite } from './support.ts';

type Box = { x: number; y: number; width: number; height: number };

/** The canvas's zoom, read from React Flow's viewport transform. */
async function zoomOf(page: Page): Promise<number> {
  const style = (await page.locator('.react-flow__viewport').getAttribute('style')) ?? '';
  return Number(style.match(/scale\(([\d.]+)\)/)?.[1]);
}

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function box(page: Page, selector: string): Promise<Box> {
  const found = await page.locator(selector).boundingBox();
  if (!found) throw new Error(`${selector} is not on screen`);
  return found;
}

/** Every top-level node's box on screen that a corner widget covers. */
async function coveredNodes(page: Page): Promise<string[]> {
  const widgets = [await box(page, '.react-flow__controls')];
  if (await page.locator('.react-flow__minimap').count())
    widgets.push(await box(page, '.react-flow__minimap'));
  const covered: string[] = [];
  for (const node of await page.locator('.react-flow__node').all()) {
    const b = await node.boundingBox();
    if (b && widgets.some((w) => overlap(b, w)))
      covered.push((await node.getAttribute('data-id')) ?? '?');
  }
  return covered;
}

describe.skipIf(!HAVE_CHROMIUM)('the canvas view', () => {
  const studio = studioForSuite();

  it('frames a template with no node under the minimap or the controls, at both sizes', async () => {
    const { page } = studio();
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('node-storm').waitFor();
    await expect.poll(() => zoomOf(page)).toBeLessThan(1);
    expect(await page.locator('.react-flow__minimap').count()).toBe(1);
    expect(await coveredNodes(page)).toEqual([]);
    await studio().screenshot('canvas-framed-1440x900');

    // A short canvas leaves the minimap out; fitting keeps the controls clear.
    await page.setViewportSize({ width: 1280, height: 720 });
    await expect.poll(() => page.locator('.react-flow__minimap').count()).toBe(0);
    await page.getByTestId('fit-view').click();
    await expect.poll(() => coveredNodes(page), { timeout: 5000 }).toEqual([]);
    await studio().screenshot('canvas-framed-1280x720');
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('keeps the zoom on drops, puts nodes where dropped and never on another', async () => {
    const { page } = studio();
    expect(await zoomOf(page)).toBeLessThan(1);
    await page.getByTestId('tb-new').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    // A new document starts at the natural size, not at the zoom the template had.
    await expect.poll(() => zoomOf(page)).toBe(1);
    const zoom = 1;

    const pane = await box(page, '.react-flow__pane');
    await dropFromPalette(page, 'agent', { x: 200, y: 120 });
    await page.getByTestId('node-agent1').waitFor();
    const first = await box(page, '.react-flow__node[data-id="agent1"]');
    expect(await zoomOf(page)).toBeCloseTo(zoom, 5);
    expect(Math.abs(first.x - (pane.x + 200))).toBeLessThan(3);
    expect(Math.abs(first.y - (pane.y + 120))).toBeLessThan(3);

    // Dropped on the first one, the second moves to the nearest free place.
    await dropFromPalette(page, 'agent', { x: 230, y: 140 });
    await page.getByTestId('node-agent2').waitFor();
    const second = await box(page, '.react-flow__node[data-id="agent2"]');
    expect(overlap(first, second)).toBe(false);
    expect(await zoomOf(page)).toBeCloseTo(zoom, 5);

    await dropFromPalette(page, 'output', { x: 560, y: 120 });
    await page.getByTestId('node-output1').waitFor();
    await drawEdge(page, { node: 'agent1', port: 'text' }, { node: 'output1', port: 'value' });
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);

    // Deleting a wired node and undoing it once brings back the node and its wire.
    await page.locator('.react-flow__node[data-id="output1"]').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
    expect(await page.locator('.react-flow__edge').count()).toBe(0);
    await page.getByTestId('tb-undo').click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(3);
    // React Flow draws the wire once both its cards are measured again, a frame or two later.
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await page.getByTestId('tb-redo').click();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    expect(await page.locator('.react-flow__node').count()).toBe(2);
    await studio().screenshot('canvas-drops');

    // An input's modality is chosen from the known ones.
    await dropFromPalette(page, 'input', { x: 200, y: 330 });
    await page.getByTestId('node-input1').waitFor();
    const modality = page.getByTestId('field-modality');
    expect(await modality.evaluate((el) => el.tagName)).toBe('SELECT');
    await modality.selectOption('image');
    await expect.poll(() => page.getByTestId('node-input1').textContent()).toMatch(/\(image\)/);
    expect(studio().pageErrors).toEqual([]);
  });

  it('opens the machine view at a zoom that can be read', async () => {
    const { page } = studio();
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('tb-machine').click();
    const boxes = page.locator('.machine-view .react-flow__node');
    await expect.poll(() => boxes.count(), { timeout: 10_000 }).toBeGreaterThan(3);
    const viewport = page.locator('.machine-view .react-flow__viewport');
    const zoom = async () =>
      Number(((await viewport.getAttribute('style')) ?? '').match(/scale\(([\d.]+)\)/)?.[1]);
    await expect.poll(zoom).toBeGreaterThanOrEqual(0.59);
    await studio().screenshot('machine-view');
    expect(studio().pageErrors).toEqual([]);
  });
});
