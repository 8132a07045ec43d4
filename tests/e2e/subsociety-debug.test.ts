/**
 * The acceptance walk for sub-societies in the studio, on tests/support/subsociety.ts: `judge`
 * runs library graph `panel` once per style (×3), and `panel` holds `check`, which runs graph
 * `checker` (nested one level). The document validates; a breakpoint set on `agent1` inside
 * `checker` (opened by double-clicks) holds a simulated run at `judge#0/check/agent1`; the run
 * ends; a fork edits what `judge#1/agent2` said and the checker of that copy reads the edit; the
 * exported document, opened again, has its library intact. The society node's graph is chosen
 * in its form; the library's graphs are renamed and deleted from the library bar.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { subsocietyDocument } from '../support/subsociety.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('a replicated, nested sub-society in the debugger', () => {
  const studio = studioForSuite();

  it('validates, pauses inside, forks from a message inside, and exports intact', async () => {
    const s = studio();
    const { page } = s;
    const doc = subsocietyDocument();
    await openDocument(s, 'judges.society.json', doc, 'judge');
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    // A breakpoint on the checker's agent, two levels in.
    // Each level is open (its crumb shown) before the next is entered: the panel has an
    // agent1 of its own, so that card alone does not say the checker is open.
    const crumbs = () => page.getByTestId('breadcrumbs').textContent();
    await page.getByTestId('node-judge').dblclick();
    await expect.poll(crumbs).toBe('Document›panel');
    await page.getByTestId('node-check').dblclick();
    await expect.poll(crumbs).toBe('Document›panel›checker');
    await page.getByTestId('node-agent1').waitFor();
    await page.getByTestId('node-agent1').click();
    await page.getByTestId('breakpoint-toggle').check();
    expect(await page.getByTestId('breakpoint-list').textContent()).toContain('judge/check/agent1');
    await page.getByTestId('crumb-0').click();
    await page.getByTestId('tb-run-simulated').click();
    const banner = page.getByTestId('paused-banner');
    /** Continues each pause until the runs have these statuses. */
    const runToEnd = (statuses: string[]) =>
      expect
        .poll(
          async () => {
            if (await banner.isVisible()) await page.getByTestId('tb-continue').click();
            return s.store.listRuns().map((r) => r.status);
          },
          { timeout: 5_000 },
        )
        .toEqual(statuses);
    await banner.waitFor({ timeout: 5_000 });
    expect(await banner.textContent()).toContain('judge#0/check/agent1');
    await s.screenshot('subsociety-nested-paused');
    // Continue (the breakpoint holds each copy's checker) to the end.
    await runToEnd(['succeeded']);

    // The transcript lists the inner members and copies; a message of judge#1's agent2 is forked.
    await page.getByTestId('run-tab-transcript').click();
    const messages = page.getByTestId('message');
    await expect.poll(() => messages.count()).toBeGreaterThanOrEqual(10);
    const members = await page
      .getByTestId('transcript-filter-member')
      .locator('option')
      .allTextContents();
    expect(members).toEqual(expect.arrayContaining(['judge/agent2', 'judge/check/agent1']));
    await page.getByTestId('transcript-filter-member').selectOption('judge/agent2');
    await page.getByTestId('transcript-filter-copy').selectOption('judge#1');
    await expect.poll(() => messages.count()).toBe(1);
    expect(await messages.first().textContent()).toContain('judge#1/agent2');
    await messages.first().getByTestId('message-fork').click();
    await page.getByTestId('fork-form').waitFor();
    expect(await page.getByTestId('fork-instance').inputValue()).toMatch(/^judge#1\/agent2/);
    const edited = 'The bridge is safe, said in a warm voice.';
    await page.getByTestId('fork-text').fill(edited);
    await page.getByTestId('fork-start').click();
    // The fork holds at the breakpoint inside too.
    await banner.waitFor({ timeout: 5_000 });
    await runToEnd(['succeeded', 'succeeded']);
    // What reads it, the checker of that copy, was sent the edited text.
    await page.getByTestId('run-tab-context').click();
    await page.getByTestId('context-instance').selectOption({ label: 'judge#1/check/agent1' });
    await expect
      .poll(() => page.getByTestId('context-viewer').textContent())
      .toContain(`Check this claim: ${edited}`);
    await s.screenshot('subsociety-nested-fork');
    // The context's node is found on the canvas, two sub-societies in.
    await page.getByTestId('context-select-node').click();
    await expect
      .poll(() => page.getByTestId('breadcrumbs').textContent())
      .toBe('Document›panel›checker');
    expect(await page.locator('.inspector-title').textContent()).toContain('agent1');
    await page.getByTestId('crumb-0').click();

    // Exported and opened again: the library graphs are intact.
    const download = page.waitForEvent('download');
    await page.getByTestId('tb-export').click();
    const file = path.join(s.dir, 'exported.society.json');
    await (await download).saveAs(file);
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    expect(exported.graphs).toEqual(doc.graphs);
    expect(exported.nodes).toEqual(doc.nodes);
    await page.getByTestId('import-file').setInputFiles(file);
    await page.getByTestId('node-judge').dblclick();
    await page.getByTestId('node-check').dblclick();
    await page.getByTestId('node-agent1').waitFor();
    await page.getByTestId('crumb-0').click();
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();
    expect(s.pageErrors).toEqual([]);
  });

  it('chooses, renames and deletes library graphs', async () => {
    const s = studio();
    const { page } = s;
    // The society node's graph is chosen in its form, among the library's graphs.
    await page.getByTestId('node-judge').click();
    const graph = page.getByTestId('field-graph');
    expect(await graph.inputValue()).toBe('panel');
    expect(await graph.locator('option').allTextContents()).toEqual(['panel', 'checker']);
    expect(await page.getByTestId('subsociety-description').textContent()).toMatch(/^Two agents/);

    // Renamed: the node naming it (and the way in) follow; a name taken is refused.
    await page.getByTestId('library-menu').click();
    await page.getByTestId('library-rename-panel').click();
    await page.getByTestId('library-rename-name').fill('checker');
    await page.getByTestId('library-rename-ok').click();
    expect(await page.getByTestId('library-error').textContent()).toBe(
      'The library already has a graph "checker".',
    );
    await page.getByTestId('library-rename-name').fill('jury');
    await page.getByTestId('library-rename-ok').click();
    await expect.poll(() => graph.inputValue()).toBe('jury');
    await s.screenshot('subsociety-library');
    // In use, checker cannot be deleted: the notice names who uses it.
    await page.getByTestId('library-delete-checker').click();
    await expect
      .poll(() => page.getByTestId('notice').textContent())
      .toContain('"checker" is used by check (in jury)');
    await page.getByTestId('library-menu').click();
    await page.getByTestId('node-judge').dblclick();
    expect(await page.getByTestId('breadcrumbs').textContent()).toBe('Document›jury');
    await page.getByTestId('crumb-0').click();

    // Pointed at checker, the judge leaves jury unused: deleted after a confirmation.
    await page.getByTestId('node-judge').click();
    await graph.selectOption('checker');
    await page.getByTestId('handle-judge-in-claim').waitFor();
    await page.getByTestId('library-menu').click();
    await page.getByTestId('library-delete-jury').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => page.getByTestId('library-menu').textContent()).toBe('Library (1)');
    await page.getByTestId('tb-undo').click();
    await expect.poll(() => page.getByTestId('library-menu').textContent()).toBe('Library (2)');
    expect(s.pageErrors).toEqual([]);
  });
});
