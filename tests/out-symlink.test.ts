/**
 * `--out DIR` may be a folder someone else can write into. A symlink planted there at an output's
 * name (`answer.txt` → a file of yours outside) is replaced by the output, never followed: the
 * file it pointed at keeps its bytes.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { societyHere } from './support/cli.ts';

const society = {
  version: 1,
  name: 'echo',
  models: { m: { provider: 'openai', model: 'gpt-4o-mini' } },
  nodes: [
    { id: 'q', type: 'input', position: { x: 0, y: 0 }, data: { name: 'q', example: 'hi' } },
    { id: 'a', type: 'agent', position: { x: 200, y: 0 }, data: { model: 'm', prompt: '{{ q }}' } },
    { id: 'out', type: 'output', position: { x: 400, y: 0 }, data: { name: 'answer' } },
  ],
  edges: [
    { id: 'e1', source: 'q', sourceHandle: 'value', target: 'a', targetHandle: 'q' },
    { id: 'e2', source: 'a', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
  ],
};

const dir = mkdtempSync(join(tmpdir(), 'society-out-link-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--out and symlinks', () => {
  it('replaces a symlink planted at an output name; the file it points at is untouched', async () => {
    const doc = join(dir, 'echo.society.json');
    writeFileSync(doc, JSON.stringify(society));
    const precious = join(dir, 'precious.txt');
    writeFileSync(precious, 'my own notes\n');
    const out = join(dir, 'out');
    mkdirSync(out);
    symlinkSync(precious, join(out, 'answer.txt'));

    const run = await societyHere([
      'run',
      doc,
      '--simulate',
      '-q',
      '--db',
      join(dir, 'runs.db'),
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    expect(readFileSync(precious, 'utf8')).toBe('my own notes\n');
    // The output is a file of its own now, holding the answer; no temporary file is left.
    const written = join(out, 'answer.txt');
    expect(lstatSync(written).isSymbolicLink()).toBe(false);
    expect(readFileSync(written, 'utf8')).toContain('[simulated]');
    expect(readdirSync(out)).toEqual(['answer.txt']);
    expect(run.stderr).toContain(`wrote ${written} (text/plain, `);
  });

  it('an output name taken by a folder is one clear line, exit 2', async () => {
    const doc = join(dir, 'echo.society.json');
    const out = join(dir, 'out2');
    mkdirSync(join(out, 'answer.txt'), { recursive: true });
    const run = await societyHere([
      'run',
      doc,
      '--simulate',
      '-q',
      '--db',
      join(dir, 'runs.db'),
      '--out',
      out,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/\nsociety: --out: cannot write .*answer\.txt \(E\w+\)\n$/);
    expect(readdirSync(out)).toEqual(['answer.txt']);
  });
});
