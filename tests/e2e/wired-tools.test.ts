/**
 * A node wired into an agent's tools port, in the editor: a document loaded with one such wire
 * shows it as a tool wire and marks the offered card; a node dragged into the port is accepted
 * the same way; a run input dragged there is refused while dragging, saying why.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { drawEdge, HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const FIXTURE = new URL('../fixtures/wired-tools.society.json', import.meta.url);

describe.skipIf(!HAVE_CHROMIUM)('nodes offered to an agent as tools by wires', () => {
  const studio = studioForSuite();

  it('draws the tool wire apart, marks the offered card, and refuses a run input while dragging', async () => {
    const s = studio();
    const { page } = s;
    const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    // The advisor is wired as the document is saved; the translator is left for the test to wire.
    doc.edges = doc.edges.filter((e: { id: string }) => e.id !== 'e2');
    await openDocument(s, 'wired-tools.society.json', doc, 'a');
    await expect.poll(() => page.locator('.react-flow__edge.edge-tool').count()).toBe(1);
    await expect.poll(() => page.getByTestId('tool-of-advisor').textContent()).toBe('tool of a');
    expect(await page.getByTestId('tool-of-translate').count()).toBe(0);
    // Unwired, the translator is a node of the flow whose input nothing feeds.
    await page.getByTestId('run-tab-problems').click();
    await page.getByText('required input "text" (text) is not connected').waitFor();

    await drawEdge(page, { node: 'translate', port: 'text' }, { node: 'a', port: 'tools' });
    await expect.poll(() => page.locator('.react-flow__edge.edge-tool').count()).toBe(2);
    await expect.poll(() => page.getByTestId('tool-of-translate').textContent()).toBe('tool of a');
    await expect
      .poll(() =>
        page.locator('.react-flow__edge.edge-tool .react-flow__edge-text').first().textContent(),
      )
      .toBe('tool');
    await s.screenshot('wired-tools');
    // The compiler agrees: the offered node's input comes from the agent's calls, not a wire.
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    // A run input into the tools port: refused while dragging, with the reason on screen.
    const edges = await page.locator('.react-flow__edge').count();
    const from = await page.getByTestId('handle-q-out-value').boundingBox();
    const to = await page.getByTestId('handle-a-in-tools').boundingBox();
    if (!from || !to) throw new Error('handles not visible');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x - 40, to.y, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
    const reason = page.getByTestId('connection-reason');
    await reason.waitFor();
    expect(await reason.textContent()).toContain('a run input cannot be offered as a tool');
    await page.mouse.up();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(edges);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
