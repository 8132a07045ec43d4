/**
 * A node type is its folder: the fixture type `shout` (tests/e2e/fixture-nodes/shout/) declares
 * its summary, starting data, a code-editor field, a data migration and a card view there, and
 * nothing else in the product names it. The studio gets it from the registry it is given and
 * the page from its build (tests/e2e/global-setup.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryWithFixtures } from './fixture-nodes.ts';
import {
  drawEdge,
  dropFromPalette,
  HAVE_CHROMIUM,
  studioForSuite,
  typeInEditor,
} from './support.ts';

/** Room for a loaded machine: the page answers well within it. */
const WAIT = { timeout: 10_000 };

/** A document saved before `shout` data had a template (data version 1). */
const OLD_DOCUMENT = {
  version: 1,
  name: 'Old shout',
  nodes: [
    {
      id: 'past',
      type: 'shout',
      position: { x: 80, y: 80 },
      data: { text: 'from the past', loud: true },
    },
  ],
  edges: [],
};

describe.skipIf(!HAVE_CHROMIUM)('a node type added by its folder alone', () => {
  const studio = studioForSuite(async () => ({ registry: await registryWithFixtures() }));

  it('is in the palette, starts valid, edits in Monaco, runs and shows its summary', async () => {
    const { page } = studio();
    await dropFromPalette(page, 'shout', { x: 90, y: 60 });
    const card = page.getByTestId('node-shout1');
    // Its starting data is valid and its card speaks in the type's words.
    await expect
      .poll(() => card.locator('.node-summary').first().textContent(), WAIT)
      .toBe('hello world!');
    expect(await card.getAttribute('class')).not.toMatch(/\binvalid\b/);
    expect(await page.getByTestId('shout-volume-shout1').textContent()).toBe('volume 1');

    // The template field is the code editor its schema declares.
    await card.click();
    await typeInEditor(page, 'field-template', 'hello studio');
    await expect
      .poll(() => card.locator('.node-summary').first().textContent(), WAIT)
      .toBe('hello studio!');

    await dropFromPalette(page, 'output', { x: 420, y: 60 });
    await drawEdge(page, { node: 'shout1', port: 'text' }, { node: 'output1', port: 'value' });
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), WAIT)
      .toMatch(/succeeded/i);
    await page.getByTestId('run-tab-outputs').click();
    expect(await page.getByTestId('output-output1').textContent()).toContain('HELLO STUDIO!');
  }, 30_000);

  it('opens a document written with its old data version migrated, and saves the new one', async () => {
    const s = studio();
    // A fresh window: the society built above stays unsaved in the first.
    const page = await s.newPage();
    const file = path.join(s.workspace, 'old-shout.society.json');
    writeFileSync(file, `${JSON.stringify(OLD_DOCUMENT, null, 2)}\n`);

    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-old-shout.society.json').click();
    // The document opens unsaved, saying why; loud in version 1 is three marks in version 2.
    await expect
      .poll(() => page.getByTestId('notice').textContent(), WAIT)
      .toContain('past (shout data v1 → v2)');
    await page.getByTestId('dirty-marker').waitFor();
    const card = page.getByTestId('node-past');
    await expect
      .poll(() => card.locator('.node-summary').first().textContent(), WAIT)
      .toBe('from the past!!!');
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    await page.getByTestId('tb-save').click();
    await expect.poll(() => page.getByTestId('dirty-marker').count(), WAIT).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.nodes[0]).toMatchObject({
      id: 'past',
      version: 2,
      data: { template: 'from the past', marks: 3 },
    });
    expect(saved.nodes[0].data).not.toHaveProperty('text');
    expect(s.pageErrors).toEqual([]);
  }, 30_000);
});
