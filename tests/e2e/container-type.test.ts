/**
 * A loop container is a node type like any other: the fixture type `chorus`
 * (tests/e2e/fixture-nodes/chorus/) declares its rounds, stop condition, graph check, summary,
 * starting data, a code-editor field and a data migration in its folder, and the studio and the
 * page learn it from the registry and the build alone, as they learn the mindstorm.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { registryWithFixtures } from './fixture-nodes.ts';
import {
  drawEdge,
  dropFromPalette,
  HAVE_CHROMIUM,
  studioForSuite,
  typeInEditor,
} from './support.ts';

/** Room for a loaded machine: the page answers well within it. */
const WAIT = { timeout: 10_000 };

/** A document saved when `chorus` data called its rounds `repeat` (data version 1). */
const OLD_DOCUMENT = {
  version: 1,
  name: 'Old chorus',
  nodes: [
    {
      id: 'choir',
      type: 'chorus',
      position: { x: 80, y: 80 },
      data: { repeat: 5, until: 'amen' },
    },
  ],
  edges: [],
};

/** Runs the society simulated and waits for this run (not the one shown before) to succeed. */
async function runSimulated(page: Page): Promise<void> {
  const runId = page.locator('.run-bar > code');
  const before = (await runId.count()) > 0 ? await runId.textContent() : null;
  await page.getByTestId('tb-run-simulated').click();
  await expect
    .poll(async () => {
      const id = (await runId.count()) > 0 ? await runId.textContent() : null;
      const status = await page.getByTestId('run-status').textContent();
      return id !== before ? status : 'the previous run';
    }, WAIT)
    .toMatch(/succeeded/i);
}

/** The round groups the transcript shows, and how many messages there are in all. */
async function transcript(page: Page): Promise<{ rounds: string[]; messages: number }> {
  await page.getByTestId('run-tab-transcript').click();
  const groups = page.getByTestId('transcript').locator('.transcript-round h3');
  return {
    rounds: await groups.allTextContents(),
    messages: await page.getByTestId('message').count(),
  };
}

async function output(page: Page, id: string): Promise<string> {
  await page.getByTestId('run-tab-outputs').click();
  return (await page.getByTestId(`output-${id}`).locator('pre').textContent()) ?? '';
}

describe.skipIf(!HAVE_CHROMIUM)('a loop container type added by its folder alone', () => {
  const studio = studioForSuite(async () => ({ registry: await registryWithFixtures() }));

  it('is in the palette, starts valid, holds a node and runs all its rounds', async () => {
    const { page } = studio();
    await dropFromPalette(page, 'chorus', { x: 60, y: 100 });
    const chorus = page.getByTestId('node-chorus1');
    const summary = chorus.locator('.container-header .node-summary');
    // Empty as dropped, it is valid: its summary, no problem on the card or in the document.
    await expect.poll(() => summary.textContent(), WAIT).toBe('×3 until "done"');
    expect(await chorus.getAttribute('class')).not.toMatch(/\binvalid\b/);
    expect(await chorus.locator('.node-problem').count()).toBe(0);
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    // An agent dropped on it goes inside; its answers are the chorus's messages.
    await dropFromPalette(page, 'agent', { x: 140, y: 170 });
    await page.getByTestId('node-agent1').click();
    await typeInEditor(page, 'field-prompt', 'Sing the next line');
    await expect
      .poll(() => page.getByTestId('field-prompt').getAttribute('data-value'))
      .toBe('Sing the next line');

    // The closing line is the code editor its schema declares.
    await chorus.locator('.container-title').click();
    await typeInEditor(page, 'field-closing', 'Amen');
    await expect
      .poll(() => page.getByTestId('field-closing').getAttribute('data-value'))
      .toBe('Amen');

    await dropFromPalette(page, 'output', { x: 760, y: 60 });
    await dropFromPalette(page, 'output', { x: 760, y: 220 });
    await dropFromPalette(page, 'output', { x: 760, y: 380 });
    await drawEdge(page, { node: 'agent1', port: 'text' }, { node: 'output1', port: 'value' });
    await drawEdge(page, { node: 'chorus1', port: 'rounds' }, { node: 'output2', port: 'value' });
    await drawEdge(page, { node: 'chorus1', port: 'text' }, { node: 'output3', port: 'value' });
    await expect.poll(() => page.locator('.react-flow__edge').count(), WAIT).toBe(3);
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    // No answer says "done": all three rounds, one message each.
    await runSimulated(page);
    expect(await transcript(page)).toEqual({
      rounds: ['Round 1 · chorus1', 'Round 2 · chorus1', 'Round 3 · chorus1'],
      messages: 3,
    });
    expect(await output(page, 'output1')).toContain('Sing the next line');
    expect(await output(page, 'output2')).toBe('3');
    expect(await output(page, 'output3')).toBe('Amen');
    expect(studio().pageErrors).toEqual([]);
  }, 30_000);

  it('stops its rounds early when the node inside says its word', async () => {
    // The society built above: every answer quotes the prompt "Sing the next line".
    const { page } = studio();
    const chorus = page.getByTestId('node-chorus1');
    const summary = chorus.locator('.container-header .node-summary');
    await chorus.locator('.container-title').click();
    await page.getByTestId('field-until').fill('line');
    await expect.poll(() => summary.textContent(), WAIT).toBe('×3 until "line"');
    await runSimulated(page);
    expect(await transcript(page)).toEqual({ rounds: ['Round 1 · chorus1'], messages: 1 });
    expect(await output(page, 'output2')).toBe('1');
    expect(studio().pageErrors).toEqual([]);
  }, 30_000);

  it('opens a document written with its old data version migrated, and saves the new one', async () => {
    const s = studio();
    // A fresh window: the society built above stays unsaved in the first.
    const page = await s.newPage();
    const file = path.join(s.workspace, 'old-chorus.society.json');
    writeFileSync(file, `${JSON.stringify(OLD_DOCUMENT, null, 2)}\n`);

    await page.getByTestId('tb-open').click();
    await page.getByTestId('file-old-chorus.society.json').click();
    // It opens unsaved, saying why; `repeat` in version 1 is `times` in version 2.
    await expect
      .poll(() => page.getByTestId('notice').textContent(), WAIT)
      .toContain('choir (chorus data v1 → v2)');
    await page.getByTestId('dirty-marker').waitFor();
    await expect
      .poll(() => page.getByTestId('node-choir').locator('.node-summary').textContent(), WAIT)
      .toBe('×5 until "amen"');
    await page.getByTestId('run-tab-problems').click();
    await page.getByTestId('problems-none').waitFor();

    await page.getByTestId('tb-save').click();
    await expect.poll(() => page.getByTestId('dirty-marker').count(), WAIT).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.nodes[0]).toMatchObject({
      id: 'choir',
      version: 2,
      data: { times: 5, until: 'amen' },
    });
    expect(saved.nodes[0].data).not.toHaveProperty('repeat');
    expect(s.pageErrors).toEqual([]);
  }, 30_000);
});
