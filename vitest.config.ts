import { configDefaults, defineConfig } from 'vitest/config';
import { NODES_ALIAS, NODES_DIR } from './vite.config.ts';

/** The tests that read the editor's build: they run only after tests/e2e/global-setup.ts. */
const EDITOR_TESTS = ['tests/e2e/**/*.test.ts', 'tests/renderer-bundle.test.ts'];

export default defineConfig({
  // The editor's node types, as its build finds them (vite.config.ts).
  resolve: { alias: { [NODES_ALIAS]: NODES_DIR } },
  test: {
    testTimeout: 20_000,
    // Two projects so that the editor is built (or its cached build found) only in a run that
    // holds a test reading it: vitest runs a project's global setup only when it has files to run.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'app/**/*.test.ts',
            'nodes/**/*.test.ts',
            'tests/**/*.test.ts',
            'main/**/*.test.ts',
            'renderer/**/*.test.ts',
          ],
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
