// toBytes() / <Class>.fromBytes() through the package, for every index and policy class: a restored
// object continues exactly as the original, and damaged or foreign bytes throw CORRUPT_STATE while
// the module stays usable.
import { describe, expect, test } from 'vitest';
import { crc32, expectBanditError, fastestMs, gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 6;

function expectCorruptionRejected(Class, Other, bytes) {
  const flipped = bytes.slice();
  flipped[Math.floor(bytes.length / 2)] ^= 1;
  expectBanditError(sb, () => Class.fromBytes(flipped), 'CORRUPT_STATE');
  expectBanditError(sb, () => Class.fromBytes(bytes.subarray(0, bytes.length - 1)), 'CORRUPT_STATE');
  expectBanditError(sb, () => Class.fromBytes(new Uint8Array(0)), 'CORRUPT_STATE');
  expectBanditError(sb, () => Other.fromBytes(bytes), 'CORRUPT_STATE');
  expectBanditError(sb, () => Class.fromBytes([1, 2, 3]), 'INVALID_ARGUMENT');
}

describe('MIPS indexes', () => {
  // Every registered type, and the 8-bit storage of the types whose option table offers it.
  const types = registeredClasses(sb, 'index', {
    hnsw: { M: 8 }, lsh: { bits: 4, tables: 4 }, 'pca-tree': { depth: 3 }, adaptive: { base: { type: 'hnsw', M: 4 } },
  });
  const offersInt8 = (name) => sb.optionTable('index', sb[name].type).some((option) => option.name === 'storage' && option.choices.includes('int8'));
  const classes = [...types, ...types.filter(([name]) => offersInt8(name)).map(([name, options]) => [name, { ...options, storage: 'int8' }])];
  const populate = (index, random, first, count) => {
    index.add(Uint32Array.from({ length: count }, (_, i) => first + i), gaussian(random, count * dim));
  };

  test.each(classes)('%s: the restored index gives the same answers after the same operations', (name, options) => {
    const Class = sb[name];
    const random = seededRandom(3);
    const original = new Class({ dim, seed: 4, ...options });
    populate(original, random, 0, 200);
    original.remove([5, 6, 7]);
    original.search(gaussian(random, dim), 3);
    const bytes = original.toBytes();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('SBST');
    const restored = Class.fromBytes(bytes);
    expect(restored).toBeInstanceOf(Class);
    expect(restored.size).toBe(original.size);
    expect(restored.has(5)).toBe(false);
    const a = seededRandom(9);
    const b = seededRandom(9);
    for (let round = 0; round < 4; round++) {
      populate(original, a, 1000 + 10 * round, 10);
      populate(restored, b, 1000 + 10 * round, 10);
      original.remove([20 + round]);
      restored.remove([20 + round]);
      const query = gaussian(a, dim);
      gaussian(b, dim);
      const x = original.search(query, 7);
      const y = restored.search(query, 7);
      expect(Array.from(y.ids)).toEqual(Array.from(x.ids));
      expect(Array.from(y.scores)).toEqual(Array.from(x.scores));
    }
    expect(restored.stats()).toEqual(original.stats());
    expect(Array.from(restored.toBytes())).toEqual(Array.from(original.toBytes()));
    expectCorruptionRejected(Class, name === 'ExactIndex' ? sb.HnswIndex : sb.ExactIndex, bytes);
    expect(original.search(gaussian(seededRandom(1), dim), 3).ids.length).toBe(3);
    original.dispose();
    restored.dispose();
    expectBanditError(sb, () => original.toBytes(), 'DISPOSED');
  });
});

describe('linear policies', () => {
  const classes = registeredClasses(sb, 'linear-policy', { 'sub-elim': { index: { type: 'hnsw', M: 4 } } });
  test.each(classes)('%s: the restored policy makes the same selections', (name, options) => {
    const Class = sb[name];
    const random = seededRandom(5);
    const features = (count) => Float64Array.from(gaussian(random, count * dim));
    const original = new Class({ dim, seed: 2, horizon: 300, beta: 1, ...options });
    original.addArms(Uint32Array.from({ length: 50 }, (_, i) => i), features(50));
    for (let t = 0; t < 40; t++) original.update(original.select(), random() - 0.5);
    const bytes = original.toBytes();
    const restored = Class.fromBytes(bytes);
    expect(restored.armCount).toBe(original.armCount);
    for (let t = 0; t < 60; t++) {
      const arm = original.select();
      expect(restored.select()).toBe(arm);
      const reward = random() - 0.5;
      original.update(arm, reward);
      restored.update(arm, reward);
      if (t % 20 === 0) {
        const ids = [100 + t, 101 + t];
        const x = features(2);
        original.addArms(ids, x);
        restored.addArms(ids, x);
      }
    }
    expect(Array.from(restored.theta())).toEqual(Array.from(original.theta()));
    expect(Array.from(restored.toBytes())).toEqual(Array.from(original.toBytes()));
    expectCorruptionRejected(Class, name === 'LinUCB' ? sb.LinTS : sb.LinUCB, bytes);
    original.dispose();
    restored.dispose();
  });
});

describe('matroid semi-bandit policies', () => {
  test.each(registeredClasses(sb, 'semi-bandit-policy').map(([name]) => name))('%s: the restored policy plays the same bases, matroid included', (name) => {
    const Class = sb[name];
    const random = seededRandom(6);
    const matroid = sb.Matroid.partition(Uint32Array.from({ length: 40 }, (_, i) => i % 5));
    const original = new Class({ matroid, horizon: 500, seed: 3 });
    matroid.dispose();
    const rewardsOf = (basis) => Float64Array.from(basis, (arm) => (random() < (arm % 7) / 7 ? 1 : 0));
    for (let t = 0; t < 30; t++) {
      const basis = original.select();
      original.update(basis, rewardsOf(basis));
    }
    const bytes = original.toBytes();
    const restored = Class.fromBytes(bytes);
    expect(restored.rank).toBe(5);
    for (let t = 0; t < 30; t++) {
      const basis = original.select();
      expect(Array.from(restored.select())).toEqual(Array.from(basis));
      const rewards = rewardsOf(basis);
      original.update(basis, rewards);
      restored.update(basis, rewards);
    }
    expect(restored.stats()).toEqual(original.stats());
    expectCorruptionRejected(Class, name === 'CUCB' ? sb.CTS : sb.CUCB, bytes);
    original.dispose();
    restored.dispose();
  });
});

describe('combinatorial linear policies', () => {
  const classes = registeredClasses(sb, 'cls-policy', { 'comb-ts': { randomization: 'arm' } });
  test.each(classes)('%s: the restored policy selects the same rows, also mid-selection', (name, options) => {
    const Class = sb[name];
    const random = seededRandom(7);
    const features = () => Float64Array.from(gaussian(random, 10 * dim));
    const original = new Class({ dim, k: 3, seed: 4, ...options });
    for (let t = 0; t < 10; t++) {
      const rows = original.select(features(), { k: 3 });
      original.update(rows, Float64Array.from(rows, () => random()));
    }
    const pending = original.select(features(), { k: 3 });
    const bytes = original.toBytes();
    const restored = Class.fromBytes(bytes);
    const pendingRewards = Float64Array.from(pending, () => random());
    original.update(pending, pendingRewards);
    restored.update(pending, pendingRewards);
    for (let t = 0; t < 10; t++) {
      const x = features();
      const rows = original.select(x, { k: 3 });
      expect(Array.from(restored.select(x, { k: 3 }))).toEqual(Array.from(rows));
      const rewards = Float64Array.from(rows, () => random());
      original.update(rows, rewards);
      restored.update(rows, rewards);
    }
    expect(Array.from(restored.theta())).toEqual(Array.from(original.theta()));
    expectCorruptionRejected(Class, name === 'C2UCB' ? sb.PC2UCB : sb.C2UCB, bytes);
    original.dispose();
    restored.dispose();
  });
});

// The envelope (docs/state-format.md): 'SBST', the format version (u16), the library version that
// wrote it and the type (u32 length + bytes each), the payload length (u64), the payload, a CRC-32
// of everything before it.
const formatVersion = 5;

// `bytes` with its format version replaced and a valid checksum: only the version can be at fault.
function withFormat(bytes, format) {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  view.setUint16(4, format, true);
  view.setUint32(copy.length - 4, crc32(copy.subarray(0, copy.length - 4)), true);
  return copy;
}

describe('snapshots', () => {
  const filled = () => {
    const index = new sb.HnswIndex({ dim, seed: 1 });
    index.add(Uint32Array.from({ length: 300 }, (_, i) => i), gaussian(seededRandom(11), 300 * dim));
    return index;
  };

  test('toBytes() keeps no copy of the state on the wasm heap once it returns', () => {
    const index = filled();
    const before = sb.memoryUsage().allocatedBytes;
    const bytes = index.toBytes();
    expect(bytes.length).toBeGreaterThan(300 * dim * 4);
    expect(sb.memoryUsage().allocatedBytes - before).toBeLessThan(1024);
    index.dispose();
  });

  test('every state carries the format version and the library version that wrote it', () => {
    const index = filled();
    const bytes = index.toBytes();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint16(4, true)).toBe(formatVersion);
    const libraryLength = view.getUint32(6, true);
    expect(new TextDecoder().decode(bytes.subarray(10, 10 + libraryLength))).toBe(sb.version);
    expect(crc32(bytes.subarray(0, bytes.length - 4))).toBe(view.getUint32(bytes.length - 4, true));
    index.dispose();
  });

  test('a state of another format version is refused with CORRUPT_STATE naming both versions', () => {
    const index = filled();
    const bytes = index.toBytes();
    // Format 1 (0.1.x, journals) had no library version field: the message says 0.1.x.
    const older = expectBanditError(sb, () => sb.HnswIndex.fromBytes(withFormat(bytes, 1)), 'CORRUPT_STATE');
    expect(older.message).toContain('format version 1 (written by sublinear-bandits 0.1.x)');
    expect(older.message).toContain(`this is sublinear-bandits ${sb.version}, which reads format version ${formatVersion}`);
    const newer = expectBanditError(sb, () => sb.HnswIndex.fromBytes(withFormat(bytes, formatVersion + 1)), 'CORRUPT_STATE');
    expect(newer.message).toContain(`format version ${formatVersion + 1} (written by sublinear-bandits ${sb.version})`);
    expect(newer.message).toContain(`which reads format version ${formatVersion}`);
    expect(Array.from(sb.HnswIndex.fromBytes(withFormat(bytes, formatVersion)).search(gaussian(seededRandom(2), dim), 5).ids))
      .toEqual(Array.from(index.search(gaussian(seededRandom(2), dim), 5).ids));
    index.dispose();
  });

  test('the saved state does not grow with calls that leave the structure as it is', () => {
    const index = filled();
    const before = index.toBytes().length;
    const random = seededRandom(12);
    for (let q = 0; q < 2000; q++) index.search(gaussian(random, dim), 5);
    expect(index.toBytes().length).toBe(before);
    index.dispose();
  });

  // A snapshot is decoded, not replayed: restoring skips the graph construction.
  test('restoring an HnswIndex is much faster than building it', () => {
    const count = 5000;
    const vectors = gaussian(seededRandom(13), count * 16);
    const started = performance.now();
    const index = new sb.HnswIndex({ dim: 16, seed: 1 });
    index.add(Uint32Array.from({ length: count }, (_, i) => i), vectors);
    expect(index.build()).toBe(0);
    const built = performance.now() - started;
    const bytes = index.toBytes();
    const loaded = fastestMs(() => sb.HnswIndex.fromBytes(bytes).dispose());
    expect(loaded).toBeLessThan(built / 5);
    index.dispose();
  });
});
