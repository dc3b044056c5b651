import { expect, test } from 'vitest';
import { loadModule } from './helpers.js';
import { readImages } from '../../bench/mips-real.mjs';

const sb = await loadModule();

// Real vectors (Debian's dataset-fashion-mnist, installed by scripts/bootstrap.sh): nonnegative
// images in one narrow cone, where the inner-product graph funnels searches to a few large-norm
// hubs. HnswIndex's default space ('auto') must notice and take the euclidean reduction.
test('HnswIndex picks its space from the data: the euclidean reduction on Fashion-MNIST', () => {
  const items = readImages('train-images-idx3-ubyte.gz', 12000);
  const queries = readImages('t10k-images-idx3-ubyte.gz', 40);
  const { dim } = items;
  const ids = Uint32Array.from({ length: items.count }, (_, i) => i);
  const exact = new sb.ExactIndex({ dim });
  exact.add(ids, items.vectors);
  const recall = (index) => {
    let found = 0;
    for (let q = 0; q < queries.count; q++) {
      const query = queries.vectors.subarray(q * dim, (q + 1) * dim);
      const truth = new Set(exact.search(query, 10).ids);
      for (const id of index.search(query, 10).ids) found += truth.has(id) ? 1 : 0;
    }
    return found / (10 * queries.count);
  };
  const index = new sb.HnswIndex({ dim, efConstruction: 64, seed: 1 });
  index.add(ids, items.vectors);
  expect(index.build()).toBe(0);
  const stats = index.stats();
  expect(stats.space).toBe('euclidean');
  expect(stats.spaceTrial.euclideanRecall).toBeGreaterThan(stats.spaceTrial.innerProductRecall);
  expect(recall(index)).toBeGreaterThan(0.85);
  index.dispose();
  exact.dispose();
}, 120_000);
