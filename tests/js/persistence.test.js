// toBytes() / <Class>.fromBytes() through the package, for every index and policy class: a restored
// object continues exactly as the original, and damaged or foreign bytes throw CORRUPT_STATE while
// the module stays usable.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

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
  const classes = [
    ['ExactIndex', {}], ['HnswIndex', { M: 8 }], ['LshIndex', { bits: 4, tables: 4 }], ['BoundedMEIndex', {}],
    ['GreedyMipsIndex', {}], ['PcaTreeIndex', { depth: 3 }], ['AdaptiveIndex', { base: { type: 'hnsw', M: 4 } }],
  ];
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
  const classes = [['LinUCB', {}], ['LinTS', {}], ['LinearElim', {}], ['SubElim', { index: { type: 'hnsw', M: 4 } }], ['SubTS', {}]];
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
  test.each(['CUCB', 'FasterCUCB', 'CTS'])('%s: the restored policy plays the same bases, matroid included', (name) => {
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
  const classes = [['C2UCB', {}], ['PC2UCB', {}], ['CombLinUCB', {}], ['CombLinTS', {}], ['CombTS', { randomization: 'arm' }], ['GreedyCLS', {}]];
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

test('objects made with journal: false work the same and refuse toBytes with INVALID_ARGUMENT', () => {
  const quiet = new sb.SubTS({ dim: 2, seed: 1, journal: false });
  const recorded = new sb.SubTS({ dim: 2, seed: 1 });
  for (const policy of [quiet, recorded]) policy.addArms([1, 2, 3], [1, 0, 0, 1, 0.5, 0.5]);
  for (let t = 0; t < 10; t++) {
    const arm = quiet.select();
    expect(recorded.select()).toBe(arm);
    quiet.update(arm, 1);
    recorded.update(arm, 1);
  }
  expectBanditError(sb, () => quiet.toBytes(), 'INVALID_ARGUMENT');
  expect(recorded.toBytes().length).toBeGreaterThan(0);
  const index = new sb.HnswIndex({ dim: 2, journal: false });
  index.add([1], [1, 1]);
  expectBanditError(sb, () => index.toBytes(), 'INVALID_ARGUMENT');
  for (const object of [quiet, recorded, index]) object.dispose();
});
