import { readFileSync } from 'node:fs';
import type { CDPSession } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { savedFile } from './download.ts';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

/** A key shaped like OpenAI's, used nowhere else. */
const KEY = 'sk-e2e-studio-4f1d9c3b7a2e6d8f0b5c1a9e7d3f2b6c';

/** The whole JavaScript heap of the page, as text, after a full garbage collection. */
async function heapText(cdp: CDPSession): Promise<string> {
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  return chunks.join('');
}

describe.skipIf(!HAVE_CHROMIUM)('a key entered in settings', () => {
  const studio = studioForSuite();

  it('never comes back to the page: not in its memory, not in any message', async () => {
    const s = studio();
    // Watch every frame on a fresh page from its first connection.
    const page = await s.newPage();
    const received: string[] = [];
    const sent: string[] = [];
    page.on('websocket', (ws) => {
      ws.on('framereceived', (f) => received.push(String(f.payload)));
      ws.on('framesent', (f) => sent.push(String(f.payload)));
    });
    await page.reload();
    await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();

    await page.getByTestId('settings-button').click();
    await page.getByTestId('settings-key-input-OPENAI_API_KEY').fill(KEY);
    await page.getByTestId('settings-key-save-OPENAI_API_KEY').click();
    const status = page.getByTestId('settings-key-status-OPENAI_API_KEY');
    await expect.poll(() => status.textContent()).toContain(KEY.slice(-4));
    await s.screenshot('settings-key-set', page);

    // The page sent it once, to be kept by the backend.
    expect(sent.filter((f) => f.includes(KEY))).toHaveLength(1);

    // Using the editor after that (a template, a simulated run) brings it back nowhere.
    await page.getByTestId('settings-modal-close').click();
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('settings-button').click();
    await expect.poll(() => status.textContent()).toContain(KEY.slice(-4));
    await page.getByTestId('settings-modal-close').click();

    // Exporting the template gives a key-free file that says which key it needs.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('tb-export').click(),
    ]);
    const exported = readFileSync(await savedFile(download), 'utf8');
    expect(exported).not.toContain(KEY);
    const manifest = JSON.parse(exported).manifest;
    expect(manifest.providers).toEqual([
      { name: 'openai', builtin: true, keyVariable: 'OPENAI_API_KEY' },
    ]);
    expect(await page.getByTestId('notice').textContent()).toMatch(/keys: OPENAI_API_KEY/);

    expect(received.length).toBeGreaterThan(3);
    expect(received.filter((f) => f.includes(KEY))).toEqual([]);
    // Nor anything longer than the last four characters of it.
    expect(received.filter((f) => f.includes(KEY.slice(-8)))).toEqual([]);

    expect(await page.content()).not.toContain(KEY);
    const cdp = await page.context().newCDPSession(page);
    const heap = await heapText(cdp);
    expect(heap.length).toBeGreaterThan(100_000);
    expect(heap.includes(KEY)).toBe(false);
    // The check can see a string the page does hold (the test would catch a kept key).
    await page.evaluate(() => {
      (globalThis as unknown as { probe: string }).probe = ['probe', 'x7Q2', 'kept'].join('-');
    });
    expect((await heapText(cdp)).includes('probe-x7Q2-kept')).toBe(true);
    expect(s.pageErrors).toEqual([]);
  }, 90_000);
});
