// The docs/saving-state.md's "Build in Node, load in the browser", Node half, run for real: an index saved with
// writeFileSync(path, index.toBytes()) and read back answers exactly as the one that was built.
// (The page half -- fetch, fromBytes, IndexedDB -- runs in Chromium: tests/e2e/model.test.js.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

test('an HnswIndex written to a file and read back gives the same answers', () => {
  const dim = 64;
  const count = 2000;
  const index = new sb.HnswIndex({ dim });
  index.add(Uint32Array.from({ length: count }, (_, i) => i), gaussian(seededRandom(31), count * dim));
  const folder = mkdtempSync(join(tmpdir(), 'sublinear-bandits-'));
  try {
    const path = join(folder, 'model.sbst');
    writeFileSync(path, index.toBytes());
    // readFileSync gives a Buffer, a Uint8Array as fromBytes asks; the page's fetch gives the same bytes.
    const loaded = sb.HnswIndex.fromBytes(readFileSync(path));
    expect(loaded.size).toBe(count);
    expect(loaded.stats()).toEqual(index.stats());
    const random = seededRandom(32);
    for (let q = 0; q < 20; q++) {
      const query = gaussian(random, dim);
      expect(loaded.search(query, 10)).toEqual(index.search(query, 10));
    }
    loaded.dispose();
  } finally {
    rmSync(folder, { recursive: true, force: true });
    index.dispose();
  }
});
