// Memory that returns (issue 57, point 3). Wasm memory never shrinks: a call that holds a whole copy
// of its input or its output on the heap, even for a moment, leaves the process that much larger
// for good. add() reads a large batch a mebibyte at a time, toBytes() streams the state into its
// Uint8Array and every class's fromBytes() reads a large state a mebibyte at a time, so none of them
// grows wasm memory by a copy of what it was given or gives back. The cases run in order in
// this file's own module (its own worker), each on an index larger than the heap's free room.
import { describe, expect, test } from 'vitest';
import init from '../../dist/index.js';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();
// The factor the tests allow between wasm memory and the bytes in use after an add. Memory grows in
// steps of a fifth of its size (Emscripten's geometric growth) and the add's own passing buffers
// (the id map's, the attributes', a piece of the batch) take a few bytes an item: measured 1.38x
// on one thread, 1.54x with threads, for the int8 batch below; a whole copy of the batch on the
// heap made it 4.3x.
const HIGH_WATER = 1.75;

// Bytes compared as bytes (the matchers' deep equality walks a large array slowly).
const sameBytes = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
const ids = (from, count) => Uint32Array.from({ length: count }, (_, i) => from + i);

describe('memory that returns', () => {
  // 160,000 x 128 floats (78 MiB) into int8 storage, about 140 bytes a row kept (codes, scale, id).
  const dim = 128;
  const n = 160_000;
  const vectors = gaussian(seededRandom(57), n * dim);
  let quantised;

  test('add() of a batch larger than the index keeps grows wasm memory by what the index keeps, not by the batch', () => {
    const start = sb.memoryUsage();
    quantised = new sb.ExactIndex({ dim, storage: 'int8' });
    quantised.add(ids(0, n), vectors);
    const { heapBytes, allocatedBytes } = sb.memoryUsage();
    expect(allocatedBytes).toBeLessThan(vectors.byteLength / 2);
    expect(heapBytes).toBeLessThanOrEqual(Math.max(HIGH_WATER * allocatedBytes, start.heapBytes));
    // The rows arrived whole, in order: each is its own best match.
    for (const row of [0, 8191, 8192, n - 1]) expect(quantised.search(vectors.subarray(row * dim, (row + 1) * dim), 1).ids[0]).toBe(row);
  });

  test('toBytes() of an index as large as the heap streams its state and leaves wasm memory as it was', () => {
    // f32 rows: the state is as large as what the index keeps, 80 MiB.
    const index = new sb.ExactIndex({ dim });
    index.add(ids(0, n), vectors);
    const before = sb.memoryUsage();
    expect(before.heapBytes).toBeLessThanOrEqual(HIGH_WATER * before.allocatedBytes);
    const bytes = index.toBytes();
    expect(bytes.length).toBeGreaterThan(vectors.byteLength);
    const after = sb.memoryUsage();
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(after.allocatedBytes).toBe(before.allocatedBytes);
    // The streamed state is the state: it restores to the same answers.
    index.dispose();
    quantised.dispose();
    const restored = sb.ExactIndex.fromBytes(bytes);
    const query = vectors.subarray(5 * dim, 6 * dim);
    expect(restored.search(query, 3).ids[0]).toBe(5);
    restored.dispose();
  });

  test('repeated add, remove, toBytes and fromBytes do not grow wasm memory', () => {
    const small = 20_000;
    const batch = vectors.subarray(0, small * dim);
    const round = () => {
      const index = new sb.HnswIndex({ dim, storage: 'int8', M: 8, efConstruction: 16, space: 'inner-product', seed: 3 });
      index.add(ids(0, small), batch);
      index.remove(ids(0, small / 2));
      index.add(ids(small, small / 2), batch.subarray(0, (small / 2) * dim));
      index.build();
      const copy = sb.HnswIndex.fromBytes(index.toBytes());
      index.dispose();
      const answer = copy.search(batch.subarray(0, dim), 1).ids[0];
      copy.dispose();
      return answer;
    };
    const first = round();
    const settled = sb.memoryUsage();
    for (let r = 0; r < 3; r++) expect(round()).toBe(first);
    const after = sb.memoryUsage();
    expect(after.heapBytes).toBe(settled.heapBytes);
    expect(after.allocatedBytes).toBeLessThanOrEqual(settled.allocatedBytes + 64 * 1024);
  });
});

