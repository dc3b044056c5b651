import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';

const dist = new URL('../../dist/', import.meta.url);
const BUDGET_BYTES = 800 * 1024;

// The package ships two builds of the wasm module (one thread; threads), and init() loads one of
// them: what a user downloads is the package's own modules plus one build's files.
test.each(['sublinear_bandits_wasm', 'sublinear_bandits_wasm_threads'])('the .wasm and .js files users download with %s stay within the 800 KB gzipped budget', (build) => {
  const files = readdirSync(dist).filter((name) => name.endsWith('.js') || name.endsWith('.wasm'));
  expect(files).toContain(`${build}.wasm`);
  const builds = /^sublinear_bandits_wasm(_threads)?\./;
  const downloaded = files.filter((name) => !builds.test(name) || name.startsWith(`${build}.`));
  // Every file of the package is counted but the other build's.
  expect(files.length - downloaded.length).toBe(build.endsWith('_threads') ? 2 : 3);
  const sizes = Object.fromEntries(downloaded.map((name) => [name, gzipSync(readFileSync(new URL(name, dist)), { level: 9 }).length]));
  const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
  console.log(`gzipped package payload with ${build}: ${(total / 1024).toFixed(1)} KB`, sizes);
  expect(total).toBeLessThan(BUDGET_BYTES);
});
