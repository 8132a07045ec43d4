/**
 * The editor benchmark measures the current editor: it takes the studio's build when that build's
 * record says it was made from the current sources (the content hash `npm start` checks,
 * scripts/editor-build.ts, whose tests cover when a build is stale), and has it built otherwise.
 * The record is written by hand here, so no `vite build` runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareRenderer } from '../bench/editor-setup.ts';
import { recordOf } from '../scripts/editor-build.ts';
import { ROOT } from './support/cli.ts';

let dir: string;
let outDir: string;
let input: string;

beforeEach(() => {
  // Inside the repository, as a build's inputs are (test-results/ is ignored by git).
  mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  dir = mkdtempSync(path.join(ROOT, 'test-results', 'bench-editor-setup-'));
  outDir = path.join(dir, 'renderer');
  mkdirSync(outDir);
  writeFileSync(path.join(outDir, 'index.html'), '<!doctype html>');
  input = path.join(dir, 'view.tsx');
  writeFileSync(input, 'export const View = () => null;\n');
  // The studio's options: the built-in node types, with source maps.
  const record = recordOf({ sourcemap: true }, [
    path.relative(ROOT, input).split(path.sep).join('/'),
  ]);
  writeFileSync(`${outDir}.build.json`, JSON.stringify(record));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the editor benchmark's renderer", () => {
  it('is the studio build as found when its record matches the sources', async () => {
    const said: string[] = [];
    const build = await prepareRenderer({ build: false, distDir: outDir }, dir, (l) =>
      said.push(l),
    );
    expect(build).toMatchObject({ dir: outDir, origin: 'dist' });
    expect(said).toEqual([]);
  });
});
