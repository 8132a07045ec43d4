/**
 * The context view's Ask box, in Chromium through the studio: a simulated debate held before
 * round 3, one member's round-2 context opened, a question asked; the answer comes back marked
 * as a side call and simulated, and the run's own log holds nothing of it.
 */
import { describe, expect, it } from 'vitest';
import { DEBATE } from '../support/debate.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite } from './support.ts';

const DOC = {
  ...DEBATE,
  nodes: DEBATE.nodes.map((n) =>
    n.id === 'question'
      ? { ...n, data: { ...n.data, example: 'Should the town build a bridge?' } }
      : n,
  ),
};

describe.skipIf(!HAVE_CHROMIUM)('asking a member from the context view', () => {
  const studio = studioForSuite();

  it('answers in the member context, marked as a side call, and leaves the run alone', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'debate.society.json', DOC, 'storm');
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('break-round').fill('3');
    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 })
      .toMatch(/paused/i);

    await page.getByTestId('run-tab-context').click();
    const pick = page.getByTestId('context-instance');
    await pick.waitFor();
    await pick.selectOption('member#1@r2');
    await expect
      .poll(() => page.getByTestId('context-meta').textContent())
      .toContain('member#1@r2');
    await page.getByTestId('ask-question').fill('Why did you say that?');
    await page.getByTestId('ask-submit').click();
    const answer = page.getByTestId('ask-answer');
    await answer.waitFor();
    const text = (await answer.textContent()) ?? '';
    expect(text).toMatch(/side call/i);
    expect(text).toContain('Why did you say that?');
    expect(text).toContain('[simulated]');
    await answer.scrollIntoViewIfNeeded();
    await s.screenshot('ask-member');

    const [runId] = s.store.listRuns().map((r) => r.id);
    expect(s.store.interviews.ofRun(runId!)).toHaveLength(1);
    expect(JSON.stringify(s.store.events(runId!))).not.toContain('Why did you say that?');
    expect(s.pageErrors).toEqual([]);
  }, 60_000);
});
