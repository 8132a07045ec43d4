/**
 * A newcomer's first minutes: the studio opens on a start page, never a blank canvas (recent
 * documents, five templates, build from scratch, the docs), and the gallery finds, groups and
 * draws every template with what it needs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { axeCheck, seriousViolations } from './axe.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

const TEMPLATES = fileURLToPath(new URL('../../templates/', import.meta.url));
const WAIT = { timeout: 15_000 };
const templates = readdirSync(TEMPLATES)
  .filter((f) => f.endsWith('.society.json'))
  .map((file) => {
    const doc = JSON.parse(readFileSync(path.join(TEMPLATES, file), 'utf8')) as {
      nodes: Array<{ parentId?: string }>;
    };
    return { file, topLevel: doc.nodes.filter((n) => !n.parentId).length };
  });
const FEATURED = (
  JSON.parse(readFileSync(path.join(TEMPLATES, 'gallery.json'), 'utf8')) as { featured: string[] }
).featured;

describe.skipIf(!HAVE_CHROMIUM)('the start page', () => {
  const studio = studioForSuite();

  it('opens an empty studio on the start page, and leads to a template, a recent file or a blank editor', async () => {
    const s = studio();
    const page = await s.newPage({ startPage: true });
    const start = page.getByTestId('start-page');
    await start.waitFor();
    // Never a blank canvas: no editor, no minimap, nothing to run.
    expect(await page.locator('.react-flow').count()).toBe(0);
    expect(await page.locator('.react-flow__minimap').count()).toBe(0);
    // The toolbar names no document: none is open.
    expect(await page.getByTestId('doc-title').textContent()).toBe('Start');
    for (const id of ['tb-run-simulated', 'tb-run-live', 'tb-save', 'tb-export'])
      expect(await page.getByTestId(id).isDisabled(), id).toBe(true);
    // The five templates to start from, in their order.
    const cards = page.getByTestId('start-templates').locator('article.card');
    await expect.poll(() => cards.count(), WAIT).toBe(5);
    const shown = await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(shown).toEqual(FEATURED.map((b) => `start-template-${b}.society.json`));
    expect(await page.getByTestId('start-recent-none').isVisible()).toBe(true);
    const docs = await page
      .getByTestId('start-doc')
      .evaluateAll((els) => els.map((e) => e.getAttribute('href')));
    expect(docs.length).toBeGreaterThanOrEqual(3);
    for (const href of docs) expect(href).toMatch(/^\/docs\/[\w-]+\.md$/);
    await s.screenshot('start-page', page);
    // Nothing serious for a screen reader or in contrast.
    expect(
      seriousViolations(await axeCheck(page, { include: ['[data-testid="start-page"]'] })),
    ).toEqual([]);

    // At 1280×720 nothing runs off the side, and the five are all there to scroll to.
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      1280,
    );
    await s.screenshot('start-page-1280', page);
    await page.setViewportSize({ width: 1440, height: 900 });

    // A template card opens the editor with a copy of that template.
    await page.getByTestId('start-template-open-nlsom-vqa.society.json').click();
    await start.waitFor({ state: 'detached' });
    await page.getByTestId('node-storm').waitFor();
    expect(await page.getByTestId('doc-title').textContent()).toContain(
      'NLSOM visual question answering (monarchy) (copy)',
    );

    // Saved, then closed with Home: it heads the recent documents, and opens from there.
    await page.getByTestId('tb-save').click();
    await page.getByTestId('save-name').fill('my-vqa');
    await page.getByTestId('save-confirm').click();
    await expect.poll(() => page.getByTestId('dirty-marker').count()).toBe(0);
    await page.getByTestId('tb-home').click();
    await start.waitFor();
    const recent = page.getByTestId('start-recent-my-vqa.society.json');
    await recent.click();
    await page.getByTestId('node-storm').waitFor();
    expect(await page.getByTestId('doc-title').textContent()).toContain('(copy)');

    // Home asks before dropping unsaved changes; "Build from scratch" opens the empty editor.
    await page.getByTestId('node-question').click();
    await page.keyboard.press('Delete');
    await page.getByTestId('dirty-marker').waitFor();
    await page.getByTestId('tb-home').click();
    await page.getByTestId('confirm-ok').click();
    await start.waitFor();
    await page.getByTestId('start-scratch').click();
    await start.waitFor({ state: 'detached' });
    await page.locator('.react-flow').waitFor();
    expect(await page.locator('.react-flow__node').count()).toBe(0);
    expect(await page.getByTestId('palette-agent').isVisible()).toBe(true);
    expect(s.pageErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('finds templates by words, groups them by paper or kind, and draws each graph', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    const gallery = page.getByTestId('gallery');
    const cards = gallery.locator('article.card');
    await expect.poll(() => cards.count(), WAIT).toBe(templates.length);

    // Grouped by paper, the papers in order.
    const headings = await gallery
      .locator('section.gallery-group')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(headings).toEqual([
      'gallery-group-nlsom',
      'gallery-group-openagi',
      'gallery-group-mindagent',
      'gallery-group-itcma',
      'gallery-group-other',
    ]);
    expect(await gallery.getByTestId('gallery-group-mindagent').locator('article').count()).toBe(8);

    // Each card's picture has a shape per top-level node of its document.
    for (const t of templates) {
      const shapes = gallery.getByTestId(`template-${t.file}`).locator('svg rect.pic-node');
      expect(await shapes.count(), t.file).toBe(t.topLevel);
    }

    // What it needs, as badges.
    const keysOf = (file: string) =>
      gallery.getByTestId(`template-${file}`).getByTestId('template-key').allTextContents();
    expect(await keysOf('cuisineworld-greedy.society.json')).toEqual(['no key']);
    expect(await keysOf('openagi-clozed-translation.society.json')).toEqual(['Hugging Face key']);
    expect(await keysOf('nlsom-vqa.society.json')).toEqual(['OpenAI key']);
    expect(
      await gallery
        .getByTestId('template-cuisineworld-greedy.society.json')
        .getByTestId('template-cost')
        .textContent(),
    ).toBe('no model calls');
    expect(
      await gallery
        .getByTestId('template-nlsom-vqa.society.json')
        .getByTestId('template-cost')
        .textContent(),
    ).toMatch(/^\d+ calls · [\d,]+ tokens · \$/);
    await s.screenshot('gallery-grouped', page);
    expect(
      seriousViolations(await axeCheck(page, { include: ['[data-testid="gallery"]'] })),
    ).toEqual([]);

    // A search narrows the cards: a node type finds the societies that use it.
    await page.getByTestId('gallery-search').fill('router');
    await expect.poll(() => cards.count()).toBe(2);
    expect(
      await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')).sort()),
    ).toEqual(['template-router-triage.society.json', 'template-tie-judge.society.json']);
    await page.getByTestId('gallery-search').fill('cuisineworld');
    await expect.poll(() => cards.count()).toBe(8);
    await page.getByTestId('gallery-search').fill('no such society anywhere');
    await gallery.getByTestId('gallery-none').waitFor();

    // By kind: the same cards under plans, debates, games and sandboxes.
    await page.getByTestId('gallery-search').fill('');
    await page.getByTestId('gallery-by-kind').check();
    const kinds = await gallery
      .locator('section.gallery-group')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(kinds).toEqual([
      'gallery-group-plans',
      'gallery-group-debates',
      'gallery-group-games',
      'gallery-group-sandboxes',
    ]);
    expect(await cards.count()).toBe(templates.length);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
