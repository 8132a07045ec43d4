/**
 * Values on the nodes: after a run, and while one is paused, each card shows what its node gave
 * last — a vote's winner, a router's branch, an agent's text clipped to a few lines with a toggle
 * to read it all, which copy of a replicated node it came from — and every state reads as a word
 * and a mark, not by its colour alone. A new run starts with no values.
 */
import { describe, expect, it } from 'vitest';
import { axeCheck, seriousViolations } from './axe.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite, zoomToFullDetail } from './support.ts';

/** A question too long for three lines of a card. */
const QUESTION =
  'Should the town close the old bridge to cars for the whole summer, given that the engineers ' +
  'found rust on two of its beams, the shops on the far side depend on passing trade, and the ' +
  'ferry can carry only forty cars an hour?';

const DRAFT = {
  version: 1,
  name: 'Draft and edit',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: QUESTION } },
    {
      id: 'writer',
      type: 'agent',
      position: { x: 300, y: 0 },
      data: { model: 'm', prompt: 'Answer in one sentence: {{ q }}' },
    },
    {
      id: 'editor',
      type: 'agent',
      position: { x: 600, y: 0 },
      data: { model: 'm', prompt: 'Make this shorter: {{ draft }}' },
    },
    { id: 'answer', type: 'output', position: { x: 900, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    ['q', 'value', 'writer', 'q'],
    ['writer', 'text', 'editor', 'draft'],
    ['editor', 'text', 'answer', 'value'],
  ].map(([source, sourceHandle, target, targetHandle]) => ({
    id: `${source}-${target}`,
    source,
    sourceHandle,
    target,
    targetHandle,
  })),
};

describe.skipIf(!HAVE_CHROMIUM)('values on the nodes', () => {
  const studio = studioForSuite();

  it("shows the vote's winner, the router's branch, the voters' copy and a skipped judge", async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-tie-judge.society.json').click();
    await page.getByTestId('node-judge').waitFor();
    // Values are part of a card's full detail (zoomed out, a card says them in a few words).
    await zoomToFullDetail(page);
    // Before any run no card shows a value.
    expect(await page.locator('[data-testid^="value-"]').count()).toBe(0);

    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    // Both simulated voters answer yes: the vote's winner and its share, on the vote's card.
    const winner = page.getByTestId('value-choice-count');
    await expect.poll(() => winner.textContent()).toMatch(/^winner (yes|no) · \d of 2 votes$/);
    // The router took `else` (no tie), and says which branch it did not take.
    expect(await page.getByTestId('value-choice-route').textContent()).toBe(
      'branch else · not taken: tie',
    );
    // A replicated node shows its latest copy's answer, and which copy that is.
    expect(await page.getByTestId('value-copy-voter').textContent()).toMatch(/^copy [12] of 2$/);
    expect(await page.getByTestId('value-text-voter').textContent()).toMatch(/^\[simulated\]/);
    // The judge never ran: its label says so in words and a mark, not only a dashed outline.
    const judge = page.getByTestId('status-judge');
    expect(await judge.textContent()).toBe('skipped');
    expect(await judge.getAttribute('data-icon')).toBe('⤼');
    expect(await judge.getAttribute('aria-label')).toBe(
      'judge: skipped (route.tie: no rule matched)',
    );
    expect(await page.getByTestId('value-judge').count()).toBe(0);
    const mark = await judge.evaluate(
      (el) => el.ownerDocument.defaultView!.getComputedStyle(el, '::before').content,
    );
    expect(mark).toContain('⤼');
    expect(await page.getByTestId('status-count').getAttribute('data-icon')).toBe('✓');
    // The values and state labels pass the accessibility checks (contrast, names, roles).
    const axe = await axeCheck(page, { include: ['.card-value', '.status'] });
    expect(seriousViolations(axe)).toEqual([]);
    expect(axe.passes.map((p) => p.id)).toContain('color-contrast');
    await s.screenshot('node-values-tie-judge');
    expect(s.pageErrors).toEqual([]);
  });

  it('shows finished values while paused, expands clipped text, and clears them for a new run', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'draft.society.json', DRAFT, 'editor');
    await zoomToFullDetail(page, page.getByTestId('node-q'));
    // At full detail around the question, the editor's card runs on under the inspector: it is
    // clicked where a person sees it, near its top left corner, not at its hidden middle (which
    // left Playwright scrolling the canvas and retrying until the test timed out).
    await page.getByTestId('node-editor').click({ position: { x: 24, y: 24 } });
    await page.getByTestId('breakpoint-toggle').check();
    await page.getByTestId('tb-run-simulated').click();
    await page.getByTestId('paused-banner').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('status-editor').getAttribute('data-icon')).toBe('‖');

    // Finished before the pause: the question (clipped, with a toggle) and the writer's draft.
    const text = page.getByTestId('value-text-q');
    await text.waitFor();
    expect(await text.textContent()).toBe(QUESTION);
    const clipped = await text.evaluate((el) => el.clientHeight);
    expect(await text.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    const toggle = page.getByTestId('value-toggle-q');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await text.evaluate((el) => el.clientHeight)).toBeGreaterThan(clipped);
    const draft = await page.getByTestId('value-text-writer').textContent();
    expect(draft).toMatch(/^\[simulated\] /);
    // The node held at the breakpoint has not run: no value yet.
    expect(await page.getByTestId('value-editor').count()).toBe(0);
    await s.screenshot('node-values-paused');

    await page.getByTestId('tb-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/succeeded/i);
    await expect.poll(() => page.getByTestId('value-text-editor').count()).toBe(1);
    // The output node shows the value it was given: the editor's text.
    expect(await page.getByTestId('value-text-answer').textContent()).toBe(
      await page.getByTestId('value-text-editor').textContent(),
    );

    // A second run, held before the writer: what the first run gave is gone from every card.
    await page.getByTestId('node-writer').click();
    await page.getByTestId('breakpoint-toggle').check();
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('status-writer').getAttribute('data-icon'), { timeout: 15_000 })
      .toBe('‖');
    expect(await page.getByTestId('value-writer').count()).toBe(0);
    expect(await page.getByTestId('value-editor').count()).toBe(0);
    expect(await page.getByTestId('value-answer').count()).toBe(0);
    expect(await page.getByTestId('value-text-q').textContent()).toBe(QUESTION);
    await page.getByTestId('tb-stop').click();
    expect(s.pageErrors).toEqual([]);
  });

  it("shows an image input as a thumbnail and the members' descriptions while a replay is held", async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    if (await page.getByTestId('confirm-ok').count()) await page.getByTestId('confirm-ok').click();
    await page.getByTestId('node-storm').waitFor();
    await zoomToFullDetail(page, page.getByTestId('node-image'));
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('break-round').fill('2');
    await page.getByTestId('tb-replay').click();
    await page.getByTestId('paused-banner').waitFor({ timeout: 20_000 });

    // The picture the run was given, fetched from the run's files and drawn on its card.
    const thumbnail = page.getByTestId('value-image-image');
    await expect
      .poll(
        () =>
          thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        {
          timeout: 10_000,
        },
      )
      .toBeGreaterThan(0);
    // The members described it in round 1: the latest copy's description, and which copy.
    expect(await page.getByTestId('value-copy-describe').textContent()).toMatch(
      /^copy [123] of 3$/,
    );
    expect((await page.getByTestId('value-text-describe').textContent())?.length).toBeGreaterThan(
      0,
    );
    await s.screenshot('node-values-vqa-paused');
    await page.getByTestId('tb-stop').click();
    expect(s.pageErrors).toEqual([]);
  });
});
