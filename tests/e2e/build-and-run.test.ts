import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  drawEdge,
  dropFromPalette,
  HAVE_CHROMIUM,
  studioForSuite,
  typeInEditor,
} from './support.ts';

const PROMPTS = [
  'You design logos. Which colour should our logo be? (a) red (b) blue (c) green. Answer with one letter.',
  'You are a marketer. Which colour should our logo be? (a) red (b) blue (c) green. Answer with one letter.',
  'You are an engineer. Which colour should our logo be? (a) red (b) blue (c) green. Answer with one letter.',
];

describe.skipIf(!HAVE_CHROMIUM)('building a society from an empty canvas', () => {
  const studio = studioForSuite();

  it('drags, connects, writes prompts in Monaco, runs simulated, saves and opens it again', async () => {
    const s = studio();
    const { page } = s;
    await dropFromPalette(page, 'agent', { x: 90, y: 60 });
    await dropFromPalette(page, 'agent', { x: 90, y: 210 });
    await dropFromPalette(page, 'agent', { x: 90, y: 360 });
    await dropFromPalette(page, 'vote', { x: 420, y: 210 });
    await dropFromPalette(page, 'output', { x: 680, y: 210 });
    for (const id of ['agent1', 'agent2', 'agent3', 'vote1', 'output1'])
      await expect(page.getByTestId(`node-${id}`).count()).resolves.toBe(1);

    // Each agent gets its own prompt, typed in Monaco, and reads its answer as a choice.
    for (const [i, prompt] of PROMPTS.entries()) {
      await page.getByTestId(`node-agent${i + 1}`).click();
      await typeInEditor(page, 'field-prompt', prompt);
      await expect
        .poll(() => page.getByTestId('field-prompt').getAttribute('data-value'))
        .toBe(prompt);
      await page.getByTestId('field-parse').selectOption('choice');
    }
    // A slot typed into a prompt becomes an input port on the canvas at once.
    await page.getByTestId('node-output1').click();
    await page.getByTestId('field-name').fill('colour');

    for (const i of [1, 2, 3])
      await drawEdge(page, { node: `agent${i}`, port: 'text' }, { node: 'vote1', port: 'ballots' });
    await drawEdge(page, { node: 'vote1', port: 'winner' }, { node: 'output1', port: 'value' });
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(4);

    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    await page.getByTestId('tb-run-simulated').click();
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 20_000 })
      .toMatch(/succeeded/i);
    await page.getByTestId('run-tab-report:vote').click();
    const winner = (await page.getByTestId('tally-winner').first().textContent()) ?? '';
    expect(winner).toMatch(/\b[abc]\b/);
    // Three ballots were counted, one per agent.
    const tallyText = (await page.getByTestId('tally').first().textContent()) ?? '';
    expect(tallyText).toMatch(/3 ballots|3\s*\/\s*3|ballots:\s*3/i);
    await s.screenshot('canvas-built-society');

    // Save, reload the page, open the file: the same document.
    await page.getByTestId('tb-save').click();
    await page.getByTestId('save-name').fill('logo-vote');
    await page.getByTestId('save-confirm').click();
    await expect.poll(() => page.getByTestId('dirty-marker').count()).toBe(0);
    const saved = readFileSync(path.join(s.workspace, 'logo-vote.society.json'), 'utf8');

    await page.reload();
    await page.getByTestId('connection-status').filter({ hasText: 'connected' }).waitFor();
    await page.getByTestId('tb-open').click();
    // The file just saved heads the list, marked recent.
    await expect
      .poll(() => page.getByTestId('file-logo-vote.society.json').textContent())
      .toContain('recent');
    await page.getByTestId('file-logo-vote.society.json').click();
    await page.getByTestId('node-agent3').waitFor();
    await page.getByTestId('node-agent2').click();
    await expect
      .poll(() => page.getByTestId('field-prompt').getAttribute('data-value'))
      .toBe(PROMPTS[1]);

    // Saving the reopened document under another name writes the same document.
    await page.getByTestId('tb-save-as').click();
    await page.getByTestId('save-name').fill('logo-vote-again');
    await page.getByTestId('save-confirm').click();
    // The reopened document was already clean, so wait for the file itself, not the marker.
    const againFile = path.join(s.workspace, 'logo-vote-again.society.json');
    await expect.poll(() => existsSync(againFile)).toBe(true);
    await expect.poll(() => page.getByTestId('dirty-marker').count()).toBe(0);
    const again = readFileSync(againFile, 'utf8');
    expect(JSON.parse(again)).toEqual(JSON.parse(saved));
    expect(JSON.parse(saved).nodes).toHaveLength(5);
    expect(JSON.parse(saved).edges).toHaveLength(4);
    expect(s.pageErrors).toEqual([]);
    // Monaco, its workers and everything else came from the studio itself.
    expect(s.foreignRequests).toEqual([]);
  }, 90_000);
});