// Inputs above a mebibyte take the streamed paths: the same checks, errors and answers as the
// copied ones, whatever piece the offending entry falls in.
describe('streamed inputs answer as copied ones', () => {
  const dim = 100;
  const n = 6_000;  // 2.4 MB of floats: three pieces
  const vectors = gaussian(seededRandom(58), n * dim);
  const all = ids(0, n);

  test('add() refuses a bad entry in a later piece by its position, and adds nothing', () => {
    const index = new sb.ExactIndex({ dim });
    const at = 5_000 * dim + 7;
    const bad = vectors.slice();
    bad[at] = NaN;
    expect(expectBanditError(sb, () => index.add(all, bad), 'NON_FINITE').message).toContain(`${at}`);
    bad[at] = 1e16;
    expect(expectBanditError(sb, () => index.add(all, bad), 'INVALID_ARGUMENT').message).toContain(`vectors[${at}]`);
    const repeated = all.slice();
    repeated[n - 1] = 0;
    expectBanditError(sb, () => index.add(repeated, vectors), 'DUPLICATE_ID');
    expectBanditError(sb, () => index.add(all, vectors.subarray(0, n * dim - 1)), 'DIMENSION_MISMATCH');
    expect(index.size).toBe(0);
    index.dispose();
  });

  test('a streamed add stores what a batch of copied pieces stores, and toBytes/fromBytes keep every bit', () => {
    const labelsOf = (from, count) => Uint32Array.from(ids(from, count), (id) => id % 3);
    const make = () => new sb.HnswIndex({ dim, M: 8, efConstruction: 32, seed: 4, space: 'inner-product' });
    const whole = make();
    whole.add(all, vectors, { labels: labelsOf(0, n) });
    const pieces = make();
    for (let from = 0; from < n; from += 2_000) pieces.add(ids(from, 2_000), vectors.subarray(from * dim, (from + 2_000) * dim), { labels: labelsOf(from, 2_000) });
    const exactWhole = new sb.ExactIndex({ dim, storage: 'int8' });
    exactWhole.add(all, vectors);
    const exactPieces = new sb.ExactIndex({ dim, storage: 'int8' });
    for (let from = 0; from < n; from += 2_000) exactPieces.add(ids(from, 2_000), vectors.subarray(from * dim, (from + 2_000) * dim));
    expect(sameBytes(exactWhole.toBytes(), exactPieces.toBytes())).toBe(true);
    exactWhole.dispose();
    exactPieces.dispose();
    whole.build();
    pieces.build();
    const saved = whole.toBytes();
    const restored = sb.HnswIndex.fromBytes(saved);
    expect(sameBytes(restored.toBytes(), saved)).toBe(true);
    for (let q = 0; q < 20; q++) {
      const query = vectors.subarray(q * 97 * dim, (q * 97 + 1) * dim);
      expect(restored.search(query, 10)).toEqual(whole.search(query, 10));
      expect(pieces.search(query, 10, { labels: [1] }).ids.every((id) => id % 3 === 1)).toBe(true);
    }
    // Damage anywhere in a streamed state is found (the checksum reads every piece).
    const flipped = saved.slice();
    flipped[saved.length - 100] ^= 1;
    expectBanditError(sb, () => sb.HnswIndex.fromBytes(flipped), 'CORRUPT_STATE');
    expectBanditError(sb, () => sb.HnswIndex.fromBytes(saved.subarray(0, saved.length - 1)), 'CORRUPT_STATE');
    expectBanditError(sb, () => sb.ExactIndex.fromBytes(saved), 'CORRUPT_STATE');
    for (const index of [whole, pieces, restored]) index.dispose();
  });
});

// A catalogue's add() and a policy's addArms() read features above a mebibyte from the caller's
// array a mebibyte at a time (as an index's add() reads its vectors): checked in a pass over the
// pieces, stored in another, and the index fed from the stored rows' float copy.
describe('a catalogue and a policy read a large batch of features in pieces', () => {
  const dim = 64;
  const n = 80_000;  // 41 MB of doubles
  const features = Float64Array.from(gaussian(seededRandom(60), n * dim));

  test("a catalogue's add() of a batch larger than the heap grows wasm memory by what the catalogue keeps, not by the batch", async () => {
    const own = await init({ threads: 1 });
    const catalogue = new own.Catalogue({ dim, index: { type: 'exact' } });
    catalogue.add(ids(0, n), features);
    const { heapBytes, allocatedBytes } = own.memoryUsage();
    // The catalogue keeps the rows (8 bytes a feature), their float copy and the index's (4 each):
    // a whole copy of the batch (8) with its float copy (4) beside them, as add() made before, would
    // take wasm memory above this bound; in pieces it is what is kept, in steps of a fifth.
    expect(allocatedBytes).toBeGreaterThan(1.5 * features.byteLength);
    expect(heapBytes).toBeLessThan(allocatedBytes + features.byteLength);
    expect(catalogue.size).toBe(n);
    catalogue.dispose();
  });

  test('a streamed add refuses what a copied one refuses, adds nothing then, and saves the same bits as a restored copy', () => {
    const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' } });
    const repeated = ids(0, n);
    repeated[n - 1] = 0;
    expectBanditError(sb, () => catalogue.add(repeated, features), 'DUPLICATE_ID');
    expectBanditError(sb, () => catalogue.add(ids(0, n), features.subarray(0, n * dim - 1)), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => catalogue.add(ids(0, n), features, { labels: new Uint32Array(n - 1) }), 'INVALID_ARGUMENT');
    expect(catalogue.size).toBe(0);
    catalogue.add(ids(0, n), features, { labels: Uint32Array.from(ids(0, n), (id) => id % 5) });
    expectBanditError(sb, () => catalogue.add(ids(n - 1, n), features), 'DUPLICATE_ID');
    expect(catalogue.size).toBe(n);
    const saved = catalogue.toBytes();
    const restored = sb.Catalogue.fromBytes(saved);
    expect(sameBytes(restored.toBytes(), saved)).toBe(true);
    restored.dispose();

    const policy = new sb.LinUCB({ dim, seed: 2 });
    expectBanditError(sb, () => policy.addArms(repeated, features), 'DUPLICATE_ID');
    expect(policy.armCount).toBe(0);
    policy.addArms(ids(0, n), features);
    expect(policy.armCount).toBe(n);
    policy.update(policy.select(), 1);
    const policyBytes = policy.toBytes();
    const restoredPolicy = sb.LinUCB.fromBytes(policyBytes);
    expect(sameBytes(restoredPolicy.toBytes(), policyBytes)).toBe(true);
    for (const object of [restoredPolicy, policy, catalogue]) object.dispose();
  });
});

