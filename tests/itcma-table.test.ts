/**
 * ITCMA-S's Table 1, as a researcher would reproduce it: the five architectures are the paper's
 * rows (the ITCMA base with its own memory and driver, each ablation adding one of ITCMA-S's
 * parts), people rate each agent's trajectory on a blinded sheet, and the table prints the
 * paper's mean beside ours per architecture and scale, with n counting agent trajectories.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHITECTURES } from '../app/paper-tables/itcma/table1.ts';
import { openRunStore } from '../app/store/index.ts';
import { societyHere } from './support/cli.ts';

const SHORT = fileURLToPath(
  new URL('../templates/itcma-irollan-valley-short.society.json', import.meta.url),
);
const AGENTS = ['AY', 'SG', 'MD', 'WL', 'LL', 'WM'];

let dir: string;
let db: string;
let evalId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'society-itcma-table-'));
  db = join(dir, 'runs.db');
  const made = await societyHere([
    ...['itcma', 'eval', '--document', SHORT, '--seeds', '2', '--steps', '1'],
    ...['--simulate', '--json', '-q', '--db', db],
  ]);
  expect(made.code, made.stderr).toBe(0);
  evalId = JSON.parse(made.stdout).evalId;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ITCMA-S's five architectures", () => {
  it("are the paper's rows: the ITCMA base with its memory and driver, one part of ITCMA-S added per ablation", () => {
    const rows = Object.fromEntries(
      Object.entries(ARCHITECTURES).map(([name, a]) => [
        a.paper,
        [name, a.set.filter, a.set.ltrha, a.set.driver, a.set.memory],
      ]),
    );
    // filter = Elim, ltrha = gate and matrix, driver = ITCMA-S's driver (off: ITCMA's),
    // memory = steps replayed (6: ITCMA's memory as stored; 3: ITCMA-S's compressed memory).
    expect(rows).toEqual({
      ITCMA: ['original', 'false', 'false', 'false', '6'],
      LTRHA: ['ltrha-only', 'true', 'true', 'false', '6'],
      'Compressed Memory': ['memory-only', 'false', 'false', 'false', '3'],
      Driver: ['driver-only', 'false', 'false', 'true', '6'],
      'ITCMA-S': ['full', 'true', 'true', 'true', '3'],
    });
  });

  it('run with those switches: the base agent is told its ITCMA driver and remembers 6 steps', () => {
    const store = openRunStore(db);
    try {
      const items = store.evalItems(evalId);
      expect(items).toHaveLength(10);
      const base = items.find((i) => i.variant === 'original' && i.item === 0)!;
      const started = store.events(base.runId!, { types: ['run.started'] })[0];
      expect(started?.type === 'run.started' && started.params).toMatchObject({
        filter: false,
        ltrha: false,
        driver: false,
        memory: 6,
      });
      // The base row has a driver (ITCMA's: the previous one plus the mean of P, A and D), and
      // its agents are told it as ITCMA-S's are told theirs; it has no resources to be told.
      const prompt = (runId: string) => {
        const request = store
          .events(runId, { types: ['model.request'] })
          .find((e) => e.type === 'model.request' && e.node === 'act');
        return request?.type === 'model.request' ? String(request.messages.at(-1)?.content) : '';
      };
      const mood = store
        .events(base.runId!, { types: ['node.started'] })
        .find((e) => e.type === 'node.started' && e.node === 'act');
      const moods = (mood?.type === 'node.started' ? mood.inputs.mood : {}) as Record<
        string,
        { driver: number; baseDriver: number }
      >;
      const { driver, baseDriver } = moods.AY!;
      expect(driver).not.toBeCloseTo(baseDriver, 2);
      expect(prompt(base.runId!)).toContain(`Your drive to act is ${baseDriver.toFixed(2)};`);
      expect(prompt(base.runId!)).not.toContain('resources');
      const full = items.find((i) => i.variant === 'full' && i.item === 0)!;
      expect(prompt(full.runId!)).toContain(`Your drive to act is ${driver.toFixed(2)};`);
      expect(prompt(full.runId!)).toContain('Your standing in the valley (resources)');
    } finally {
      store.close();
    }
  });
});

describe('blinded ratings per agent', () => {
  it("writes each agent's trajectory under a code with no architecture named; the key maps back; the table counts agents", async () => {
    const out = join(dir, 'sheet');
    const sheet = await societyHere(['itcma', 'rating-sheet', evalId, '--out', out, '--db', db]);
    expect(sheet.code, sheet.stderr).toBe(0);
    const files = readdirSync(out).filter((f) => f.endsWith('.md'));
    // 5 architectures × 2 seeds × 6 agents.
    expect(files).toHaveLength(60);
    const names = [
      ...Object.keys(ARCHITECTURES),
      ...Object.values(ARCHITECTURES).map((a) => a.paper),
      'filter',
      'ltrha',
      'driver',
      'memory',
    ];
    for (const file of [...files, 'ratings.csv']) {
      const text = readFileSync(join(out, file), 'utf8').toLowerCase();
      for (const name of names)
        expect(text, `${file} names ${name}`).not.toMatch(
          new RegExp(`\\b${name.toLowerCase()}\\b`),
        );
    }
    const key = JSON.parse(readFileSync(`${out}.key.json`, 'utf8'));
    const codes = Object.keys(key.codes);
    expect(codes.sort()).toEqual(files.map((f) => f.replace('.md', '')).sort());
    const store = openRunStore(db);
    const items = store.evalItems(evalId);
    store.close();
    // Every code names an agent of a run of the eval, with that run's architecture.
    for (const code of codes) {
      const { runId, agent, variant, item } = key.codes[code];
      expect(AGENTS).toContain(agent);
      expect(items.find((i) => i.runId === runId)).toMatchObject({ variant, item });
      expect(readFileSync(join(out, `${code}.md`), 'utf8')).toContain(`agent ${agent}`);
    }

    // A rater fills in the sheet: 7 for ITCMA-S's agents, 2 for the base's, by the key alone.
    const lines = readFileSync(join(out, 'ratings.csv'), 'utf8').trim().split('\n');
    const filled = [
      lines[0],
      ...lines.slice(1).map((line) => {
        const code = line.split(',')[0]!;
        const score = { full: 7, original: 2 }[key.codes[code].variant as string];
        return score ? `${code},${score},${score},,,,` : line;
      }),
    ];
    writeFileSync(join(out, 'ratings.csv'), `${filled.join('\n')}\n`);
    const imported = await societyHere([
      ...['itcma', 'rating-import', `${out}.key.json`, join(out, 'ratings.csv')],
      ...['--rater', 'ada', '--db', db],
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('stored 48 scores of 24 agent trajectories');

    // One agent rated by hand as well, by run and agent name, from another rater.
    const fullRun = items.find((i) => i.variant === 'full' && i.item === 0)!.runId!;
    const rated = await societyHere([
      ...['rate', fullRun, '--agent', 'AY', '--scale', 'personification=5'],
      ...['--rater', 'bob', '--db', db],
    ]);
    expect(rated.code, rated.stderr).toBe(0);
    expect(rated.stdout).toContain(`rated agent AY of run ${fullRun}`);
    const typo = await societyHere([
      'rate',
      fullRun,
      '--agent',
      'AYY',
      '--scale',
      'logicality=5',
      '--db',
      db,
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--agent AYY: run \w+ has no agent of that name/);

    const table = await societyHere([
      ...['itcma', 'eval', '--document', SHORT, '--seeds', '2', '--steps', '1'],
      ...['--simulate', '-q', '--db', db],
    ]);
    expect(table.code, table.stderr).toBe(0);
    const out2 = table.stdout;
    expect(out2).toContain('Table 1, 48 raters');
    const row = (architecture: string, scale: string) =>
      out2
        .split('\n')
        .find((l) => l.startsWith(`${architecture} `) && l.includes(scale))
        ?.trim()
        .split(/\s{2,}/);
    // n = 6 agents × 2 seeds; AY of seed 1 is the mean of ada's 7 and bob's 5: (6 + 11 × 7) / 12.
    expect(row('full', 'Personification')).toEqual([
      'full',
      'ITCMA-S',
      'Personification',
      '6.29',
      expect.stringMatching(/^6\.92 \[6\.73, 7\.00\]$/),
      '+0.63',
      '12',
    ]);
    expect(row('original', 'Consistency')).toEqual([
      'original',
      'ITCMA',
      'Consistency',
      '2.46',
      '2.00 [2.00, 2.00]',
      '−0.46',
      '12',
    ]);
    expect(row('driver-only', 'Logicality')).toEqual([
      'driver-only',
      'Driver',
      'Logicality',
      '4.63',
      'not rated',
      '–',
      '0',
    ]);
  }, 60_000);

  it('refuses a sheet row whose code is not in the key, naming the line', async () => {
    const out = join(dir, 'sheet');
    writeFileSync(join(dir, 'bad.csv'), 'code,personification\nZZZZZZ,3\n');
    const refused = await societyHere([
      ...['itcma', 'rating-import', `${out}.key.json`, join(dir, 'bad.csv'), '--db', db],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/bad\.csv: line 2: code "ZZZZZZ" is not in the key/);
  });
});
