import { defineConfig } from 'vitest/config';
import { NODES_ALIAS, NODES_DIR } from './vite.config.ts';

export default defineConfig({
  // The editor's node types, as its build finds them (vite.config.ts).
  resolve: { alias: { [NODES_ALIAS]: NODES_DIR } },
  test: {
    include: [
      'app/**/*.test.ts',
      'nodes/**/*.test.ts',
      'tests/**/*.test.ts',
      'main/**/*.test.ts',
      'renderer/**/*.test.ts',
    ],
    testTimeout: 20_000,
    // Builds the editor for the end-to-end tests (tests/e2e), once per run.
    globalSetup: ['tests/e2e/global-setup.ts'],
  },
});
