// searchBatch (issue 57, point 2): n queries in one call, on the module's threads where the index's
// searches only read it. The oracle is search() itself: the batch answers each query as n calls of
// search() in order answer it, on an identical index (the same state, restored from its bytes), with
// the same work counted, on the threaded module and on the single-thread one.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

const dim = 12;
const n = 2000;
const queryCount = 30;

// Every registered index type, as a class name and options (perType, else {}); HNSW also as an
// incremental graph with items waiting (its searches build, so the batch runs in order) and with int8
// storage, beside the finished graph (its batch runs on the threads).
const hnsw = { M: 8, efConstruction: 60, efSearch: 16 };
const types = [
  ...registeredClasses(await loadModule(), 'index', {
    hnsw: { ...hnsw, build: 'immediate' },
    lsh: { bits: 6, tables: 8 },
    'bounded-me': { epsilon: 0.1, delta: 0.1 },
    greedy: { budget: 300 },
    'pca-tree': { depth: 3 },
    adaptive: { base: { type: 'hnsw', M: 8, efConstruction: 40 }, copies: 2 },
  }),
  ['HnswIndex', { ...hnsw, buildCredit: 0.5 }],
  ['HnswIndex', { ...hnsw, build: 'immediate', storage: 'int8' }],
];

const random = seededRandom(57);
const items = gaussian(random, n * dim);
const ids = Uint32Array.from({ length: n }, (_, i) => i * 3 + 1);
const labels = Uint32Array.from({ length: n }, (_, i) => i % 5);
const price = Float64Array.from({ length: n }, (_, i) => (i * 7) % 100);
const queries = gaussian(random, queryCount * dim);

function made(sb, Class, options) {
  const index = new sb[Class]({ dim, seed: 9, ...options });
  index.add(ids, items, { labels, values: { price } });
  return index;
}

// The batch's answers as one { ids, scores } per query.
function perQuery({ ids: found, scores, counts, stride }) {
  return Array.from(counts, (count, q) => ({
    ids: Array.from(found.subarray(q * stride, q * stride + count)),
    scores: Array.from(scores.subarray(q * stride, q * stride + count)),
  }));
}

const filters = [
  undefined,
  { shortlist: 30 },
  { labels: [1, 3], exclude: Array.from(ids.subarray(0, 200)) },
  { where: { price: [10, 30] }, noLabels: [2] },
];

for (const threads of [undefined, 1]) {
  describe(`searchBatch equals search() in order (${threads === 1 ? 'single-thread module' : 'threaded module'})`, () => {
    const module = threads === 1 ? loadModule({ threads: 1 }) : loadModule();
    for (const [Class, options] of types) {
      test(`${Class} ${JSON.stringify(options)}`, async () => {
        const sb = await module;
        for (const filter of filters) {
          const batched = made(sb, Class, options);
          // The same state, whatever the type: its next searches are the same.
          const single = sb[Class].fromBytes(batched.toBytes());
          const batch = batched.searchBatch(queries, 10, filter);
          const oneByOne = [];
          for (let q = 0; q < queryCount; q++) {
            const { ids: found, scores } = single.search(queries.subarray(q * dim, (q + 1) * dim), 10, filter);
            oneByOne.push({ ids: Array.from(found), scores: Array.from(scores) });
          }
          const what = `${Class} ${JSON.stringify(filter)}`;
          expect(batch.stride, what).toBe(10);
          expect(perQuery(batch), what).toEqual(oneByOne);
          // Unused slots are id 0 and NaN.
          for (let q = 0; q < queryCount; q++) {
            for (let slot = batch.counts[q]; slot < batch.stride; slot++) {
              expect(batch.ids[q * batch.stride + slot]).toBe(0);
              expect(batch.scores[q * batch.stride + slot]).toBeNaN();
            }
          }
          // The same work counted, and the same state after: the two indexes continue alike.
          expect(batched.stats(), what).toEqual(single.stats());
          expect(Buffer.from(batched.toBytes()).equals(single.toBytes()), what).toBe(true);
          batched.dispose();
          single.dispose();
        }
      }, 120_000);
    }
  });
}

describe('searchBatch', () => {
  test('takes a flat array or an array of vectors, Float64Array and plain numbers alike', async () => {
    const sb = await loadModule();
    const index = made(sb, 'ExactIndex', {});
    const flat = index.searchBatch(queries, 7);
    const rows = Array.from({ length: queryCount }, (_, q) => queries.subarray(q * dim, (q + 1) * dim));
    expect(index.searchBatch(rows, 7)).toEqual(flat);
    expect(index.searchBatch(rows.map((row) => Array.from(row)), 7)).toEqual(flat);
    expect(index.searchBatch(Float64Array.from(queries), 7)).toEqual(flat);
    // No queries: nothing to answer.
    expect(index.searchBatch(new Float32Array(0), 7)).toEqual({ ids: new Uint32Array(0), scores: new Float32Array(0), counts: new Uint32Array(0), stride: 7 });
    // k beyond the size: stride min(k, size).
    const small = new sb.ExactIndex({ dim: 2 });
    small.add([5, 6, 7], [1, 0, 0, 1, 1, 1]);
    expect(small.searchBatch([[1, 0], [0, 2]], 10)).toEqual({
      ids: Uint32Array.from([5, 7, 6, 6, 7, 5]), scores: Float32Array.from([1, 1, 0, 2, 2, 0]), counts: Uint32Array.from([3, 3]), stride: 3,
    });
    small.dispose();
    index.dispose();
  });

  test('bad input is a coded error before anything is allocated, and changes nothing', async () => {
    const sb = await loadModule();
    const index = made(sb, 'HnswIndex', { M: 8, efConstruction: 40, build: 'immediate' });
    const bytes = index.toBytes();
    const stats = index.stats();
    const heap = sb.memoryUsage().allocatedBytes;
    const nan = queries.slice();
    nan[3 * dim + 2] = NaN;
    expectBanditError(sb, () => index.searchBatch(queries.subarray(1), 10), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => index.searchBatch([queries.subarray(0, dim), queries.subarray(0, dim - 1)], 10), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => index.searchBatch([queries.subarray(0, dim + 1)], 10), 'DIMENSION_MISMATCH');
    expect(expectBanditError(sb, () => index.searchBatch(nan, 10), 'NON_FINITE').message).toContain(`queries[${3 * dim + 2}]`);
    expectBanditError(sb, () => index.searchBatch(queries, 0), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.searchBatch(queries, 1.5), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.searchBatch(queries, 10, { shortlist: -1 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.searchBatch(queries, 10, { labels: [99] }), 'EMPTY');
    expectBanditError(sb, () => index.searchBatch(queries, 10, { nope: 1 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => index.searchBatch(queries, 10, {}, 1), 'INVALID_ARGUMENT');
    // Huge n: 2^24 + 1 queries claimed by a sparse array, and more answer slots than 2^28.
    expect(expectBanditError(sb, () => index.searchBatch(new Array(2 ** 24 + 1), 10), 'INVALID_ARGUMENT').message).toContain('at most');
    expect(expectBanditError(sb, () => index.searchBatch(new Float32Array(dim * 150_000), 3000), 'INVALID_ARGUMENT').message).toContain('answer');
    expect(sb.memoryUsage().allocatedBytes).toBe(heap);
    expect(index.stats()).toEqual(stats);
    expect(Buffer.from(index.toBytes()).equals(bytes)).toBe(true);
    index.dispose();
    expectBanditError(sb, () => index.searchBatch(queries, 10), 'DISPOSED');
  });
});
