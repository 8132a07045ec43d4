/**
 * The papers' layouts kept with their evals: `society eval-show` prints the layout the table
 * command printed, from the store, and a bundle carries it to another store.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, societyHere } from './support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'society-layouts-'));

/** Runs a table command (simulated, quiet) into `db`; returns what it printed and its eval's id. */
async function tableCommand(args: string[], db: string) {
  const ran = await societyHere([...args, '--simulate', '-q', '--db', db]);
  expect(ran.code, ran.stderr).toBe(0);
  const list = await societyHere(['evals', '--json', '--db', db]);
  return { stdout: ran.stdout, evalId: JSON.parse(list.stdout)[0].evalId as string };
}

describe("the papers' layouts in eval-show and bundles", () => {
  it('OpenAGI Table 1: eval-show prints it again, and so does another store after import', async () => {
    const db = path.join(dir, 'openagi.db');
    const { stdout, evalId } = await tableCommand(['openagi', 'eval', '--limit', '2'], db);
    expect(stdout).toMatch(/^OpenAGI Table 1 layout · planner: rule planner · 2 tasks/);
    const shown = await societyHere(['eval-show', evalId, '--db', db]);
    expect(shown.stdout).toBe(stdout);
    const bundle = path.join(dir, 'openagi-bundle');
    expect((await societyHere(['eval-export', evalId, bundle, '--db', db])).code).toBe(0);
    const layout = readFileSync(path.join(bundle, 'tables/paper-layout.txt'), 'utf8');
    expect(stdout.startsWith(layout.trimEnd())).toBe(true);
    const other = path.join(dir, 'openagi-other.db');
    expect((await societyHere(['eval-import', bundle, '--db', other])).code).toBe(0);
    expect((await societyHere(['eval-show', evalId, '--db', other])).stdout).toBe(stdout);
  });

  it('ITCMA-S Table 1: eval-show prints the layout with the ratings given since', async () => {
    const db = path.join(dir, 'itcma.db');
    const args = ['itcma', 'eval', '--seeds', '1', '--steps', '2', '--architectures', 'full'];
    const { stdout, evalId } = await tableCommand(args, db);
    expect(stdout).toMatch(/^ITCMA-S, Table 1, 48 raters/);
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(stdout);
    const items = JSON.parse(
      (await societyHere(['eval-show', evalId, '--items', '--json', '--db', db])).stdout,
    ).itemRecords;
    const rated = await societyHere([
      ...['rate', items[0].runId, '--scale', 'personification=6', '--rater', 'ada', '--db', db],
    ]);
    expect(rated.code, rated.stderr).toBe(0);
    const after = (await societyHere(['eval-show', evalId, '--db', db])).stdout;
    // One agent trajectory rated: the paper's mean, ours (one rating, no interval), the difference.
    expect(after).toMatch(
      /^full\s+ITCMA-S\s+Personification\s+6\.29\s+6\.00 \(n=1, no interval\)\s+−0\.29\s+1$/m,
    );
  });

  it("NLSOM's A-OKVQA accuracy: eval-show prints the layout with its photo note", async () => {
    const data = path.join(dir, 'vqa');
    mkdirSync(path.join(data, 'photos'), { recursive: true });
    copyFileSync(
      path.join(ROOT, 'templates/nlsom-vqa.example.png'),
      path.join(data, 'photos', 'a.png'),
    );
    const file = path.join(data, 'val.txt');
    writeFileSync(
      file,
      [
        "../coco/a.png_!_What shape is it?_!_['circle', 'square', 'star', 'line']_!_0",
        "../coco/b.png_!_What colour is it?_!_['red', 'blue', 'green', 'white']_!_0",
      ].join('\n'),
    );
    const db = path.join(dir, 'nlsom.db');
    const args = [
      'nlsom',
      'eval',
      file,
      '--set',
      'rounds=1',
      '--images',
      path.join(data, 'photos'),
    ];
    const { stdout, evalId } = await tableCommand(args, db);
    expect(stdout).toMatch(/^A-OKVQA multiple-choice accuracy \(NLSOM Tables 1 and 4\)/);
    expect(stdout).toContain('images: 1 of 2 not found under');
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(stdout);
  });

  it("MindAgent's CoS tables: eval-show prints the sweep's tables again", async () => {
    const db = path.join(dir, 'sweep.db');
    const args = ['cuisineworld', 'sweep', '--alphas', '1,3', '--episodes', '1', '--steps', '6'];
    const { stdout, evalId } = await tableCommand(args, db);
    expect(stdout).toMatch(/^\[simulated\] 2 agents · .* · 1 episode of 6 steps per cell\n/);
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(stdout);
  });
});
