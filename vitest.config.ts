import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { NODES_ALIAS, NODES_DIR } from './vite.config.ts';

/**
 * The tests that read the editor's build: they run only after tests/e2e/global-setup.ts. The
 * fixture node types' own tests (tests/e2e/fixture-nodes/) need no build.
 */
const EDITOR_TESTS = ['tests/e2e/*.test.ts', 'tests/renderer-bundle.test.ts'];

export default defineConfig({
  // The editor's node types, as its build finds them (vite.config.ts).
  resolve: { alias: { [NODES_ALIAS]: NODES_DIR } },
  test: {
    testTimeout: 20_000,
    // Vitest's default is one worker fewer than the cores: a single one on a 2-core machine,
    // where most of a test's time is spent waiting on the command it started, a stub server or
    // Chromium. Two files at a time use both cores.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Three projects. Vitest runs a project's global setup only when it has files to run, so the
    // editor is built (or its cached build found) only in a run that holds a test reading it.
    projects: [
      {
        extends: true,
        test: {
          // The tests beside the code. They share their worker's modules from file to file
          // (`isolate: false`) instead of loading the core again for each of ~200 files, which
          // took more time than their tests: a file here leaves the process as it found it
          // (environment variables, working folder, timers, mocks).
          name: 'unit',
          include: [
            'app/**/*.test.ts',
            'nodes/**/*.test.ts',
            'main/**/*.test.ts',
            'renderer/**/*.test.ts',
          ],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Cross-cutting tests: commands, servers, crash safety. Each file in a fresh worker.
          name: 'system',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...EDITOR_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: 'editor',
          include: EDITOR_TESTS,
          globalSetup: ['tests/e2e/global-setup.ts'],
        },
      },
    ],
  },
});
