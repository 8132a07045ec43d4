import { describe, expect, it } from 'vitest';
import { society } from '../support/cli.ts';
import { HAVE_CHROMIUM, studioForSuite, VQA_QUESTION } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('step-debugging the NLSOM VQA mindstorm', () => {
  const studio = studioForSuite();

  it('pauses at round 2, steps message by message, and ends with the CLI output', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-nlsom-vqa.society.json').waitFor();
    await s.screenshot('gallery');
    await page.getByTestId('template-open-nlsom-vqa.society.json').click();
    await page.getByTestId('node-storm').waitFor();

    await page.getByTestId('run-tab-inputs').click();
    // The template's example inputs come filled in: what its cassette was recorded with.
    expect(await page.getByTestId('input-question').inputValue()).toBe(VQA_QUESTION);
    expect(await page.getByTestId('input-image-example').isChecked()).toBe(true);
    await page.getByTestId('break-round').fill('2');
    // Replay cassette: the template's own recording, no key, no network.
    await page.getByTestId('tb-replay').click();

    const banner = page.getByTestId('paused-banner');
    await banner.waitFor({ timeout: 20_000 });
    expect(await banner.textContent()).toMatch(/before round 2/);
    await expect.poll(() => page.getByTestId('run-status').textContent()).toMatch(/paused/i);
    // Round 1 is over and nothing of round 2 has been said: 3 descriptions, 4 messages of r1.
    const messages = page.getByTestId('message');
    expect(await messages.count()).toBe(7);
    await s.screenshot('debugger-paused-round-2');

    // The first step holds the organizer's question before it is sent.
    await page.getByTestId('tb-step-message').click();
    await expect.poll(() => banner.textContent()).toMatch(/before organizer@r2 sends a message/);
    expect(await messages.count()).toBe(7);
    // Each further step delivers the held message — it appears in the transcript — and holds
    // the next one.
    const senders = ['member#0@r2', 'member#1@r2', 'member#2@r2'];
    for (const [i, next] of senders.entries()) {
      const held = ((await banner.textContent()) ?? '').match(/“(.{20})/)?.[1] ?? '';
      await page.getByTestId('tb-step-message').click();
      await expect.poll(() => messages.count()).toBe(8 + i);
      await expect.poll(() => banner.textContent()).toContain(`before ${next} sends a message`);
      expect(await messages.last().textContent()).toContain(held);
    }
    await s.screenshot('debugger-stepping');

    await page.getByTestId('tb-continue').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);
    // Every message of the run: 3 descriptions, 3 rounds of 4, the summary and the decision.
    expect(await messages.count()).toBe(17);
    // Every node on the canvas ends done, the two outputs included.
    for (const id of [
      'describe',
      'organizer',
      'member',
      'summary',
      'leader',
      'answer',
      'transcript',
    ])
      await expect
        .poll(() => page.getByTestId(`node-${id}`).getAttribute('data-state'), { message: id })
        .toBe('done');

    // The same run from the command line gives the same outputs.
    const cli = await society([
      'run',
      'templates/nlsom-vqa.society.json',
      '--replay',
      'templates/nlsom-vqa.cassette.json',
      '--input',
      `question=${VQA_QUESTION}`,
      '--input',
      'image=@templates/nlsom-vqa.example.png',
      '--json',
      '-q',
    ]);
    expect(cli.code).toBe(0);
    const expected = JSON.parse(cli.stdout).outputs as Record<string, string>;
    await page.getByTestId('run-tab-outputs').click();
    for (const [name, value] of Object.entries(expected)) {
      expect(await page.getByTestId(`output-${name}`).locator('pre').textContent()).toBe(value);
    }
    expect(Object.keys(expected).sort()).toEqual(['answer', 'transcript']);
    expect(s.pageErrors).toEqual([]);
  }, 120_000);
});
