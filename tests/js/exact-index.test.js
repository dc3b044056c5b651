import { describe, expect, test } from 'vitest';
import { bruteForce, expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

describe('ExactIndex', () => {
  test('top-k equals a brute-force scan on random data, through adds and removals', () => {
    const random = seededRandom(7);
    for (const dim of [1, 5, 16, 32, 33]) {
      const index = new sb.ExactIndex({ dim });
      const items = new Map();
      let nextId = 0;
      for (let round = 0; round < 8; round++) {
        const n = 200;
        const ids = Uint32Array.from({ length: n }, () => nextId++ * 7 + 3);
        const vectors = gaussian(random, n * dim);
        index.add(ids, vectors);
        ids.forEach((id, i) => items.set(id, vectors.subarray(i * dim, (i + 1) * dim)));
        const removed = [...items.keys()].filter(() => random() < 0.25);
        index.remove(removed);
        removed.forEach((id) => items.delete(id));
        expect(index.size).toBe(items.size);

        const query = gaussian(random, dim);
        const { ids: found, scores } = index.search(query, 10);
        const expected = bruteForce(items, query, 10);
        expect(found).toBeInstanceOf(Uint32Array);
        expect(scores).toBeInstanceOf(Float32Array);
        expect(Array.from(found)).toEqual(expected.map(([, id]) => id));
        scores.forEach((score, i) => {
          expect(score).toBeCloseTo(expected[i][0], 3);
          if (i > 0) expect(scores[i - 1]).toBeGreaterThanOrEqual(score);
        });
        for (const id of removed) expect(index.has(id)).toBe(false);
        for (const id of found) expect(removed).not.toContain(id);
      }
      index.dispose();
    }
  });

  test('accepts Float64Array and plain arrays, returns min(k, size) results', () => {
    const index = new sb.ExactIndex({ dim: 2 });
    index.add(new Uint32Array([10, 20]), new Float64Array([1, 0, 0, 1]));
    index.add([30], [2, 2]);
    const result = index.search([1, 0.5], 10);
    expect(Array.from(result.ids)).toEqual([30, 10, 20]);
    expect(Array.from(result.scores)).toEqual([3, 1, 0.5]);
    expect(index.dim).toBe(2);
    expect(index.has(30)).toBe(true);
    expect(index.has(31)).toBe(false);
    const stats = index.stats();
    expect(stats.innerProducts).toBeGreaterThanOrEqual(3);
    expect(stats.searches).toBe(1);
    index.dispose();
  });

  test('an empty index returns empty results', () => {
    const index = new sb.ExactIndex({ dim: 3 });
    const result = index.search([1, 2, 3], 4);
    expect(result.ids.length).toBe(0);
    expect(result.scores.length).toBe(0);
    index.dispose();
  });

  test('ids span the whole uint32 range', () => {
    const index = new sb.ExactIndex({ dim: 1 });
    index.add([0, 4294967295], [1, 2]);
    expect(Array.from(index.search([1], 2).ids)).toEqual([4294967295, 0]);
    index.dispose();
  });
});

describe('errors', () => {
  function filled() {
    const index = new sb.ExactIndex({ dim: 2 });
    index.add([1, 2], [1, 0, 0, 1]);
    return index;
  }

  function expectUnchanged(index) {
    expect(index.size).toBe(2);
    expect(Array.from(index.search([1, 0.5], 5).ids)).toEqual([1, 2]);
  }

  const cases = [
    ['INVALID_ARGUMENT', 'dim missing', () => new sb.ExactIndex({})],
    ['INVALID_ARGUMENT', 'dim not an integer', () => new sb.ExactIndex({ dim: 2.5 })],
    ['INVALID_ARGUMENT', 'dim NaN', () => new sb.ExactIndex({ dim: NaN })],
    ['INVALID_ARGUMENT', 'options not an object', () => new sb.ExactIndex(3)],
    ['INVALID_ARGUMENT', 'id out of range', (index) => index.add([2 ** 32], [1, 1])],
    ['INVALID_ARGUMENT', 'negative id', (index) => index.add([-1], [1, 1])],
    ['INVALID_ARGUMENT', 'fractional id', (index) => index.add([1.5], [1, 1])],
    ['INVALID_ARGUMENT', 'vectors not numbers', (index) => index.add([3], ['a', 1])],
    ['INVALID_ARGUMENT', 'vectors not an array', (index) => index.add([3], 'oops')],
    ['INVALID_ARGUMENT', 'k zero', (index) => index.search([1, 1], 0)],
    ['INVALID_ARGUMENT', 'k fractional', (index) => index.search([1, 1], 1.5)],
    ['INVALID_ARGUMENT', 'shortlist negative', (index) => index.search([1, 1], 1, { shortlist: -1 })],
    ['DIMENSION_MISMATCH', 'vector length', (index) => index.add([3, 4], [1, 1, 1])],
    ['DIMENSION_MISMATCH', 'query length', (index) => index.search([1, 1, 1], 1)],
    ['NON_FINITE', 'NaN in vectors', (index) => index.add([3], [NaN, 1])],
    ['NON_FINITE', 'Infinity in vectors', (index) => index.add([3, 4], [1, 1, 1, Infinity])],
    ['NON_FINITE', 'NaN in query', (index) => index.search([1, NaN], 1)],
    ['NON_FINITE', 'float32 overflow', (index) => index.add([3], new Float64Array([1e300, 1]))],
    ['DUPLICATE_ID', 'id already present', (index) => index.add([3, 1], [1, 1, 1, 1])],
    ['DUPLICATE_ID', 'id twice in a batch', (index) => index.add([5, 5], [1, 1, 1, 1])],
    ['UNKNOWN_ID', 'remove unknown id', (index) => index.remove([1, 99])],
    ['DUPLICATE_ID', 'remove the same id twice', (index) => index.remove([1, 1])],
  ];

  test.each(cases)('%s: %s, leaving the index unchanged', (code, _name, action) => {
    const index = filled();
    const error = expectBanditError(sb, () => action(index), code);
    expect(error).toBeInstanceOf(Error);
    expect(error.message.length).toBeGreaterThan(0);
    expectUnchanged(index);
    index.dispose();
  });

  test('DISPOSED after dispose, for every method; dispose twice is harmless', () => {
    const index = filled();
    index.dispose();
    index.dispose();
    expect(index.disposed).toBe(true);
    for (const action of [() => index.add([3], [1, 1]), () => index.remove([1]), () => index.search([1, 1], 1),
      () => index.size, () => index.dim, () => index.has(1), () => index.stats()]) {
      expectBanditError(sb, action, 'DISPOSED');
    }
  });

  test('Symbol.dispose frees the object (what a `using` block calls)', () => {
    const index = filled();
    expect(typeof Symbol.dispose).toBe('symbol');
    index[Symbol.dispose]();
    expect(index.disposed).toBe(true);
    expectBanditError(sb, () => index.size, 'DISPOSED');
  });

  test('errors do not leak wasm memory: allocated bytes stay flat over many failing and disposed objects', () => {
    const cycle = () => {
      for (let i = 0; i < 300; i++) {
        const index = filled();
        expectBanditError(sb, () => index.add([1], [1, 1]), 'DUPLICATE_ID');
        expectBanditError(sb, () => index.search([1], 1), 'DIMENSION_MISMATCH');
        expectBanditError(sb, () => new sb.ExactIndex({ dim: 0 }), 'INVALID_ARGUMENT');
        index.search([1, 1], 2);
        index.dispose();
      }
    };
    cycle();
    const before = sb.memoryUsage().allocatedBytes;
    cycle();
    cycle();
    expect(sb.memoryUsage().allocatedBytes).toBe(before);
  });
});
