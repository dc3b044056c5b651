import { defineConfig } from 'vitest/config';

// One runner for every JavaScript suite: the API against the built wasm in Node (tests/js), the
// packed tarball in a scratch project (tests/package), and the demo in Chromium (tests/e2e).
export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js', 'tests/package/**/*.test.js', 'tests/e2e/**/*.test.js'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
