/**
 * The first hour of a new user, walked end to end in the studio at 1440×900: the gallery, a
 * template replayed from its cassette with the example inputs the Inputs panel offers, the
 * debugger paused and stepped, the Context tab, a fork from the transcript, then a society built
 * from an empty canvas by drag and drop, run simulated, exported and imported again. Each step
 * asserts what a person sees (text, counts, labels, panels tall enough to read) and keeps a
 * screenshot under test-results/first-hour/.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type Box,
  drawEdge,
  dropFromPalette,
  HAVE_CHROMIUM,
  overlaps,
  studioForSuite,
  typeInEditor,
  visibleBox,
} from './support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = path.join(ROOT, 'test-results', 'first-hour');
const TEMPLATE = 'nlsom-vqa.society.json';
/** Every template the gallery lists: one card each. */
const TEMPLATE_COUNT = readdirSync(path.join(ROOT, 'templates')).filter((f) =>
  f.endsWith('.society.json'),
).length;
const TEMPLATE_NODES = (
  JSON.parse(readFileSync(path.join(ROOT, 'templates', TEMPLATE), 'utf8')) as {
    nodes: Array<{ id: string }>;
  }
).nodes.map((n) => n.id);

/** Below this a panel shows a line or two: a person cannot read a transcript or a context in it. */
const USABLE_HEIGHT = 160;

const PROMPT =
  'Which colour should our logo be? (a) red (b) blue (c) green. Answer with one letter.';

/**
 * Polls until what a person would see is there. Longer than expect.poll's one second: the walk
 * runs on loaded machines, and only the wait grows, never the assertion.
 */
function seen<T>(read: () => Promise<T> | T, options: { timeout?: number; message?: string } = {}) {
  return expect.poll(read, { timeout: 15_000, ...options });
}

/** Waits for the run to end as it should: the status a person reads in the run bar. */
async function runEnds(page: Page, status: 'succeeded' | 'failed'): Promise<void> {
  await seen(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 }).toBe(status);
}

/** The canvas's zoom, as React Flow applies it to the viewport. */
async function zoomOf(page: Page): Promise<number> {
  const transform = await page
    .locator('.react-flow__viewport')
    .evaluate((el) => (el as unknown as { style: { transform: string } }).style.transform);
  return Number(/scale\(([\d.]+)\)/.exec(transform)?.[1] ?? Number.NaN);
}

/** The run panel's tab body: it must be tall enough to read, and on screen. */
async function expectUsableRunBody(page: Page): Promise<Box> {
  const body = await visibleBox(page.locator('.run-body'));
  expect
    .soft(body.height, 'height of the run panel tab body')
    .toBeGreaterThanOrEqual(USABLE_HEIGHT);
  expect.soft(body.y + body.height, 'bottom of the run panel').toBeLessThanOrEqual(900 + 1);
  return body;
}

/** The element is on screen, inside the run panel's tab body (not scrolled or clipped away). */
async function expectInRunBody(page: Page, element: Locator): Promise<void> {
  const body = await visibleBox(page.locator('.run-body'));
  await element.scrollIntoViewIfNeeded();
  const box = await visibleBox(element);
  expect.soft(box.y, 'top inside the tab body').toBeGreaterThanOrEqual(body.y - 1);
  expect.soft(box.y, 'starts inside the tab body').toBeLessThan(body.y + body.height);
}

/** New, discarding the unsaved changes when asked: an empty canvas. */
async function newDocument(page: Page): Promise<void> {
  const unsaved = (await page.getByTestId('dirty-marker').count()) > 0;
  await page.getByTestId('tb-new').click();
  if (unsaved) await page.getByTestId('confirm-ok').click();
  await seen(() => page.locator('.react-flow__node').count()).toBe(0);
}

