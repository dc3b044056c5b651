import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One runner for every JavaScript suite: the API against the built wasm in Node (tests/js), the
// packed tarball in a scratch project (tests/package), and the demo in Chromium (tests/e2e).
export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js', 'tests/package/**/*.test.js', 'tests/e2e/**/*.test.js'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // After each test, a turn of the worker's event loop (why: the file's comment).
    setupFiles: ['tests/setup/yield-between-tests.js'],
    // Vitest's default is one file at a time on two cores (cores - 1). Many files spend much of
    // their time waiting on Chromium, npm or a bundler, so two files at once keep both cores busy;
    // each test file has its own scratch folders and ports.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
