import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, studioForSuite } from './support.ts';

describe.skipIf(!HAVE_CHROMIUM)('a planner in the editor', () => {
  const studio = studioForSuite();

  it('runs the OpenAGI auto-plan template, shows the plan it ran, and opens it as a document', async () => {
    const s = studio();
    const { page } = s;
    await page.getByTestId('tb-gallery').click();
    await page.getByTestId('template-open-openagi-auto-plan.society.json').click();
    await page.getByTestId('node-planner').waitFor();

    await page.getByTestId('run-tab-inputs').click();
    // The template's example inputs come filled in: nothing to type or pick.
    expect(await page.getByTestId('input-question').inputValue()).toBe(
      'What number is on the jersey?',
    );
    expect(await page.getByTestId('input-image-example').isChecked()).toBe(true);
    // Replay cassette (recorded from the simulator): no key, no network.
    await page.getByTestId('tb-replay').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);

    // The plan's nodes ran as the planner's children: they did not light up the document's own
    // nodes (the plan has an `answer` output too), and the Plans tab shows each one done.
    await page.getByTestId('run-tab-report:planner').click();
    const steps = [
      'image_denoising',
      'image_deblurring',
      'colorization',
      'visual_question_answering',
      'machine_translation',
    ];
    for (const id of steps) {
      expect(await page.getByTestId(`plan-step-${id}`).textContent()).toMatch(/done$/);
    }
    expect(await page.getByTestId('plan-planner').textContent()).toContain('[simulated]');
    await s.screenshot('auto-plan-plans');

    // The plan is an ordinary graph: open it, and the editor finds nothing wrong with it.
    await page.getByTestId('open-plan-planner').click();
    const confirm = page.getByTestId('confirm-ok');
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    await page.getByTestId('node-visual_question_answering').waitFor();
    for (const id of [...steps, 'in_image', 'in_question', 'answer']) {
      await page.getByTestId(`node-${id}`).waitFor();
    }
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();
    await s.screenshot('auto-plan-opened');
    expect(s.pageErrors).toEqual([]);
  });
});