describe.skipIf(!HAVE_CHROMIUM)('the first hour in the studio', () => {
  const studio = studioForSuite();

  it('gallery → template replay → pause, step, context → fork → build, run, export, import', async () => {
    const s = studio();
    const { page } = s;
    // Only this walk's screenshots: none left from an earlier one.
    rmSync(SHOTS, { recursive: true, force: true });
    mkdirSync(SHOTS, { recursive: true });
    const started = Date.now();
    const timings: Array<{ step: string; ms: number }> = [];
    let last = started;
    let n = 0;
    /** Ends a step: its screenshot, and how long it took (kept beside the screenshots). */
    const shot = async (name: string) => {
      n += 1;
      await page.screenshot({
        path: path.join(SHOTS, `${String(n).padStart(2, '0')}-${name}.png`),
      });
      const now = Date.now();
      timings.push({ step: name, ms: now - last });
      last = now;
    };
    try {
      // 1. The gallery lists every template; NLSOM VQA says it runs without a key.
      await page.getByTestId('tb-gallery').click();
      const card = page.getByTestId(`template-${TEMPLATE}`);
      await card.waitFor();
      await seen(() => page.locator('[data-testid="gallery"] article.card').count()).toBe(
        TEMPLATE_COUNT,
      );
      const cardText = (await card.textContent()) ?? '';
      expect(cardText).toContain('NLSOM visual question answering');
      expect(cardText).toContain('runs without a key');
      expect(cardText).toMatch(/\d+ calls · [\d,]+ tokens/);
      // A person scrolls down to it.
      await card.scrollIntoViewIfNeeded();
      await visibleBox(card.getByText('runs without a key'));
      await shot('gallery');

      // 2. A copy of the template opens, every node on the canvas; it replays its cassette,
      // runs simulated or runs live, three distinct actions.
      await page.getByTestId(`template-open-${TEMPLATE}`).click();
      await page.getByTestId('gallery').waitFor({ state: 'detached' });
      for (const id of TEMPLATE_NODES) await page.getByTestId(`node-${id}`).waitFor();
      expect(await page.getByTestId('doc-title').textContent()).toContain('(copy)');
      expect(await page.getByTestId('tb-replay').textContent()).toBe('Replay cassette');
      expect(await page.getByTestId('tb-run-simulated').textContent()).toBe('Run simulated');
      expect(await page.getByTestId('tb-run-live').textContent()).toBe('Run live');
      await shot('template-open');

      // 3. The Inputs panel holds the template's example: the question and the image, no typing.
      await page.getByTestId('run-tab-inputs').click();
      const question = page.getByTestId('input-question');
      await seen(() => question.inputValue()).toMatch(/\?.*\(a\).*\(b\)/);
      expect(await page.getByTestId('input-image-example').isChecked()).toBe(true);
      await shot('inputs-prefilled');

      // 4. Break at round 1 and replay: the run pauses before round 1, the image described.
      await page.getByTestId('break-round').fill('1');
      await page.getByTestId('tb-replay').click();
      const banner = page.getByTestId('paused-banner');
      await banner.waitFor({ timeout: 30_000 });
      expect(await banner.textContent()).toMatch(/before round 1/);
      expect(await page.getByTestId('run-status').textContent()).toBe('paused');
      expect(await page.getByTestId('run-error').count()).toBe(0);
      const messages = page.getByTestId('message');
      await page.getByTestId('run-tab-transcript').click();
      await seen(() => messages.count()).toBe(3);
      await expectUsableRunBody(page);
      await shot('paused-round-1');

      // 5. Step message: the organizer's question is held, then delivered when stepping on.
      await page.getByTestId('tb-step-message').click();
      await seen(() => banner.textContent()).toMatch(/before organizer@r1 sends a message/);
      await page.getByTestId('tb-step-message').click();
      await seen(() => messages.count()).toBe(4);
      await seen(() => banner.textContent()).toMatch(/before member#0@r1 sends a message/);
      expect(await messages.last().textContent()).toMatch(/organizer@r1/);
      await expectUsableRunBody(page);
      await expectInRunBody(page, messages.last());
      await shot('stepped-message');

      // 6. The Context tab shows what the held member was sent and what it answered.
      await page.getByTestId('run-tab-context').click();
      const viewer = page.getByTestId('context-viewer');
      await viewer.waitFor();
      expect(await page.getByTestId('context-instance').inputValue()).toBe('member#0@r1');
      const meta = page.getByTestId('context-meta');
      await meta.waitFor();
      expect(await meta.textContent()).toMatch(
        /member#0@r1 → .*\d+ messages? · ~[\d,]+ tokens sent/,
      );
      expect(await page.getByTestId('context-message').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('context-answer').textContent()).toMatch(/answer/);
      await expectUsableRunBody(page);
      await expectInRunBody(page, page.getByTestId('context-message').first());
      await shot('context');

      // 7. Continue (no break this time) to the end: every message, every node done, an answer.
      await page.getByTestId('break-round').fill('');
      await page.getByTestId('tb-continue').click();
      await runEnds(page, 'succeeded');
      await page.getByTestId('run-tab-transcript').click();
      await seen(() => messages.count()).toBe(17);
      for (const id of ['describe', 'organizer', 'member', 'summary', 'leader', 'answer'])
        await seen(() => page.getByTestId(`node-${id}`).getAttribute('data-state'), {
          message: id,
        }).toBe('done');
      await page.getByTestId('run-tab-outputs').click();
      expect(await page.getByTestId('output-answer').locator('pre').textContent()).toMatch(
        /\([a-d]\)/,
      );
      await shot('replay-done');

      // The Context tab follows the node selected on the canvas: the leader's call.
      await page.getByTestId('node-leader').click();
      await page.getByTestId('run-tab-context').click();
      await seen(() => page.getByTestId('context-instance').inputValue()).toBe('leader@decide');
      await seen(() => meta.textContent()).toMatch(/^leader@decide → /);
      await shot('context-follows-selection');

      // 8. Fork from the transcript: the organizer asks another question in round 3; the members
      // answer it anew, from the simulated provider, and say so.
      await page.getByTestId('run-tab-transcript').click();
      const round3 = page.getByTestId('transcript-round-3').getByTestId('message');
      const answered = await round3.nth(1).textContent();
      expect(answered).toMatch(/^member#0@r3/);
      await round3.first().getByTestId('message-fork').click();
      const form = page.getByTestId('fork-form');
      await form.waitFor();
      expect(await page.getByTestId('fork-instance').inputValue()).toBe('organizer@r3');
      expect(await page.getByTestId('fork-simulate').isChecked()).toBe(true);
      const edited = 'Is the large shape round, with no corners at all?';
      await page.getByTestId('fork-text').fill(edited);
      await shot('fork-form');
      await page.getByTestId('fork-start').click();
      // The notice names the new run; the run bar shows it once it is the run on screen.
      let forkId = '';
      await seen(async () => {
        const notice = (await page.getByTestId('notice').textContent()) ?? '';
        forkId = /Run (\S+) forks \S+/.exec(notice)?.[1] ?? '';
        return forkId;
      }).not.toBe('');
      await page.locator('.run-bar').getByText(forkId, { exact: true }).waitFor();
      await runEnds(page, 'succeeded');
      await seen(() => messages.count()).toBe(17);
      expect(await round3.first().textContent()).toContain(edited);
      const answeredAgain = (await round3.nth(1).textContent()) ?? '';
      expect(answeredAgain).not.toBe(answered);
      expect(answeredAgain).toContain('[simulated]');
      expect(await round3.nth(1).locator('.simulated-label').isVisible()).toBe(true);
      await page.getByTestId('run-tab-runs').click();
      await seen(() => page.locator('[data-testid="runs"] tbody tr').count()).toBe(2);
      expect(await page.getByTestId('run-fork-of').count()).toBe(1);
      await shot('forked');

      // 9. A new document: an empty canvas.
      await newDocument(page);
      expect(await page.getByTestId('doc-title').textContent()).toBe('Untitled society');

      // 10. Three agents, a vote and an output, dragged from the palette: each lands where it is
      // dropped, the zoom stays, nothing overlaps, nothing hides under the minimap or controls
      // or past the canvas's edge.
      const zoom = await zoomOf(page);
      const pane = await visibleBox(page.locator('.react-flow__pane'));
      const drops: Array<[string, string, { x: number; y: number }]> = [
        ['agent', 'agent1', { x: 90, y: 60 }],
        ['agent', 'agent2', { x: 90, y: 210 }],
        ['agent', 'agent3', { x: 90, y: 360 }],
        ['vote', 'vote1', { x: 380, y: 210 }],
        ['output', 'output1', { x: 620, y: 210 }],
      ];
      for (const [type, id, at] of drops) {
        await dropFromPalette(page, type, at);
        const box = await visibleBox(page.getByTestId(`node-${id}`));
        const dropped = { x: pane.x + at.x, y: pane.y + at.y };
        expect
          .soft(overlaps(box, { ...dropped, width: 1, height: 1 }, 16), `${id} lands where dropped`)
          .toBe(true);
        expect.soft(await zoomOf(page), `zoom after dropping ${id}`).toBeCloseTo(zoom, 2);
      }
      const boxes = await Promise.all(
        drops.map(
          async ([, id]) => [id, await visibleBox(page.getByTestId(`node-${id}`))] as const,
        ),
      );
      const covers = [
        ['minimap', await visibleBox(page.locator('.react-flow__minimap'))],
        ['controls', await visibleBox(page.locator('.react-flow__controls'))],
      ] as const;
      for (const [i, [id, box]] of boxes.entries()) {
        expect
          .soft(
            box.x >= pane.x && box.x + box.width <= pane.x + pane.width,
            `${id} is inside the canvas, not cut off at its edge`,
          )
          .toBe(true);
        for (const [other, otherBox] of boxes.slice(i + 1))
          expect.soft(overlaps(box, otherBox), `${id} overlaps ${other}`).toBe(false);
        for (const [what, coverBox] of covers)
          expect.soft(overlaps(box, coverBox), `the ${what} covers ${id}`).toBe(false);
      }
      await shot('dropped');

      // 11. Prompts typed in the agents, the output named, the wires drawn handle to handle.
      for (const i of [1, 2, 3]) {
        await page.getByTestId(`node-agent${i}`).click();
        await typeInEditor(page, 'field-prompt', PROMPT, { paste: true });
        await seen(() => page.getByTestId('field-prompt').getAttribute('data-value')).toBe(PROMPT);
        await page.getByTestId('field-parse').selectOption('choice');
      }
      await page.getByTestId('node-output1').click();
      await page.getByTestId('field-name').fill('colour');
      for (const i of [1, 2, 3])
        await drawEdge(
          page,
          { node: `agent${i}`, port: 'text' },
          { node: 'vote1', port: 'ballots' },
        );
      await drawEdge(page, { node: 'vote1', port: 'winner' }, { node: 'output1', port: 'value' });
      await seen(() => page.locator('.react-flow__edge').count()).toBe(4);
      await page.getByTestId('run-tab-problems').click();
      await page.getByTestId('problems-none').waitFor();
      await shot('wired');

      // Deleting the vote takes its four wires with it; one Undo brings all of them back.
      await page.getByTestId('node-vote1').click();
      await page.keyboard.press('Delete');
      await seen(() => page.getByTestId('node-vote1').count()).toBe(0);
      await seen(() => page.locator('.react-flow__edge').count()).toBe(0);
      await page.getByTestId('tb-undo').click();
      await page.getByTestId('node-vote1').waitFor();
      await seen(() => page.locator('.react-flow__edge').count()).toBe(4);
      await page.getByTestId('problems-none').waitFor();
      await shot('undo-delete');

      // Run without a key: the run says where to add one in the editor, not on a command line.
      await page.getByTestId('tb-run-live').click();
      await runEnds(page, 'failed');
      const keyError = (await page.getByTestId('run-error').textContent()) ?? '';
      expect(keyError).toContain('OPENAI_API_KEY');
      expect.soft(keyError, 'key advice').toMatch(/Settings/);
      expect.soft(keyError, 'key advice').not.toMatch(/export it|--simulate|--replay/);
      await shot('run-without-key');

      // 12. Run simulated: every answer labelled, three valid ballots, a winner, the output, which
      // downloads.
      await page.getByTestId('tb-run-simulated').click();
      await runEnds(page, 'succeeded');
      expect(await page.locator('.run-bar .simulated-label').textContent()).toBe('simulated');
      await seen(() => page.getByTestId('run-usage').textContent()).toMatch(/^3 calls · /);
      await page.getByTestId('run-tab-transcript').click();
      await seen(() => messages.count()).toBe(3);
      for (const text of await messages.allTextContents()) expect(text).toContain('[simulated]');
      await page.getByTestId('run-tab-report:vote').click();
      const tally = page.getByTestId('tally');
      expect(await tally.locator('h3').textContent()).toContain('3/3 valid ballots');
      // Every candidate's label is on the chart, whole.
      const chart = await visibleBox(page.getByTestId('tally-chart'));
      const labels = page.getByTestId('tally-chart').locator('.recharts-yAxis-tick-labels text');
      await seen(() => labels.count()).toBeGreaterThan(0);
      for (const label of await labels.all()) {
        const box = await visibleBox(label);
        expect
          .soft(box.x, `${await label.textContent()} starts inside the chart`)
          .toBeGreaterThanOrEqual(chart.x);
      }
      const winner = /Winner: (.+?)(?: — |$)/.exec(
        (await page.getByTestId('tally-winner').textContent()) ?? '',
      )?.[1];
      expect(winner).toMatch(/^(\[simulated\] )?\(?[abc]\)?$/);
      await expectUsableRunBody(page);
      await shot('run-simulated');
      await page.getByTestId('run-tab-outputs').click();
      expect(await page.getByTestId('output-colour').locator('pre').textContent()).toBe(winner);
      // The output downloads as a file holding the winner.
      const saved = page.waitForEvent('download');
      await page.getByTestId('output-download-colour').click();
      const output = await saved;
      expect(output.suggestedFilename()).toBe('colour.txt');
      const outputFile = path.join(s.dir, 'colour.txt');
      await output.saveAs(outputFile);
      expect(readFileSync(outputFile, 'utf8')).toBe(winner);
      await shot('outputs');

      // 13. Named and exported: the file downloads, holds the five nodes and four wires, no key.
      await page.getByTestId('inspector-tab-document').click();
      await page.getByTestId('doc-name').fill('Logo vote');
      const download = page.waitForEvent('download');
      await page.getByTestId('tb-export').click();
      const file = path.join(s.dir, 'exported.society.json');
      await (await download).saveAs(file);
      await seen(() => page.getByTestId('notice').textContent()).toMatch(
        /^Exported logo-vote\.society\.json: needs .*; no key is in the file\./,
      );
      const exported = JSON.parse(readFileSync(file, 'utf8')) as {
        name: string;
        nodes: unknown[];
        edges: unknown[];
      };
      expect(exported.name).toBe('Logo vote');
      expect(exported.nodes).toHaveLength(5);
      expect(exported.edges).toHaveLength(4);
      await shot('exported');

      // 14. Imported into a fresh editor: the same society, ready to run.
      await newDocument(page);
      await page.getByTestId('import-file').setInputFiles(file);
      for (const [, id] of drops) await page.getByTestId(`node-${id}`).waitFor();
      await seen(() => page.locator('.react-flow__edge').count()).toBe(4);
      expect(await page.getByTestId('doc-title').textContent()).toContain('Logo vote');
      await page.getByTestId('run-tab-problems').click();
      await page.getByTestId('problems-none').waitFor();
      await shot('imported');

      expect(s.pageErrors).toEqual([]);
      expect(s.foreignRequests).toEqual([]);
    } catch (error) {
      // What the page showed when a step failed, named after the last step that passed.
      await page
        .screenshot({
          path: path.join(SHOTS, `failed-after-${timings.at(-1)?.step ?? 'start'}.png`),
        })
        .catch(() => {});
      throw error;
    } finally {
      writeFileSync(
        path.join(SHOTS, 'timings.json'),
        `${JSON.stringify({ totalMs: Date.now() - started, steps: timings }, null, 2)}\n`,
      );
    }
  }, 180_000);
});
