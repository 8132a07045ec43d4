import { describe, expect, it } from 'vitest';
import { dropFromPalette, HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('what the editor refuses', () => {
  const studio = studioForSuite();

  it('refuses an image wired into a text slot while dragging, and says why', async () => {
    const s = studio();
    const { page } = s;
    await dropFromPalette(page, 'input', { x: 80, y: 150 });
    await dropFromPalette(page, 'agent', { x: 460, y: 150 });
    await page.getByTestId('node-input1').click();
    await page.getByTestId('field-modality').selectOption('image');

    const from = await page.getByTestId('handle-input1-out-value').boundingBox();
    const to = await page.getByTestId('handle-agent1-in-question').boundingBox();
    if (!from || !to) throw new Error('handles not visible');
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x - 40, to.y, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
    // Still dragging: the reason is on screen before anything is connected.
    const reason = page.getByTestId('connection-reason');
    await reason.waitFor();
    const text = (await reason.textContent()) ?? '';
    expect(text).toContain('image');
    expect(text).toContain('text');
    await s.screenshot('refused-connection');
    await page.mouse.up();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);

  it('shows the validation errors of a broken file and changes nothing', async () => {
    const s = studio();
    const { page } = s;
    const before = await page.locator('.react-flow__node').count();
    const title = await page.getByTestId('doc-title').textContent();
    const broken = {
      version: 1,
      name: 'Broken society',
      models: { default: { provider: 'openai', model: 'gpt-4o-mini' } },
      nodes: [
        { id: 'a', type: 'agent', position: { x: 0, y: 0 }, data: { model: 'default' } },
        { id: 'b', type: 'no-such-type', position: { x: 0, y: 0 }, data: {} },
      ],
      edges: [{ id: 'e', source: 'a', sourceHandle: 'text', target: 'ghost', targetHandle: 'x' }],
    };
    await page.getByTestId('import-file').setInputFiles({
      name: 'broken.society.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(broken)),
    });
    const problems = page.getByTestId('import-problems');
    await problems.waitFor();
    const shown = (await problems.textContent()) ?? '';
    // Each problem names where it is.
    expect(shown).toContain('no-such-type');
    expect(shown).toContain('ghost');
    expect(shown).toMatch(/prompt/);
    await s.screenshot('import-problems');
    await page.getByTestId('import-problems-close').click();
    expect(await page.locator('.react-flow__node').count()).toBe(before);
    expect(await page.getByTestId('doc-title').textContent()).toBe(title);

    // Not JSON at all is refused the same way.
    await page.getByTestId('import-file').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{ this is not json'),
    });
    await page.getByTestId('import-problems').waitFor();
    expect(await page.getByTestId('import-problems').textContent()).toMatch(/JSON/);
    await page.getByTestId('import-problems-close').click();
    expect(await page.locator('.react-flow__node').count()).toBe(before);
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
