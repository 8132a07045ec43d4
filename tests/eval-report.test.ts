/** `--report FILE.html` on `society eval` and `society eval-show`. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';
import { qaEvalArgs, writeQaEval } from './support/qa-eval.ts';

describe('society eval --report', () => {
  const files = writeQaEval();
  const evalArgs = (report: string) => qaEvalArgs(files, files.db, report);
  let evalId = '';

  beforeAll(async () => {
    const result = await societyHere(evalArgs(path.join(files.dir, 'report.html')));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    evalId = JSON.parse(result.stdout).evalId;
  });

  it('writes the page after the run: table, charts, worst items with their run ids', async () => {
    const page = readFileSync(path.join(files.dir, 'report.html'), 'utf8');
    expect(page).toContain('<tr data-variant="small">');
    expect(page).toContain('<tr data-variant="big">');
    expect(page.match(/<g class="bar"/g)).toHaveLength(2);
    expect(page).toMatch(/data-simulated>\[simulated\] answers/);
    // Every item × variant is listed with its run id, and the row's markup is escaped.
    const runIds = page.match(/<code class="run-id">[0-9a-f]{8,}<\/code>/g) ?? [];
    expect(runIds.length).toBeGreaterThanOrEqual(8);
    expect(page).toContain('Name a &lt;b&gt;bold&lt;/b&gt; tag');
    expect(page).not.toContain('<script>');
  });

  it('eval-show ID --report writes the same page again', async () => {
    const again = path.join(files.dir, 'again.html');
    const result = await societyHere([
      'eval-show',
      evalId,
      '--report',
      again,
      '--db',
      files.db,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`report written to ${again}`);
    expect(readFileSync(again, 'utf8')).toBe(
      readFileSync(path.join(files.dir, 'report.html'), 'utf8'),
    );
  });

  it('refuses a path it cannot write before running anything: one line, exit 2', async () => {
    const missing = path.join(files.dir, 'no-such-folder', 'r.html');
    const result = await societyHere(evalArgs(missing));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `society: --report ${missing}: the folder ${path.dirname(missing)} does not exist`,
    );
    expect(result.stdout).toBe('');
    const folder = await societyHere([
      'eval-show',
      evalId,
      '--report',
      files.dir,
      '--db',
      files.db,
    ]);
    expect(folder.code).toBe(2);
    expect(folder.stderr.trim()).toBe(`society: --report ${files.dir}: is a folder, not a file`);
  });
});
