/**
 * Builds the editor once before the suite, so the end-to-end tests run the renderer of this
 * checkout, not a stale build. Each test run builds into a folder of its own (handed to the
 * tests with `provide`), so another `vite build` or test run beside it cannot change the page
 * under a test. Skipped where the end-to-end tests skip (no Chromium).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    project.provide('rendererDir', '');
    return undefined;
  }
  const parent = path.join(ROOT, 'test-results');
  mkdirSync(parent, { recursive: true });
  const outDir = mkdtempSync(path.join(parent, 'renderer-'));
  await build({
    configFile: path.join(ROOT, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  project.provide('rendererDir', outDir);
  return () => rmSync(outDir, { recursive: true, force: true });
}
