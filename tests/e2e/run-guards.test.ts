/**
 * What the studio says before a run stops where nobody expected or a replay leaves its cassette:
 * a document whose own budget is below its likely estimate is refused before anything is
 * recorded, the notice naming the limit and the figure and offering the document's settings or
 * a run that stops at the budget; an edit held under a cassette replay says at once that later
 * calls cannot come from the cassette and offers to simulate the rest, go live or cancel the edit.
 */
import { describe, expect, it } from 'vitest';
import { chainOfThree } from '../support/chain.ts';
import { HAVE_CHROMIUM, openDocument, studioForSuite, VQA_QUESTION } from './support.ts';

/** Three agents in a chain, allowed two calls: a run needs three. */
const SHORT_BUDGET = chainOfThree({ name: 'Short budget', settings: { budget: { maxCalls: 2 } } });

describe.skipIf(!HAVE_CHROMIUM)('budgets and replays in the studio', () => {
  const studio = studioForSuite();

  it('refuses a run its budget cannot finish, naming the limit and the figure, and runs it anyway when asked', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'short.society.json', SHORT_BUDGET, 'c');
    await page.getByTestId('run-tab-inputs').click();
    await page.getByTestId('input-q').fill('tides');

    await page.getByTestId('tb-run-simulated').click();
    const notice = page.getByTestId('notice');
    await notice.getByTestId('notice-run-anyway').waitFor();
    expect(await notice.textContent()).toContain(
      "Run not started: settings.budget.maxCalls is 2 but a run needs about 3 calls (likely estimate): nothing was run. Raise settings.budget.maxCalls to 3 in the document's settings (inspector → Document → settings)",
    );
    expect(await notice.getByTestId('notice-run-anyway').textContent()).toBe(
      'Run anyway (stops at the budget)',
    );
    expect(s.store.listRuns()).toEqual([]);
    await s.screenshot('budget-refused');
    await notice.getByTestId('notice-document-settings').click();
    await page.getByTestId('doc-settings').waitFor();

    await page.getByTestId('tb-run-simulated').click();
    await notice.getByTestId('notice-run-anyway').click();
    // It runs, and stops at the budget: two calls made, the third refused.
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['failed']);
    await expect.poll(() => page.getByTestId('run-error').textContent()).toMatch(/budget/);
    await expect.poll(() => page.getByTestId('run-usage').textContent()).toMatch(/^2 calls · /);
  });

  it('asks how the rest is answered when a held message is edited under a replay', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('node-storm').waitFor();
    await page.getByTestId('run-tab-inputs').click();
    await expect.poll(() => page.getByTestId('input-question').inputValue()).toBe(VQA_QUESTION);
    await page.getByTestId('break-round').fill('1');
    await page.getByTestId('tb-replay').click();
    const banner = page.getByTestId('paused-banner');
    await banner.waitFor({ timeout: 20_000 });
    await page.getByTestId('tb-step-message').click();
    await expect.poll(() => banner.textContent()).toMatch(/before organizer@r1 sends a message/);
    await page.getByTestId('held-message-editor').fill('Which colour is the large shape?');

    // Continue with the edit: asked first; cancelled, the message stays as it was.
    await page.getByTestId('paused-continue').click();
    const notice = page.getByTestId('notice');
    await notice.getByTestId('notice-beyond-simulated').waitFor();
    expect(await notice.textContent()).toMatch(
      /after editing organizer@r1's message, later calls cannot come from the cassette/,
    );
    expect(await notice.getByTestId('notice-beyond-live').textContent()).toBe('Go live');
    expect(await notice.getByTestId('notice-beyond-cancel').textContent()).toBe('Cancel the edit');
    await s.screenshot('replay-edit-asks');
    await notice.getByTestId('notice-beyond-cancel').click();
    expect(await page.getByTestId('run-status').textContent()).toMatch(/paused/);

    // Going live needs OpenAI's key, which this studio does not have: refused, still held.
    await page.getByTestId('paused-continue').click();
    await notice.getByTestId('notice-beyond-live').click();
    await notice.getByTestId('notice-open-keys').waitFor();
    expect(await notice.textContent()).toMatch(/OPENAI_API_KEY/);
    expect(await page.getByTestId('run-status').textContent()).toMatch(/paused/);

    await page.getByTestId('paused-continue').click();
    await notice.getByTestId('notice-beyond-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);
    const [run] = s.store.listRuns();
    expect(run?.mode).toBe('replay-then-simulated');
    const organizer = s.store
      .events(run!.id)
      .find((e) => e.type === 'message' && (e as { from?: string }).from === 'organizer@r1');
    expect(JSON.stringify(organizer)).toContain('Which colour is the large shape?');
  });
});
