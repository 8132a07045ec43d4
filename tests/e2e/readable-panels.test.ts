/**
 * What a person sees in the studio's panels stays in sight and readable: "edit & fork" on a
 * message far down the transcript opens its form in view, with the text to edit focused; Run
 * with an input left empty starts nothing and shows the field to fill on the Inputs tab; every
 * gallery card's description is whole or ends at its ellipsis; an eval's charts draw a variant
 * scoring 0, and their names and legend never overlap.
 */
import { describe, expect, it } from 'vitest';
import { QA_DOCUMENT } from '../support/qa-eval.ts';
import { type Box, HAVE_CHROMIUM, openDocument, overlaps, studioForSuite } from './support.ts';

const WAIT = { timeout: 10_000 };
const ARTIST_CRITIC = 'nlsom-artist-critic.society.json';

/** What the tests read of the page's globals (they are typed for Node, without the DOM's). */
interface PageGlobals {
  document: {
    activeElement: { getAttribute(name: string): string | null } | null;
    createRange(): {
      selectNodeContents(node: unknown): void;
      getClientRects(): Iterable<{ top: number; bottom: number; height: number }>;
    };
  };
  getComputedStyle(element: unknown): { webkitLineClamp: string };
}

/** The test id of the element that has the focus on the page (run there). */
const focusedTestId = () =>
  (globalThis as unknown as PageGlobals).document.activeElement?.getAttribute('data-testid');

/** Whether `inner` lies wholly inside `outer`. */
const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 1 &&
  inner.y >= outer.y - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1;

/** Pairs of boxes in `boxes` that overlap, by index. */
function overlapping(boxes: Box[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++)
      if (overlaps(boxes[i]!, boxes[j]!)) pairs.push([i, j]);
  return pairs;
}

