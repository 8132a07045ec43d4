/**
 * Builds the editor once before the suite, so the end-to-end tests run the renderer of this
 * checkout, not a stale build. Each test run builds into a folder of its own (handed to the
 * tests with `provide`), so another `vite build` or test run beside it cannot change the page
 * under a test. The build keeps its source maps: tests/renderer-bundle.test.ts reads them to
 * prove what the page bundles, and what it must not.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';

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
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: true },
  });
  project.provide('rendererDir', outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}
