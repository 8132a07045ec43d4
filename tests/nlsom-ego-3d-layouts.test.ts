/**
 * NLSOM's Tables 7 and 6 kept with their evals: `society eval-show` prints what `nlsom ego-eval`
 * and `nlsom 3d-eval` printed, byte for byte, and Table 7 (whose rows as answered come from the
 * runs' outputs) prints the same again in another store after `eval-export` and `eval-import`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'society-ego3d-layouts-'));

/** One clip 100–310 s into its video, two queries with text. */
const NLQ = {
  version: 'v1',
  videos: [
    {
      video_uid: 'vid-a',
      clips: [
        {
          clip_uid: 'clip-a',
          video_start_sec: 100,
          video_end_sec: 310,
          annotations: [
            {
              annotation_uid: 'an-1',
              language_queries: [
                { clip_start_sec: 24, clip_end_sec: 31, query: 'Where did I put the scissors?' },
                { clip_start_sec: 150, clip_end_sec: 160, query: 'What did I eat?' },
              ],
            },
          ],
        },
      ],
    },
  ],
};
/** Ego4D's narration.json: times from the video's start, `#C` tags. */
const NARRATION = {
  'vid-a': {
    narration_pass_1: {
      narrations: [
        [110, 'C opens the fridge'],
        [224, 'C puts the scissors in the drawer'],
        [278, 'C eats the porridge'],
      ].map(([t, text]) => ({ timestamp_sec: t, narration_text: `#C ${text}` })),
    },
  },
};

function write(name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** Runs a table command (simulated, quiet) into `db`; returns what it printed and its eval's id. */
async function tableCommand(args: string[], db: string) {
  const ran = await societyHere([...args, '--simulate', '-q', '--db', db]);
  expect(ran.code, ran.stderr).toBe(0);
  const list = await societyHere(['evals', '--json', '--db', db]);
  return { stdout: ran.stdout, evalId: JSON.parse(list.stdout)[0].evalId as string };
}

describe("NLSOM's Tables 7 and 6 in eval-show and bundles", () => {
  it('Table 7: eval-show prints it again, rows as answered included, and so does another store after import', async () => {
    const db = path.join(dir, 'ego.db');
    const nlq = write('nlq.json', NLQ);
    const narrations = write('narration.json', NARRATION);
    const { stdout, evalId } = await tableCommand(
      ['nlsom', 'ego-eval', nlq, '--narrations', narrations, '--structure', 'monarchy'],
      db,
    );
    expect(stdout).toMatch(/^Ego4D NLQ recall, % \(NLSOM Table 7 layout\) · simulated answers/);
    expect(stdout).toContain(`queries: 2 from ${nlq}; narrations from`);
    // The row as answered reads each run's report-raw output; the w. exec. row its prediction.
    expect(stdout).toMatch(/^m\. \(4, 1\)\s+2\s+R1\s+6\.77\s/m);
    expect(stdout).toMatch(/^m\. w\.exec \(4, 1\)\s+2\s+R1\s+7\.81\s/m);
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(stdout);

    const bundle = path.join(dir, 'ego-bundle');
    expect((await societyHere(['eval-export', evalId, bundle, '--db', db])).code).toBe(0);
    const layout = readFileSync(path.join(bundle, 'tables/paper-layout.txt'), 'utf8');
    expect(stdout.startsWith(layout.trimEnd())).toBe(true);
    const other = path.join(dir, 'ego-other.db');
    const imported = await societyHere(['eval-import', bundle, '--db', other]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await societyHere(['eval-show', evalId, '--db', other])).stdout).toBe(stdout);
  });

  it('Table 6: eval-show prints the prompts, both arms and their difference again', async () => {
    const db = path.join(dir, '3d.db');
    const prompts = write('prompts.txt', 'a red Ferrari sports car\n{"prompt": "a blue teapot"}\n');
    const { stdout, evalId } = await tableCommand(['nlsom', '3d-eval', prompts], db);
    expect(stdout).toMatch(/^3D generation, CLIP × 100 over the views \(NLSOM Table 6 layout\)/);
    expect(stdout).toMatch(/^a red Ferrari sports car\s+Ferrari\s+original prompt/m);
    expect(stdout).toMatch(/^a blue teapot\s+–\s+original prompt \(Imagine3D\)\s+not in paper/m);
    expect((await societyHere(['eval-show', evalId, '--db', db])).stdout).toBe(stdout);
  });
});
