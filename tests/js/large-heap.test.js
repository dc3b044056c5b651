// Past 2 GiB of WebAssembly heap (memory may grow to 4 GiB) malloc hands out addresses above 2^31,
// which come back to JavaScript as negative i32s: every address and byte count the JS layer reads
// must be taken as unsigned. Its own file, so its module instance (about 4 GiB) goes with its worker.
import { describe, expect, test } from 'vitest';
import { loadModule } from './helpers.js';

describe('a WebAssembly heap beyond 2 GiB', () => {
  test('inputs copied to addresses above 2^31 arrive intact, and memoryUsage stays unsigned', async () => {
    const sb = await loadModule();
    const dim = 256;
    const rows = (gib) => Math.floor((gib * 2 ** 30) / (dim * 4));
    const before = sb.memoryUsage().allocatedBytes;
    // 1.2 GiB and two batches of 0.5 GiB put more than 2 GiB in use (in 0.2, 0.7 and 2 x 0.15 GiB
    // left 1.1 GB in use: the heap never reached 2^31).
    const large = new sb.ExactIndex({ dim });
    const n = rows(1.2);
    large.add(Uint32Array.from({ length: n }, (_, i) => i), new Float32Array(n * dim));
    const later = new sb.ExactIndex({ dim });
    const m = rows(0.5);
    for (let batch = 0; batch < 2; batch++) {
      const vectors = new Float32Array(m * dim);
      vectors[(7 + batch) * dim + batch] = 1;  // item batch * m + 7 + batch points along axis `batch`
      later.add(Uint32Array.from({ length: m }, (_, i) => batch * m + i), vectors);
    }
    const usage = sb.memoryUsage();
    expect(usage.allocatedBytes).toBeGreaterThan(2 ** 31);
    expect(usage.heapBytes).toBeGreaterThanOrEqual(usage.allocatedBytes);
    for (const batch of [0, 1]) {
      const query = new Float32Array(dim);
      query[batch] = 1;
      expect(later.search(query, 1)).toEqual({ ids: Uint32Array.of(batch * m + 7 + batch), scores: Float32Array.of(1) });
    }
    large.dispose();
    later.dispose();
    expect(sb.memoryUsage().allocatedBytes).toBeLessThan(before + 2 ** 20);
  }, 120_000);
});
