import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, test } from 'vitest';

const dist = new URL('../../dist/', import.meta.url);
const BUDGET_BYTES = 800 * 1024;

test('the .wasm and .js files users download stay within the 800 KB gzipped budget', () => {
  const files = readdirSync(dist).filter((name) => name.endsWith('.js') || name.endsWith('.wasm'));
  expect(files).toContain('sublinear_bandits_wasm.wasm');
  const sizes = Object.fromEntries(files.map((name) => [name, gzipSync(readFileSync(new URL(name, dist)), { level: 9 }).length]));
  const total = Object.values(sizes).reduce((sum, size) => sum + size, 0);
  console.log(`gzipped package payload: ${(total / 1024).toFixed(1)} KB`, sizes);
  expect(total).toBeLessThan(BUDGET_BYTES);
});
