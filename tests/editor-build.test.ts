/**
 * The editor's build is reused while what it was made from is unchanged (scripts/editor-build.ts):
 * `npm run studio` starts without building, and the end-to-end tests find the build of an
 * earlier run. These tests write records by hand, so no `vite build` runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cachedEditorBuild,
  type EditorBuildOptions,
  ensureEditorBuild,
  isCurrent,
  recordOf,
} from '../scripts/editor-build.ts';
import { ROOT } from './support/cli.ts';

let dir: string;
let nodes: string;
let input: string;
let options: EditorBuildOptions;

beforeEach(() => {
  // Inside the repository, as a build's inputs are (test-results/ is ignored by git).
  mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  dir = mkdtempSync(path.join(ROOT, 'test-results', 'editor-build-test-'));
  nodes = path.join(dir, 'nodes');
  mkdirSync(path.join(nodes, 'echo'), { recursive: true });
  writeFileSync(path.join(nodes, 'echo', 'spec.ts'), 'export const spec = 1;\n');
  input = path.join(dir, 'view.tsx');
  writeFileSync(input, 'export const View = () => null;\n');
  options = { sourcemap: true, nodeDirs: [nodes] };
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const inputs = () => [path.relative(ROOT, input).split(path.sep).join('/'), 'renderer/main.tsx'];

describe("the editor's build record", () => {
  it('stays current while the files it read are unchanged, and not after an edit', () => {
    const record = recordOf(options, inputs());
    expect(isCurrent(record, options)).toBe(true);
    writeFileSync(input, 'export const View = () => "changed";\n');
    expect(isCurrent(record, options)).toBe(false);
  });

  it('is stale when a file it read is gone, or built with other options', () => {
    const record = recordOf(options, inputs());
    expect(isCurrent(record, { ...options, sourcemap: false })).toBe(false);
    rmSync(input);
    expect(isCurrent(record, options)).toBe(false);
  });

  it('is stale when a node type gains a file the editor could glob, though none it read changed', () => {
    const record = recordOf(options, inputs());
    writeFileSync(path.join(nodes, 'echo', 'view.tsx'), 'export const view = {};\n');
    expect(isCurrent(record, options)).toBe(false);
  });

  it('lets npm run studio start without building when dist holds a current build', async () => {
    const outDir = path.join(dir, 'renderer');
    mkdirSync(outDir);
    writeFileSync(path.join(outDir, 'index.html'), '<!doctype html>');
    const said: string[] = [];
    // The default options: the built-in node types, with source maps.
    const record = recordOf({ sourcemap: true }, inputs());
    writeFileSync(`${outDir}.build.json`, JSON.stringify(record));
    expect(await ensureEditorBuild({ outDir, say: (l) => said.push(l) })).toBe(false);
    expect(said).toEqual([]);
  });

  it("finds an earlier test run's build by its hash", async () => {
    const record = recordOf(options, inputs());
    const built = path.join(dir, `editor-${record.key}`);
    mkdirSync(built);
    writeFileSync(path.join(built, 'build.json'), JSON.stringify(record));
    // A stale build beside it is passed over.
    const stale = { ...record, key: '0000000000000000' };
    mkdirSync(path.join(dir, 'editor-0000000000000000'));
    writeFileSync(path.join(dir, 'editor-0000000000000000', 'build.json'), JSON.stringify(stale));
    expect(await cachedEditorBuild({ parent: dir, build: options })).toEqual({
      dir: built,
      built: false,
      temporary: false,
    });
  });
});
