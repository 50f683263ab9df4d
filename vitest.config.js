import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.js', 'bench/**/*.test.js'],
    // One S3 emulator for the whole run; a local DynamoDB (dynalite) per test file (test/support/local.js).
    globalSetup: ['test/support/global-setup.js'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Each import logs its JSON lines; show them only for a test that fails: the logger and a sharded
    // job's worker processes write through the test's console (src/observe/logger.js, dispatch/local-map.js).
    silent: 'passed-only',
    env: { DDBLOAD_LOGS_TO_CONSOLE: 'true' },
  },
});
