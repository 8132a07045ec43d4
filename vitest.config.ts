import { defineConfig } from 'vitest/config';

export default defineConfig({
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
