import { defineConfig } from 'vitest/config';

// The differential fuzz tests (test/oracle/*.fuzz.js): `npm run fuzz -- --runs N [--seed S]`, or
// FUZZ_RUNS=N npx vitest run --config vitest.fuzz.config.js. Same local servers as vitest.config.js.
export default defineConfig({
  test: {
    include: ['test/oracle/**/*.fuzz.js'],
    globalSetup: ['test/support/global-setup.js'],
    // A run is many imports, and shrinking a failure runs many more.
    testTimeout: 4 * 60 * 60 * 1000,
    hookTimeout: 180_000,
    // The importer's own log lines are off (FUZZ_LOG_LEVEL=INFO turns them on); the harness prints one line per case.
    env: {
      POWERTOOLS_LOG_LEVEL: process.env.FUZZ_LOG_LEVEL ?? 'SILENT',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
