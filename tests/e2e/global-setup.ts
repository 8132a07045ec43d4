/**
 * Provides the editor's build to the end-to-end tests, so they run the renderer of this
 * checkout, not a stale build. It runs only in runs that hold a test reading the build (the
 * `editor` project in vitest.config.ts): a run of unit tests never builds.
 *
 * The build is reused across runs while its sources are unchanged (scripts/editor-build.ts): it
 * lives in test-results/editor-<hash>/, moved there only when complete, so another build or
 * test run beside this one cannot change the page under a test. It keeps its source maps:
 * tests/renderer-bundle.test.ts reads them to prove what the page bundles, and what it must
 * not. It holds the fixture node types (tests/e2e/fixture-nodes/) beside the built-in ones.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { cachedEditorBuild } from '../../scripts/editor-build.ts';
import { CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM } from './chromium.ts';
import { FIXTURE_NODES_DIR, linkNodeTypes } from './fixture-nodes.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The renderer build the studio serves in end-to-end tests ('' when there is none). */
    rendererDir: string;
    /** The run's shared Chromium, for playwright's connect ('' when there is none). */
    chromiumEndpoint: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(project: TestProject): Promise<() => void> {
  const { dir, temporary } = await cachedEditorBuild({
    parent: path.join(ROOT, 'test-results'),
    build: { sourcemap: true, nodeDirs: [path.join(ROOT, 'nodes'), FIXTURE_NODES_DIR] },
    // The page knows the fixture node types too (tests/e2e/fixture-nodes.ts); studios whose
    // engine does not simply never see one on their canvas.
    prepare: linkNodeTypes,
  });
  project.provide('rendererDir', dir);
  // One Chromium for the whole run: each studio opens its own browser context in it, instead of
  // starting a browser of its own for every test file.
  const browser = HAVE_CHROMIUM
    ? await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    : undefined;
  project.provide('chromiumEndpoint', browser?.wsEndpoint() ?? '');
  return async () => {
    await browser?.close();
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
}
