// setFeatures (issue 53 point 1, API.md v3): an item's embedding changes in place, in every index type
// and in a catalogue; its labels and values stay; the index answers with the new vectors (a graph
// scans a changed item until a later search's slice links it again); every user of a catalogue sees a
// changed arm as a new one at its next call (the elimination users take back an arm they had
// eliminated); snapshots keep the change; bad input is a coded error that changes nothing and is
// refused before anything is copied into the module's memory.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 8;
const items = 2000;

const dot = (a, b) => a.reduce((sum, value, j) => sum + value * b[j], 0);

function unit(random) {
  const x = gaussian(random, dim);
  const norm = Math.hypot(...x);
  return x.map((value) => value / norm);
}

describe.each(registeredClasses(sb, 'index', { adaptive: { copies: 2 } }))('%s.setFeatures', (name, options) => {
  test('answers with the new vectors, labels kept, before and after build()', () => {
    const random = seededRandom(3);
    const ids = Uint32Array.from({ length: items }, (_, i) => 2 * i + 1);
    const vectors = gaussian(random, items * dim);
    const labels = Array.from({ length: items }, (_, i) => i % 4);
    const index = new sb[name]({ dim, seed: 2, ...options });
    index.add(ids, vectors, { labels });
    index.build();
    // Every tenth item changes; every hundredth becomes 20 times a direction of its own.
    const changed = [];
    const rows = [];
    const dominant = [];
    for (let i = 0; i < items; i += 10) {
      let x = gaussian(random, dim);
      if (i % 100 === 0) {
        const direction = unit(random);
        dominant.push([ids[i], direction, labels[i]]);
        x = direction.map((value) => 20 * value);
      }
      changed.push(ids[i]);
      rows.push(...x);
      vectors.set(x, i * dim);
    }
    const sizeBefore = index.size;
    index.setFeatures(changed, rows);
    expect(index.size).toBe(sizeBefore);
    for (let pass = 0; pass < 2; pass++) {
      for (const [id, direction, label] of dominant) {
        const { ids: found, scores } = index.search(direction, 3);
        expect(found[0]).toBe(id);
        // Every score is the inner product with the item's current vector.
        for (let r = 0; r < found.length; r++) {
          const i = (found[r] - 1) / 2;
          expect(scores[r]).toBeCloseTo(dot(direction, vectors.subarray(i * dim, (i + 1) * dim)), 3);
        }
        expect(index.search(direction, 1, { labels: [label] }).ids[0]).toBe(id);
        expect(index.search(direction, 1, { labels: [(label + 1) % 4] }).ids[0]).not.toBe(id);
      }
      index.build();
    }
    const restored = sb[name].fromBytes(index.toBytes());
    expect(restored.search(dominant[0][1], 5)).toEqual(index.search(dominant[0][1], 5));
    restored.dispose();
    index.dispose();
  });
});

describe('hostile setFeatures: coded errors, nothing changed, nothing copied first', () => {
  const random = seededRandom(8);
  const ids = Uint32Array.from({ length: 200 }, (_, i) => i + 1);
  const vectors = gaussian(random, 200 * dim);
  const index = new sb.HnswIndex({ dim, seed: 1 });
  index.add(ids, vectors);
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  catalogue.add(ids, vectors);
  const indexBytes = index.toBytes();
  const catalogueBytes = catalogue.toBytes();
  const row = Array.from({ length: dim }, () => 0.5);
  const cases = [
    ['an unknown id', 'UNKNOWN_ID', (target) => target.setFeatures([1, 999], [...row, ...row])],
    ['an id twice', 'DUPLICATE_ID', (target) => target.setFeatures([1, 1], [...row, ...row])],
    ['features of another length', 'DIMENSION_MISMATCH', (target) => target.setFeatures([1, 2], row)],
    ['a NaN entry', 'NON_FINITE', (target) => target.setFeatures([1], row.map((v, j) => (j === 3 ? NaN : v)))],
    ['an entry beyond 1e15', 'INVALID_ARGUMENT', (target) => target.setFeatures([1], row.map((v, j) => (j === 3 ? 1e16 : v)))],
    ['a string for an id', 'INVALID_ARGUMENT', (target) => target.setFeatures(['1'], row)],
    ['no features', 'INVALID_ARGUMENT', (target) => target.setFeatures([1])],
  ];
  test.each(cases)('%s (index and catalogue)', (_label, code, change) => {
    expectBanditError(sb, () => change(index), code);
    expectBanditError(sb, () => change(catalogue), code);
    expect(index.toBytes()).toEqual(indexBytes);
    expect(catalogue.toBytes()).toEqual(catalogueBytes);
  });

  test('a batch of the wrong length is refused before the heap grows', () => {
    const before = sb.memoryUsage();
    // 10^7 entries for one id: refused by its length, never copied into the module's memory.
    expectBanditError(sb, () => catalogue.setFeatures([1], new Float64Array(10_000_000)), 'DIMENSION_MISMATCH');
    const after = sb.memoryUsage();
    expect(after.allocatedBytes).toBe(before.allocatedBytes);
    expect(after.heapBytes).toBe(before.heapBytes);
  });
});

// The worst arm of a shop's catalogue becomes by far the best (a new season's photo, say): every user
// type finds it, a user saved before the change finds it over the catalogue saved after it.
describe.each(registeredClasses(sb, 'linear-policy'))('%s over a catalogue whose arm changed', (name) => {
  test('finds the arm that became the best, also restored from before the change', () => {
    const random = seededRandom(13);
    const arms = 300;
    const taste = unit(random);
    const ids = Uint32Array.from({ length: arms }, (_, i) => i + 1);
    const features = Float64Array.from(gaussian(random, arms * dim), (value) => value / Math.sqrt(dim));
    const mean = (id) => dot(taste, features.subarray((id - 1) * dim, id * dim));
    let worst = 1;
    for (const id of ids) if (mean(id) < mean(worst)) worst = id;
    const catalogue = new sb.Catalogue({ dim, seed: 4 });
    catalogue.add(ids, features);
    const user = new sb[name]({ catalogue, seed: 5, horizon: 3000 });
    const play = (policy, steps) => {
      let chosen = 0;
      for (let t = 0; t < steps; t++) {
        const arm = policy.select();
        if (arm === worst) chosen++;
        policy.update(arm, mean(arm) + 0.1 * (random() - 0.5));
      }
      return chosen;
    };
    play(user, 500);
    const saved = user.toBytes();
    const better = taste.map((value) => 1.5 * value);
    catalogue.setFeatures([worst], better);
    features.set(better, (worst - 1) * dim);
    const catalogueAfter = catalogue.toBytes();
    expect(play(user, 300)).toBeGreaterThanOrEqual(150);
    const restoredCatalogue = sb.Catalogue.fromBytes(catalogueAfter);
    expect(restoredCatalogue.toBytes()).toEqual(catalogueAfter);
    const restored = sb[name].fromBytes(saved, { catalogue: restoredCatalogue });
    expect(play(restored, 300)).toBeGreaterThanOrEqual(150);
    for (const object of [restored, restoredCatalogue, user, catalogue]) object.dispose();
  });
});
