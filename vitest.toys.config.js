import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { toyRunFiles } from './tests/js/generic-suites.js';

// The toy run: the generic suites (tests/js/generic-suites.js) a second time, against the test build
// with the toy index and the toy policy registered (`scripts/build.sh wasm-toys`, build/dist-toys/;
// SB_TOYS=1 makes tests/js/helpers.js load it), so that they loop over the toys as over the built-in
// types. scripts/test.sh runs it after the main run and counts its results in the summary.
export default defineConfig({
  test: {
    include: toyRunFiles,
    env: { SB_TOYS: '1' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    setupFiles: ['tests/setup/yield-between-tests.js'],
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
