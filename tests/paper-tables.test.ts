/**
 * The papers' tables as commands over the eval machinery: OpenAGI's Table 1 (`society openagi
 * eval`), NLSOM's A-OKVQA accuracy (`society nlsom eval`) and MindAgent's CoS sweep with a
 * dispatcher document and an ablation (`society cuisineworld sweep`). Each is an eval in the
 * store, listed by `society evals`. The checks on the papers' own files need ../shared.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, society, societyHere } from './support/cli.ts';

const shared = (path: string) =>
  fileURLToPath(new URL(`../../shared/external-data/${path}`, import.meta.url));
const TASK_FILE = shared('openagi/task_description.txt');
const AOKVQA = shared('nlsom/aokvqa-val.txt');
const hasTasks = existsSync(TASK_FILE);
const hasAokvqa = existsSync(AOKVQA);
if (!hasTasks) console.warn(`skipping OpenAGI's own task file: ${TASK_FILE} is absent`);
if (!hasAokvqa) console.warn(`skipping NLSOM's A-OKVQA questions: ${AOKVQA} is absent`);

const dir = mkdtempSync(join(tmpdir(), 'society-papers-'));
const db = join(dir, 'runs.db');

describe('society openagi eval', () => {
  it('prints the Table 1 layout with --simulate --limit 2, saying which cells have no task', async () => {
    const result = await society(['openagi', 'eval', '--simulate', '--limit', '2', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('OpenAGI Table 1 layout · planner: rule planner · 2 tasks');
    expect(out).toContain('[simulated]: simulated plans, experts and metrics');
    // The built-in sample's first two tasks: image->image (ViT) and image->text (BERT).
    expect(out).toMatch(/^CLIP\s+not in paper\s+no task\s+–\s+0\s+text->image$/m);
    expect(out).toMatch(
      /^BERT\s+not in paper\s+\d\.\d{4} \(one task, no interval\)\s+–\s+1\s+image->text, /m,
    );
    // The image task is scored by OpenAGI's ViT distance, and the row says which way is better.
    expect(out).toMatch(
      /^ViT distance \(lower is better\)\s+not in paper\s+\d\.\d{4} \(one task, no interval\)\s+–\s+1\s+image->image$/m,
    );
    expect(out).toMatch(/^Overall\s+not in paper\s+\d\.\d{4} \(mean of 2 of 3 metrics\)/m);
    expect(out).toMatch(/^text\+text->text\s+BERT\s+0\s+–\s+no task$/m);
    expect(out).toMatch(/^eval [0-9a-f]{16} · OpenAGI Table 1 · rule planner .* finished$/m);
    expect(result.stderr).toContain("OpenAGI's 100 samples per task are not shipped");
  });

  it.skipIf(!hasTasks)(
    "runs OpenAGI's own tasks: a category's tasks fill its metric, as JSON too",
    async () => {
      const result = await society([
        'openagi',
        'eval',
        TASK_FILE,
        '--category',
        'text->image',
        '--simulate',
        '--json',
        '-q',
        '--db',
        db,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const json = JSON.parse(result.stdout);
      expect(json).toMatchObject({ status: 'finished', items: 2, scorer: 'metric-node' });
      const clip = json.table1.metrics.find((m: { metric: string }) => m.metric === 'CLIP');
      expect(clip).toMatchObject({ tasks: 2, failed: 0, categories: ['text->image'] });
      expect(typeof clip.mean).toBe('number');
      expect(json.table1.metrics.find((m: { metric: string }) => m.metric === 'ViT').mean).toBe(
        null,
      );
      expect(json.table1.overall).toMatchObject({ mean: clip.mean, of: 1 });
    },
  );

  it('refuses a task file it cannot read, in one line', async () => {
    const result = await societyHere(['openagi', 'eval', join(dir, 'none.txt'), '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^society: cannot read the task file .*none\.txt \(no such file\)\n$/,
    );
  });
});

describe('society nlsom eval', () => {
  it.skipIf(!hasAokvqa)(
    "prints the VQA society's accuracy over 20 A-OKVQA questions with its interval",
    async () => {
      const args = ['nlsom', 'eval', AOKVQA, '--limit', '20', '--simulate', '--set', 'rounds=1'];
      const result = await society([...args, '--db', db, '--concurrency', '8']);
      expect(result.code, result.stderr).toBe(0);
      // The paper's Table 1 figure at 1 round comes first, then ours with its interval.
      const row = /^monarchy\s+55\.78%\s+(\d+\.\d\d)% \[(\d+\.\d\d)%, (\d+\.\d\d)%\] n=20\s/m.exec(
        result.stdout,
      );
      expect(row, result.stdout).not.toBeNull();
      const [accuracy, lo, hi] = row!.slice(1).map(Number) as [number, number, number];
      expect(lo).toBeLessThanOrEqual(accuracy);
      expect(hi).toBeGreaterThanOrEqual(accuracy);
      expect(hi).toBeGreaterThan(lo);
      // COCO's photos are not in ../shared: said plainly, and the table keeps them apart.
      expect(result.stdout).toContain(
        'images: 20 of 20 not found under ', // the data file's folder
      );
      expect(result.stdout).toContain("run with the template's example picture");
      expect(result.stdout).toMatch(
        /^monarchy\s+\S+\s+\S+ \[\S+, \S+\] n=20\s+[−+±]\S+ pts\s+no question\s+/m,
      );

      const again = await societyHere([...args, '--db', db, '--json', '-q']);
      const json = JSON.parse(again.stdout);
      expect(json).toMatchObject({ status: 'finished', items: 20, scorer: 'choice' });
      expect(json.variants[0]).toMatchObject({ name: 'monarchy', n: 20, failed: 0 });
      expect(json.variants[0].score.mean).toBeCloseTo(accuracy / 100, 3);
      expect(json.images).toMatchObject({ found: 0, missing: 20, whenMissing: 'example-picture' });
    },
  );

  it('finds photos under --images by file name, and fails questions without one when asked', async () => {
    const data = join(dir, 'vqa');
    mkdirSync(join(data, 'photos'), { recursive: true });
    copyFileSync(join(ROOT, 'templates/nlsom-vqa.example.png'), join(data, 'photos', 'a.png'));
    const file = join(data, 'val.txt');
    writeFileSync(
      file,
      [
        "../coco/a.png_!_What shape is it?_!_['circle', 'square', 'star', 'line']_!_0",
        "../coco/b.png_!_What colour is it?_!_['red', 'blue', 'green', 'white']_!_0",
      ].join('\n'),
    );
    const base = ['nlsom', 'eval', file, '--simulate', '--set', 'rounds=1', '--db', db, '-q'];
    const found = await societyHere([...base, '--images', join(data, 'photos'), '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout).images).toMatchObject({ found: 1, missing: 1 });

    const strict = await societyHere([
      ...base,
      '--images',
      join(data, 'photos'),
      '--require-images',
    ]);
    expect(strict.code, strict.stderr).toBe(0);
    expect(strict.stdout).toContain('1 of 2 not found');
    expect(strict.stdout).toContain('those questions fail (--require-images)');
    expect(strict.stdout).toMatch(/^monarchy\s+2\s+1\s/m);

    const bad = await societyHere([...base, '--structure', 'anarchy']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--structure anarchy: use monarchy, monarchy+rtk, monarchy+rtk+rtc, democracy',
    );
  });
});

describe('society cuisineworld sweep with a dispatcher document', () => {
  it('runs the no-feedback ablation, stores it as an eval and prints the CoS table', async () => {
    const result = await society([
      'cuisineworld',
      'sweep',
      'templates/cuisineworld-dispatcher-2.society.json',
      '--no-feedback',
      '--simulate',
      '--alphas',
      '1,3',
      '--episodes',
      '1',
      '--steps',
      '6',
      '--db',
      db,
    ]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    // The document's level and agents, the ablation named in the title.
    expect(lines[0]).toBe(
      '[simulated] 2 agents · CuisineWorld dispatcher, 2 agents (openai:gpt-4o-mini) · no-feedback · 1 episode of 6 steps per cell',
    );
    expect(lines[1]).toMatch(/^\s+level_3\s+average$/);
    expect(lines[2]).toMatch(/^α 1\s+\d+\/\d+\s+/);
    expect(lines[3]).toMatch(/^α 3\s+\d+\/\d+\s+/);
    const id =
      /^eval ([0-9a-f]{16}) · CuisineWorld sweep · .* · no-feedback over levels level_3 × agents 2 × α 1,3/m.exec(
        result.stdout,
      )?.[1];
    expect(id, result.stdout).toBeDefined();
    expect(result.stdout).toMatch(/^no-feedback\s+2\s+0\s/m);

    const listed = await societyHere(['evals', '--db', db]);
    expect(listed.stdout).toContain(id!);
    const shown = await societyHere(['eval-show', id!, '--items', '--db', db]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('scorer cos');
    expect(shown.stdout).toContain('level_3 · 2 agents · α 3 · episode 1');
  });

  it('refuses an ablation no node of the document takes (the greedy rules read no prompt)', async () => {
    const result = await societyHere(['cuisineworld', 'sweep', '--no-feedback', '--db', db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--no-feedback: no node of the document takes it (a dispatcher that asks a model does)',
    );
  });
});
