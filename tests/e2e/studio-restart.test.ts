/**
 * The studio restarted under an open tab: the tab says so in a banner (what happened, where the
 * new address is), stops knocking on the studio's door (a refused socket is an error in the
 * console each time), and the document being edited is not lost: the new address, on the same
 * port the studio reuses, offers it back and restores it.
 */
import { describe, expect, inject, it } from 'vitest';
import { type Studio, startStudio } from '../../main/studio/server.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const DOC = {
  version: 1,
  name: 'Kept across a restart',
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: 'hi' } },
    { id: 'answer', type: 'output', position: { x: 260, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    {
      id: 'q.value-answer.value',
      source: 'q',
      sourceHandle: 'value',
      target: 'answer',
      targetHandle: 'value',
    },
  ],
};

describe.skipIf(!HAVE_CHROMIUM)('a tab open when the studio restarts', () => {
  const studio = studioForSuite();

  it('says what happened and where to go, does not flood, and restores the unsaved document', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'kept.society.json', DOC, 'answer');
    // An unsaved edit: the output node deleted.
    await page.getByTestId('node-answer').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('node-answer').count()).toBe(0);
    // The page keeps it a moment after the change.
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('society.studio.unsaved') ?? ''))
      .toContain('Kept across a restart');

    // Stopped, and started again on the same port with a new token.
    await s.studio.close();
    const errorsBefore = s.pageErrors.length;
    let again: Studio | undefined;
    // The new studio takes a moment to come up, so the page has looked and found none: it says
    // "stopped" first, and "restarted" once it looks again and its old token is refused.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try {
      again = await startStudio({
        store: s.store,
        workspaceDir: s.workspace,
        rendererDir: inject('rendererDir'),
        env: {},
        port: s.studio.port,
        log: () => {},
      });
      expect(again.token).not.toBe(s.studio.token);

      const banner = page.getByTestId('connection-lost');
      await banner.waitFor({ timeout: 5000 });
      // A page that looked while the studio was still down says "stopped" first, and looks
      // again on its reconnect schedule (renderer/api.ts: 1 s, then 3 s later).
      await expect
        .poll(() => banner.textContent(), { timeout: 10_000 })
        .toContain('The studio restarted');
      expect(await banner.textContent()).toContain(
        'Open the new address printed in the terminal where npm run studio runs',
      );
      expect(await page.getByTestId('connection-status').textContent()).toBe('studio restarted');
      // It stops asking: a refused socket or two, not one every few hundred milliseconds.
      await page.waitForTimeout(1500);
      const refusals = s.pageErrors.slice(errorsBefore);
      expect(refusals.length).toBeLessThanOrEqual(2);
      await s.screenshot('studio-restarted');

      // The new address offers the document back.
      const fresh = await page.context().newPage();
      await fresh.goto(again.url);
      await fresh.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
      const offer = fresh.getByTestId('draft-offer');
      await offer.waitFor();
      expect(await offer.textContent()).toContain('Kept across a restart');
      await s.screenshot('draft-offered', fresh);
      await fresh.getByTestId('draft-restore').click();
      await fresh.getByTestId('node-q').waitFor();
      expect(await fresh.getByTestId('node-answer').count()).toBe(0);
      expect(await offer.count()).toBe(0);
    } finally {
      await again?.close();
    }
  }, 45_000);
});