describe.skipIf(!HAVE_CHROMIUM)('panels that stay in sight', () => {
  const studio = studioForSuite();

  it('clamps every gallery description cleanly, the whole text in its title', async () => {
    const { page } = studio();
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId(`template-${ARTIST_CRITIC}`).waitFor(WAIT);
    const cards = await page.locator('.card-description').evaluateAll((els) =>
      els.map((el) => {
        // The page's globals (the tests are typed for Node, without the DOM's).
        const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
        const box = el.getBoundingClientRect();
        const style = getComputedStyle(el);
        const clamp = Number(style.webkitLineClamp) || Number.POSITIVE_INFINITY;
        // Every line of text drawn inside the description's box (clipped ones are not seen).
        const range = document.createRange();
        range.selectNodeContents(el);
        const tops = new Set(
          [...range.getClientRects()]
            .filter((r) => r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1)
            .map((r) => Math.round(r.top)),
        );
        return {
          text: el.textContent ?? '',
          title: el.getAttribute('title'),
          clipped: el.scrollHeight > el.clientHeight + 1,
          shownLines: tops.size,
          clamp,
        };
      }),
    );
    expect(cards.length).toBeGreaterThan(20);
    // Clipped: no line is drawn after the one with the ellipsis.
    const overflowing = cards
      .filter((c) => c.clipped && c.shownLines > c.clamp)
      .map((c) => `${c.text.slice(0, 40)}: ${c.shownLines} lines`);
    expect(overflowing).toEqual([]);
    for (const card of cards.filter((c) => c.clipped)) expect(card.title).toBe(card.text);
    expect(cards.some((c) => c.clipped)).toBe(true);
  }, 20_000);

  it('opens "edit & fork" of a message far down the transcript in view, focused', async () => {
    const s = studio();
    const { page } = s;
    // The gallery is open from the test before; a fresh page opens it again otherwise.
    if (!(await page.getByTestId(`template-open-${ARTIST_CRITIC}`).count()))
      await page.getByTestId('tb-gallery').click();
    await page.getByTestId(`template-open-${ARTIST_CRITIC}`).click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('node-artists').waitFor(WAIT);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 40_000 })
      .toMatch(/succeeded/i);
    await page.getByTestId('run-tab-transcript').click();
    const messages = page.getByTestId('message');
    expect(await messages.count()).toBeGreaterThan(40);
    const body = page.locator('.run-body');
    const lower = messages.nth(40);
    await lower.scrollIntoViewIfNeeded();
    expect(await body.evaluate((el) => el.scrollTop)).toBeGreaterThan(300);
    const said = (await lower.locator('.message-text').textContent()) ?? '';
    await lower.getByTestId('message-fork').click();

    const form = page.getByTestId('fork-form');
    await form.waitFor(WAIT);
    const panel = (await body.boundingBox())!;
    const formBox = (await form.boundingBox())!;
    expect(inside(formBox, panel), 'the form is inside the panel as scrolled').toBe(true);
    expect(inside(formBox, { x: 0, y: 0, width: 1440, height: 900 })).toBe(true);
    // The message forked shows just below the form, still in the panel.
    await expect
      .poll(async () => {
        const row = (await lower.boundingBox())!;
        return row.y >= formBox.y + formBox.height - 1 && inside(row, panel);
      }, WAIT)
      .toBe(true);
    // The text to edit is the message's, and it has the focus.
    expect(await page.getByTestId('fork-text').inputValue()).toBe(said);
    expect(await page.evaluate(focusedTestId)).toBe('fork-text');
    await s.screenshot('fork-form-in-view');
    await page.getByTestId('fork-cancel').click();
    expect(s.pageErrors).toEqual([]);
  }, 60_000);

  it('refuses Run with an input left empty: nothing recorded, the field marked on Inputs', async () => {
    const s = studio();
    const { page } = s;
    const noExample = {
      ...QA_DOCUMENT,
      nodes: QA_DOCUMENT.nodes.map((n) =>
        n.id === 'question' ? { ...n, data: { name: 'question' } } : n,
      ),
    };
    await openDocument(s, 'empty-input.society.json', noExample, 'question');
    const runs = s.store.listRuns().length;
    await page.getByTestId('run-tab-transcript').click();
    await page.getByTestId('tb-run-simulated').click();

    const problem = page.getByTestId('input-question-problem');
    await problem.waitFor(WAIT);
    expect(await problem.textContent()).toBe('Give a value for question before running');
    expect(await page.getByTestId('run-tab-inputs').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.evaluate(focusedTestId)).toBe('input-question');
    expect(await page.getByTestId('input-question').getAttribute('aria-invalid')).toBe('true');
    expect(s.store.listRuns().length).toBe(runs);
    expect(await page.getByTestId('run-status').textContent()).not.toMatch(/failed/i);

    // Filling it in clears the mark, and the run goes.
    await page.getByTestId('input-question').fill('Is the sky blue?');
    expect(await problem.count()).toBe(0);
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), WAIT)
      .toMatch(/succeeded/i);
    expect(s.store.listRuns().length).toBe(runs + 1);
  }, 30_000);

  it('draws a variant scoring 0, and keeps its names and legend apart', async () => {
    const s = studio();
    const { page } = s;
    const variants = [
      ['full-architecture', 0.75],
      ['no-reflection-module', 0],
      ['no-emotional-memory', 0.5],
      ['original-itcma', 0.25],
      ['random-walk-agent', 0.5],
      ['greedy', 1],
    ] as const;
    s.store.openEval({
      id: 'zeroeval',
      name: 'ablation',
      items: 2,
      simulated: true,
      config: {
        name: 'ablation',
        document: 'valley.society.json',
        documentHash: 'd',
        data: 'rows.jsonl',
        dataHash: 'h',
        map: [],
        scorer: { name: 'exact' },
        variants: variants.map(([name]) => ({ name, model: [], set: [], provider: [] })),
        mode: 'simulated',
      },
    });
    for (const [variant, score] of variants)
      for (const item of [0, 1])
        s.store.putEvalItem({
          evalId: 'zeroeval',
          item,
          variant,
          jobKey: `${variant}:${item}`,
          status: 'scored',
          score,
          costUsd: 0,
          tokens: 0,
          calls: 1,
        });
    s.store.setEvalStatus('zeroeval', 'finished');

    await page.getByTestId('tb-evals').click();
    const row = page.locator('[data-testid="evals-list"] li[data-eval="zeroeval"]');
    await row.click();
    await page.locator('[data-testid="eval-detail"][data-eval="zeroeval"]').waitFor(WAIT);
    const chart = page.getByTestId('eval-chart-scores');
    await chart.locator('svg.recharts-surface').first().waitFor(WAIT);

    // Every scored variant has a bar a person can see, the one scoring 0 too.
    const bars = chart.locator('.recharts-bar-rectangle');
    await expect.poll(() => bars.count(), WAIT).toBe(variants.length);
    const heights = await bars.evaluateAll((els) =>
      els.map((el) => el.getBoundingClientRect().height),
    );
    for (const h of heights) expect(h).toBeGreaterThanOrEqual(2);

    await s.screenshot('eval-charts-zero');
    // The names under the bars do not collide.
    const names = chart.locator('text.eval-axis-name');
    expect(await names.count()).toBe(variants.length);
    const nameBoxes = await names.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    );
    expect(overlapping(nameBoxes)).toEqual([]);

    // The variants' names beside the charts do not stack on each other.
    const labels = page.getByTestId('eval-legend-item');
    expect(await labels.count()).toBe(variants.length);
    const labelBoxes = await labels.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }),
    );
    expect(overlapping(labelBoxes)).toEqual([]);
    // Side by side: fewer rows than names.
    expect(new Set(labelBoxes.map((b) => Math.round(b.y))).size).toBeLessThan(variants.length);
    await s.screenshot('eval-charts-zero');
    expect(s.pageErrors).toEqual([]);
  }, 30_000);
});
