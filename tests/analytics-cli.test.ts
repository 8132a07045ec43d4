/**
 * `society show RUN --heatmap / --series / --export`: a run of the gossip fixture type (a village
 * whose node reports chats and figures through its context) is played in this process, stored
 * through the store's API, then shown and exported by the real command.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../app/compiler/index.ts';
import { expertProviders } from '../app/experts/providers.ts';
import { startRun } from '../app/runtime/engine.ts';
import { openRunStore } from '../app/store/store.ts';
import { registryWithFixtures } from './e2e/fixture-nodes.ts';
import { society, societyHere } from './support/cli.ts';
import { edge, graph, node, output } from './support/graphs.ts';

const dir = mkdtempSync(join(tmpdir(), 'society-analytics-'));
const db = join(dir, 'runs.db');
let village: string;
let quiet: string;

/** Plays a document with the fixture types and stores the run as the CLI would. */
async function storedRun(doc: ReturnType<typeof graph>): Promise<string> {
  const registry = await registryWithFixtures();
  const compiled = await compileGraph(doc, registry);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const run = startRun(compiled, { experts: expertProviders, registry, simulate: true });
  const result = await run.result;
  const store = openRunStore(db);
  try {
    const record = store.createRun({
      id: run.id,
      document: compiled.doc,
      documentText: JSON.stringify(doc),
      compilerVersion: compiled.machines.compilerVersion,
      mode: 'simulated',
      inputs: {},
    });
    const writer = store.eventWriter(record.id);
    for (const event of run.events) writer.push(event);
    writer.close({ status: result.status, outputs: result.outputs, usage: result.usage });
    return record.id;
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  village = await storedRun(
    graph(
      [
        node('village', 'gossip', { steps: 4, agents: ['ann', 'bob', 'cy', 'dee'] }),
        output('summary'),
      ],
      [edge('village.text', 'summary.value')],
      { settings: { seed: 7 } },
    ),
  );
  quiet = await storedRun(
    graph(
      [node('say', 'shout', { template: 'hush' }, { version: 2 }), output('said')],
      [edge('say.text', 'said.value')],
    ),
  );
});

/** In this process: the same `main` the command runs, without a process start-up per call. */
const show = (...args: string[]) => societyHere(['show', ...args, '--db', db]);

describe('society show --heatmap', () => {
  it('prints who chatted with whom as a table, the strongest pair and who never chatted', async () => {
    const { code, stdout, stderr } = await show(village, '--heatmap');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    // 4 steps × 3 talkative agents; dee only waves.
    expect(lines[0]).toBe(
      'chat interactions: initiator (rows) → receiver (columns), 12 in all (other kinds: wave; see --kind)',
    );
    expect(lines[1]).toMatch(/^\s+ann\s+bob\s+cy\s+dee\s+sent$/);
    expect(lines.find((l) => l.startsWith('received'))).toMatch(/ 12$/);
    expect(stdout).toMatch(/^strongest: \w+ → \w+ \(\d+\)$/m);
    expect(stdout).toMatch(/^never started a chat: dee \(received \d+\)$/m);
  });

  it('is the same through the installed command', async () => {
    const here = await show(village, '--heatmap');
    const there = await society(['show', village, '--heatmap', '--db', db]);
    expect(there.code).toBe(0);
    expect(there.stdout).toBe(here.stdout);
  });

  it('counts another kind with --kind, and prints the series with --series', async () => {
    const waves = await show(village, '--heatmap', '--kind', 'wave');
    expect(waves.stdout).toContain(
      'wave interactions: initiator (rows) → receiver (columns), 4 in all',
    );
    const { code, stdout } = await show(village, '--series');
    expect(code).toBe(0);
    expect(stdout).toContain('Resources [resources] (coins) · x 1–4 · 4 keys');
    expect(stdout).toMatch(/^ {2}ann\s+last [\d.]+ {2}min [\d.]+ {2}max [\d.]+$/m);
    expect(stdout).toContain('Topic by area [topic] · x 1–4 · 2 keys');
  });

  it('prints the whole reduction as JSON with --json', async () => {
    const { code, stdout } = await show(village, '--heatmap', '--json');
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed).toMatchObject({ runId: village, kinds: ['chat', 'wave'] });
    expect(parsed.heatmap).toMatchObject({
      kind: 'chat',
      agents: ['ann', 'bob', 'cy', 'dee'],
      total: 12,
    });
    expect(parsed.series.map((s: { name: string }) => s.name)).toEqual([
      'mood',
      'resources',
      'topic',
    ]);
  });

  it('mentions the analytics under the transcript of a run that has them', async () => {
    const { stdout } = await show(village);
    expect(stdout).toContain(
      `analytics: 12 chat interactions among 4 agents; series mood, resources, topic (society show ${village} --heatmap --series)`,
    );
  });

  it('says plainly that a run has no interactions, and succeeds', async () => {
    const { code, stdout } = await show(quiet, '--heatmap', '--series');
    expect(code).toBe(0);
    expect(stdout).toBe('no interactions in this run\nno series in this run\n');
    const exported = await show(quiet, '--export', join(dir, 'none.svg'));
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('not written: no interactions in this run');
  });
});

describe('society show --export', () => {
  it('writes the heat map as SVG, PNG and CSV, and the series as CSV', async () => {
    const svg = join(dir, 'village.svg');
    const png = join(dir, 'village.png');
    const csv = join(dir, 'village.csv');
    const seriesCsv = join(dir, 'series.csv');
    for (const [file, flag] of [
      [svg, '--export'],
      [png, '--export'],
      [csv, '--export'],
      [seriesCsv, '--export-series'],
    ] as const) {
      const { code, stderr } = await show(village, flag, file);
      expect(code, stderr).toBe(0);
      expect(stderr).toContain(`wrote ${file}`);
    }
    const image = readFileSync(svg, 'utf8');
    for (const agent of ['ann', 'bob', 'cy', 'dee']) expect(image).toContain(`>${agent}</text>`);
    const bytes = readFileSync(png);
    expect(bytes.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    expect(bytes.length).toBeGreaterThan(1000);

    const matrix = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
    expect(matrix[0]).toBe('chat: initiator \\ receiver,ann,bob,cy,dee');
    expect(matrix.slice(1).map((row) => row.split(',')[0])).toEqual(['ann', 'bob', 'cy', 'dee']);
    const total = matrix.slice(1).flatMap((row) => row.split(',').slice(1).map(Number));
    expect(total.reduce((a, b) => a + b, 0)).toBe(12);

    const long = readFileSync(seriesCsv, 'utf8').trimEnd().split('\r\n');
    expect(long[0]).toBe('series,x,key,value');
    // Per step: 4 agents' mood, 4 agents' resources and 2 areas' topics.
    expect(long).toHaveLength(1 + 4 * (4 + 4 + 2));
    expect(long).toContainEqual(expect.stringMatching(/^topic,1,canteen,\w+$/));
  });

  it('refuses a format it does not know in one line, before reading the store', async () => {
    const heat = await show(village, '--export', join(dir, 'village.jpg'));
    expect(heat.code).toBe(2);
    expect(heat.stderr.trim().split('\n')).toHaveLength(1);
    expect(heat.stderr).toContain('the extension picks the heat map format: .csv, .svg, .png');
    const series = await show(village, '--export-series', join(dir, 'series.svg'));
    expect(series.code).toBe(2);
    expect(series.stderr).toContain('--export-series');
  });
});
