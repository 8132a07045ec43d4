/**
 * Sub-societies in the studio: a document whose `panel` node runs the library graph `trio` is
 * opened; double-clicking the node shows trio on the canvas with breadcrumbs, a node inside is
 * edited, the breadcrumbs lead back, and saving writes the edit into `graphs.trio`. A selection is
 * made into a new sub-society (its border edges becoming input and output nodes). A breakpoint
 * set on a member inside holds a simulated run there (`panel/voice`), and the run shows the
 * members' states rolled up onto the society node and, inside it, on each member. A workspace
 * document is inserted as a sub-society and updated once its file changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, openDocument, studioForSuite, typeInEditor } from './support.ts';

const wire = ([source, sourceHandle, target, targetHandle]: string[]) => ({
  id: `${source}.${sourceHandle}-${target}.${targetHandle}`,
  source,
  sourceHandle,
  target,
  targetHandle,
});

const PANEL = {
  version: 1,
  name: 'Panel',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  settings: { seed: 1 },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 100 }, data: { name: 'q', example: 'go' } },
    { id: 'panel', type: 'society', position: { x: 260, y: 0 }, data: { graph: 'trio' } },
    { id: 'answer', type: 'output', position: { x: 560, y: 0 }, data: { name: 'answer' } },
    {
      id: 'critic',
      type: 'agent',
      position: { x: 260, y: 260 },
      data: { model: 'm', prompt: 'Criticise {{ t }}' },
    },
    { id: 'review', type: 'output', position: { x: 560, y: 260 }, data: { name: 'review' } },
  ],
  edges: [
    ['q', 'value', 'panel', 'topic'],
    ['panel', 'said', 'answer', 'value'],
    ['q', 'value', 'critic', 't'],
    ['critic', 'text', 'review', 'value'],
  ].map(wire),
  graphs: {
    trio: {
      description: 'One voice on the topic',
      nodes: [
        { id: 'topic', type: 'input', position: { x: 0, y: 0 }, data: { name: 'topic' } },
        {
          id: 'voice',
          type: 'agent',
          position: { x: 260, y: 0 },
          data: { model: 'm', prompt: 'Speak about {{ topic }}' },
        },
        { id: 'said', type: 'output', position: { x: 520, y: 0 }, data: { name: 'said' } },
      ],
      edges: [
        ['topic', 'value', 'voice', 'topic'],
        ['voice', 'text', 'said', 'value'],
      ].map(wire),
    },
  },
};

describe.skipIf(!HAVE_CHROMIUM)('sub-societies in the studio', () => {
  const studio = studioForSuite();

  it('opens a sub-society, edits inside it, comes back and saves it into the library', async () => {
    const s = studio();
    const { page } = s;
    await openDocument(s, 'panel.society.json', PANEL, 'panel');
    // The society node shows its library graph's ports.
    await page.getByTestId('handle-panel-in-topic').waitFor();
    await page.getByTestId('handle-panel-out-said').waitFor();
    // The inspector names the graph it runs and its description.
    await page.getByTestId('node-panel').click();
    expect(await page.getByTestId('field-graph').inputValue()).toBe('trio');
    expect(await page.getByTestId('subsociety-description').textContent()).toBe(
      'One voice on the topic',
    );
    await s.screenshot('subsociety-inspector');

    await page.getByTestId('node-panel').dblclick();
    await page.getByTestId('node-voice').waitFor();
    expect(await page.getByTestId('breadcrumbs').textContent()).toBe('Document›trio');
    await s.screenshot('subsociety-open');
    expect(await page.getByTestId('node-critic').count()).toBe(0);
    await page.getByTestId('node-voice').click();
    await typeInEditor(page, 'field-prompt', 'Say briefly: {{ topic }}', { paste: true });
    await expect
      .poll(() => page.getByTestId('field-prompt').getAttribute('data-value'))
      .toBe('Say briefly: {{ topic }}');

    await page.getByTestId('crumb-0').click();
    await page.getByTestId('node-critic').waitFor();
    expect(await page.getByTestId('node-voice').count()).toBe(0);
    await page.getByTestId('tb-save').click();
    await expect
      .poll(() => {
        const saved = JSON.parse(
          readFileSync(path.join(s.workspace, 'panel.society.json'), 'utf8'),
        );
        return saved.graphs.trio.nodes[1].data.prompt;
      })
      .toBe('Say briefly: {{ topic }}');
    const saved = JSON.parse(readFileSync(path.join(s.workspace, 'panel.society.json'), 'utf8'));
    expect(saved.nodes.map((n: { id: string }) => n.id)).toEqual(PANEL.nodes.map((n) => n.id));
  });

  it('makes a sub-society from the selection, its border edges becoming its ports', async () => {
    const { page } = studio();
    await page.getByTestId('node-critic').click();
    await page.getByTestId('make-subsociety').click();
    expect(await page.getByTestId('subsociety-name').inputValue()).toBe('subsociety');
    await page.getByTestId('subsociety-name').fill('critique');
    await page.getByTestId('subsociety-ok').click();
    await page.getByTestId('node-critique').waitFor();
    expect(await page.getByTestId('node-critic').count()).toBe(0);
    // One input for q.value, one output for critic.text; both wired in the critic's place.
    await page.getByTestId('handle-critique-in-q').waitFor();
    await page.getByTestId('handle-critique-out-critic').waitFor();
    await page.getByTestId('node-critique').dblclick();
    await page.getByTestId('node-critic').waitFor();
    await page.getByTestId('node-in_q').waitFor();
    await page.getByTestId('node-out_critic').waitFor();
    expect(await page.getByTestId('breadcrumbs').textContent()).toBe('Document›critique');
    await page.getByTestId('crumb-0').click();
    await page.getByTestId('node-critique').waitFor();
    // One undo step puts the critic back where it was.
    await page.getByTestId('tb-undo').click();
    await page.getByTestId('node-critic').waitFor();
    expect(await page.getByTestId('node-critique').count()).toBe(0);
    await page.getByTestId('tb-redo').click();
    await page.getByTestId('node-critique').waitFor();
    await studio().screenshot('subsociety-made');
    expect(studio().pageErrors).toEqual([]);
  });

  it("pauses inside a sub-society, and shows its members' states on its node and inside it", async () => {
    const s = studio();
    const { page } = s;
    // A breakpoint on a member, set inside the sub-society, holds the run there.
    await page.getByTestId('node-panel').dblclick();
    await page.getByTestId('node-voice').click();
    await page.getByTestId('breakpoint-toggle').check();
    expect(await page.getByTestId('breakpoint-list').textContent()).toContain('panel/voice');
    await page.getByTestId('crumb-0').click();
    await page.getByTestId('tb-run-simulated').click();
    const banner = page.getByTestId('paused-banner');
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain('panel/voice');
    await expect.poll(() => page.getByTestId('status-panel').textContent()).toBe('paused');
    await page.getByTestId('tb-continue').click();
    await expect
      .poll(() => s.store.listRuns().map((r) => r.status), { timeout: 15_000 })
      .toEqual(['succeeded']);
    // On the document's canvas the society nodes show their members' state, rolled up.
    await expect.poll(() => page.getByTestId('status-panel').textContent()).toBe('done');
    expect(await page.getByTestId('node-critique').getAttribute('data-state')).toBe('done');
    // Inside, each member shows its own (the run's `panel/voice`).
    await page.getByTestId('node-panel').dblclick();
    await page.getByTestId('node-voice').waitFor();
    await expect.poll(() => page.getByTestId('status-voice').textContent()).toBe('done');
    expect(await page.getByTestId('status-topic').count()).toBe(0);
    await s.screenshot('subsociety-run');
    await page.getByTestId('crumb-0').click();
    await page.getByTestId('node-panel').waitFor();
    expect(s.pageErrors).toEqual([]);
  });

  it('inserts a document as a sub-society and updates it when its source changed', async () => {
    const s = studio();
    const { page } = s;
    const duo = (prompt: string, inputs: string[]) => ({
      version: 1,
      name: 'Duo',
      models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
      nodes: [
        ...inputs.map((name, i) => ({
          id: name,
          type: 'input',
          position: { x: 0, y: i * 120 },
          data: { name },
        })),
        { id: 'a', type: 'agent', position: { x: 260, y: 0 }, data: { model: 'm', prompt } },
        { id: 'out', type: 'output', position: { x: 520, y: 0 }, data: { name: 'out' } },
      ],
      edges: [
        ...inputs.map((name) => wire([name, 'value', 'a', name])),
        wire(['a', 'text', 'out', 'value']),
      ],
    });
    const file = path.join(s.workspace, 'duo.society.json');
    writeFileSync(file, JSON.stringify(duo('Answer {{ topic }}', ['topic'])));
    await page.getByTestId('insert-document').click();
    await page.getByTestId('file-duo.society.json').click();
    await page.getByTestId('node-duo').waitFor();
    await page.getByTestId('handle-duo-in-topic').waitFor();
    await page.getByTestId('node-duo').click();
    expect(await page.getByTestId('subsociety-source').textContent()).toBe('Duo');

    // Picked again unchanged: nothing to do.
    await page.getByTestId('subsociety-update').click();
    await page.getByTestId('file-duo.society.json').click();
    await expect.poll(() => page.getByTestId('notice').textContent()).toContain('up to date');

    writeFileSync(file, JSON.stringify(duo('Answer {{ topic }} in {{ tone }}', ['topic', 'tone'])));
    await page.getByTestId('subsociety-update').click();
    await page.getByTestId('file-duo.society.json').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('handle-duo-in-tone').waitFor();
    expect(s.pageErrors).toEqual([]);
  });
});
