/**
 * Builds the editor once before the suite, so the end-to-end tests run the renderer of this
 * checkout, not a stale build. Each test run builds into a folder of its own (handed to the
 * tests with `provide`), so another `vite build` or test run beside it cannot change the page
 * under a test. The build keeps its source maps: tests/renderer-bundle.test.ts reads them to
 * prove what the page bundles, and what it must not. The build holds the fixture node types
 * (tests/e2e/fixture-nodes/) beside the built-in ones.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { NODES_ALIAS } from '../../vite.config.ts';
import { linkNodeTypes } from './fixture-nodes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The renderer build the studio serves in end-to-end tests ('' when there is none). */
    rendererDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  const parent = path.join(ROOT, 'test-results');
  mkdirSync(parent, { recursive: true });
  const outDir = mkdtempSync(path.join(parent, 'renderer-'));
  // The page knows the fixture node types too (tests/e2e/fixture-nodes.ts); studios whose
  // engine does not simply never see one on their canvas.
  const nodesDir = mkdtempSync(path.join(parent, 'nodes-'));
  linkNodeTypes(nodesDir);
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    resolve: { alias: { [NODES_ALIAS]: nodesDir } },
    build: { outDir, emptyOutDir: true, sourcemap: true },
  });
  project.provide('rendererDir', outDir);
  return () => {
    rmSync(outDir, { recursive: true, force: true });
    rmSync(nodesDir, { recursive: true, force: true });
  };
}