// fromBytes() of every family reads a state above a mebibyte where it lies (one pass for the
// checksum, one to decode), through the persistence path the families share: the same bits, and
// damage in its last piece found. Each state is restored in a module of its own, whose heap held
// nothing before: a whole copy of the state on the heap beside the object made from it would take
// the bytes of both at once, so wasm memory would be at least the bytes in use after the restore plus
// the state's; read in pieces, it is the object's and a piece, in steps of a fifth of the memory
// (Emscripten's growth), where the object decodes its state in place: its arms, a CUCB's counts and
// means, a ridge model's matrices (once read into passing copies beside those the constructor made,
// as large as the input copy was). A catalogue's HnswIndex still reads its labels, levels and links
// into passing lists beside the graph it makes: there wasm memory after the restore says nothing
// about the input (docs/status.md).
describe('fromBytes() of a large state keeps no whole copy of it on the heap, in every family', () => {
  const random = seededRandom(59);
  const idsTo = (count) => ids(0, count);
  const features = (count, dim) => Float64Array.from(gaussian(random, count * dim));
  // [class, what it is, its maker in the shared module, whether it decodes in place]
  const families = [
    ['Catalogue', '120,000 arms of 4 features in an HnswIndex', () => {
      const catalogue = new sb.Catalogue({ dim: 4, index: { type: 'hnsw', M: 4, efConstruction: 8 } });
      catalogue.add(idsTo(120_000), features(120_000, 4));
      catalogue.build();
      return catalogue;
    }, false],
    ['SubElim', 'its own 80,000 arms of 8 features, lifted into an HnswIndex', () => {
      const policy = new sb.SubElim({ dim: 8, seed: 1, horizon: 1000, index: { type: 'hnsw', M: 4, efConstruction: 8 } });
      policy.addArms(idsTo(80_000), features(80_000, 8));
      for (let t = 0; t < 3; t++) policy.update(policy.select(), random());
      return policy;
    }, true],
    ['CUCB', 'a partition matroid of 600,000 arms', () => {
      const matroid = sb.Matroid.partition(Uint32Array.from({ length: 600_000 }, (_, i) => i % 5));
      const policy = new sb.CUCB({ matroid, horizon: 100, seed: 2 });
      matroid.dispose();
      const basis = policy.select();
      policy.update(basis, Float64Array.from(basis, () => random()));
      return policy;
    }, true],
    ['CombLinUCB', 'a model of 1,000 dimensions', () => {
      const policy = new sb.CombLinUCB({ dim: 1_000, k: 2, seed: 3 });
      const rows = policy.select(features(4, 1_000), { k: 2 });
      policy.update(rows, Float64Array.from(rows, () => random()));
      return policy;
    }, true],
  ];

  test.each(families)('%s.fromBytes() of %s', async (name, _what, make, inPlace) => {
    const original = make();
    const bytes = original.toBytes();
    original.dispose();
    expect(bytes.length).toBeGreaterThan(8 * 2 ** 20);
    const own = await init({ threads: 1 });
    const restored = own[name].fromBytes(bytes);
    if (inPlace) {
      const { heapBytes, allocatedBytes } = own.memoryUsage();
      // The object and a copy of its state would not fit in the module's first memory (32 MiB) and
      // its first growth step: the bound below is above both.
      expect(allocatedBytes + bytes.length).toBeGreaterThan(1.25 * 32 * 2 ** 20);
      expect(heapBytes).toBeLessThan(allocatedBytes + bytes.length);
    }
    // The state read in pieces is the state.
    expect(sameBytes(restored.toBytes(), bytes)).toBe(true);
    // Damage in the last piece is found, and the bytes of another class are refused.
    const flipped = bytes.slice();
    flipped[bytes.length - 9] ^= 1;
    expectBanditError(own, () => own[name].fromBytes(flipped), 'CORRUPT_STATE');
    expectBanditError(own, () => own.LinUCB.fromBytes(bytes), 'CORRUPT_STATE');
    restored.dispose();
  });
});
