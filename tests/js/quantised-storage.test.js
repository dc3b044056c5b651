// storage: 'int8' through the package: the option on both index classes and inside a catalogue's
// index spec, saved states that restore the codes, bad values refused, and a wasm heap that gets
// its bytes back.
import { expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

test('an int8 HnswIndex finds the float top 10 and stores a quarter of the bytes', () => {
  const dim = 32;
  const n = 3000;
  const random = seededRandom(1);
  const items = gaussian(random, n * dim);
  const ids = Uint32Array.from({ length: n }, (_, i) => i);
  // The float answer: the exact scan of the float rows.
  const exact = new sb.ExactIndex({ dim });
  exact.add(ids, items);
  const found = {};
  for (const storage of ['f32', 'int8']) {
    const index = new sb.HnswIndex({ dim, M: 12, efConstruction: 64, build: 'immediate', space: 'inner-product', storage, seed: 3 });
    index.add(ids, items);
    const stats = index.stats();
    expect(stats.storage).toBe(storage);
    // One copy of the vectors: the store's row (floats, or codes and scale), and per graph node a
    // 4-byte reference to it (in the node's record and in the dense copy searches read).
    expect(stats.vectorBytesPerItem).toBe(storage === 'f32' ? 4 * dim + 8 : 32 + 4 + 8);
    const queries = seededRandom(2);
    let hits = 0;
    for (let q = 0; q < 50; q++) {
      const query = gaussian(queries, dim);
      const truth = new Set(exact.search(query, 10).ids);
      const answer = index.search(query, 10);
      expect(answer.scores.length).toBe(10);
      hits += Array.from(answer.ids).filter((id) => truth.has(id)).length;
    }
    found[storage] = hits / 500;
    index.dispose();
  }
  exact.dispose();
  expect(found.int8).toBeGreaterThanOrEqual(found.f32 - 0.01);
  expect(found.int8).toBeGreaterThan(0.9);
});

test('a catalogue over an int8 index saves, restores and serves its users', () => {
  const dim = 8;
  const random = seededRandom(4);
  const catalogue = new sb.Catalogue({ dim, index: { type: 'hnsw', storage: 'int8', M: 6 }, seed: 2 });
  catalogue.add(Uint32Array.from({ length: 1500 }, (_, i) => i), gaussian(random, 1500 * dim));
  catalogue.build();
  expect(catalogue.stats().index.storage).toBe('int8');
  const restored = sb.Catalogue.fromBytes(catalogue.toBytes());
  expect(restored.stats()).toEqual(catalogue.stats());
  const a = new sb.SubTS({ catalogue, seed: 7 });
  const b = new sb.SubTS({ catalogue: restored, seed: 7 });
  for (let t = 0; t < 20; t++) {
    const arm = a.select();
    expect(b.select()).toBe(arm);
    a.update(arm, 1);
    b.update(arm, 1);
  }
  for (const object of [a, b, restored, catalogue]) object.dispose();
});

test('bad storage values are refused and nothing leaks', () => {
  expectBanditError(sb, () => new sb.HnswIndex({ dim: 4, storage: 'int4' }), 'INVALID_ARGUMENT');
  expectBanditError(sb, () => new sb.ExactIndex({ dim: 4, storage: 8 }), 'INVALID_ARGUMENT');
  expectBanditError(sb, () => new sb.LshIndex({ dim: 4, storage: 'int8' }), 'INVALID_ARGUMENT');
  expectBanditError(sb, () => new sb.ExactIndex({ dim: 70000, storage: 'int8' }), 'INVALID_ARGUMENT');
  const before = sb.memoryUsage().allocatedBytes;
  for (let round = 0; round < 3; round++) {
    const index = new sb.ExactIndex({ dim: 16, storage: 'int8' });
    index.add(Uint32Array.from({ length: 500 }, (_, i) => i), gaussian(seededRandom(round), 500 * 16));
    expectBanditError(sb, () => index.add([1], gaussian(seededRandom(9), 16)), 'DUPLICATE_ID');
    expect(index.size).toBe(500);
    const copy = sb.ExactIndex.fromBytes(index.toBytes());
    expect(Array.from(copy.search(gaussian(seededRandom(5), 16), 5).ids)).toEqual(Array.from(index.search(gaussian(seededRandom(5), 16), 5).ids));
    copy.dispose();
    index.dispose();
  }
  expect(sb.memoryUsage().allocatedBytes).toBeLessThanOrEqual(before);
});
