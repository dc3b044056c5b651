import { describe, expect, test } from 'vitest';
import { bruteForce, expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

// Runs an index beside the brute-force oracle through adds and removals; returns mean precision@k.
function checkAgainstOracle(index, dim, { rounds = 6, batch = 120, k = 5, mustEqualExact = false, seed = 1 } = {}) {
  const random = seededRandom(seed);
  const items = new Map();
  const removedAll = new Set();
  let nextId = 11;
  let precision = 0;
  let searches = 0;
  for (let round = 0; round < rounds; round++) {
    const ids = Uint32Array.from({ length: batch }, () => nextId++ * 5);
    const vectors = gaussian(random, batch * dim);
    index.add(ids, vectors);
    ids.forEach((id, i) => items.set(id, vectors.subarray(i * dim, (i + 1) * dim)));
    const removed = [...items.keys()].filter(() => random() < 0.3);
    index.remove(removed);
    removed.forEach((id) => { items.delete(id); removedAll.add(id); });
    expect(index.size).toBe(items.size);
    for (let q = 0; q < 3; q++) {
      const query = gaussian(random, dim);
      const { ids: found, scores } = index.search(query, k);
      const expected = bruteForce(items, query, k);
      expect(found.length).toBe(Math.min(k, items.size));
      found.forEach((id, i) => {
        expect(items.has(id)).toBe(true);
        expect(removedAll.has(id)).toBe(false);
        const vector = items.get(id);
        let exact = 0;
        for (let j = 0; j < dim; j++) exact += vector[j] * query[j];
        expect(scores[i]).toBeCloseTo(exact, 3);
        if (i > 0) expect(scores[i - 1]).toBeGreaterThanOrEqual(scores[i]);
      });
      if (mustEqualExact) expect(Array.from(found)).toEqual(expected.map(([, id]) => id));
      const truth = new Set(expected.map(([, id]) => id));
      precision += Array.from(found).filter((id) => truth.has(id)).length / expected.length;
      searches++;
    }
  }
  return precision / searches;
}

describe('BoundedMEIndex, GreedyMipsIndex, PcaTreeIndex', () => {
  test('results are live, sorted and exactly scored through adds and removals', () => {
    for (const dim of [3, 40]) {
      for (const [Class, options] of [[sb.BoundedMEIndex, { epsilon: 0.3, delta: 0.2, seed: 2 }],
        [sb.GreedyMipsIndex, { budgetFraction: 0.2 }], [sb.GreedyMipsIndex, { budget: 30 }],
        [sb.PcaTreeIndex, { depth: 3, seed: 1 }], [sb.PcaTreeIndex, { depth: 12 }]]) {
        const index = new Class({ dim, ...options });
        checkAgainstOracle(index, dim, { seed: dim });
        index.dispose();
      }
    }
  });

  test('full budget, depth 0 and a tiny epsilon equal the exact scan', () => {
    for (const index of [new sb.GreedyMipsIndex({ dim: 20, budgetFraction: 1 }), new sb.PcaTreeIndex({ dim: 20, depth: 0 }),
      new sb.BoundedMEIndex({ dim: 20, epsilon: 1e-4, delta: 0.1 })]) {
      expect(checkAgainstOracle(index, 20, { mustEqualExact: true, k: 10, seed: 5 })).toBeCloseTo(1, 9);
      index.dispose();
    }
  });

  test('BoundedME reads a fraction of the coordinates at large epsilon and reports its bound', () => {
    const dim = 2048;
    const n = 800;
    const random = seededRandom(3);
    const index = new sb.BoundedMEIndex({ dim, epsilon: 0.9, delta: 0.2, seed: 4 });
    index.add(Uint32Array.from({ length: n }, (_, i) => i), gaussian(random, n * dim));
    index.search(gaussian(random, dim), 5);
    const stats = index.stats();
    expect(stats.type).toBe('bounded-me');
    expect(stats.pulls).toBeLessThan(0.5 * n * dim);
    expect(stats.innerProducts).toBeLessThan(0.5 * n + 5 + 1);
    expect(stats.suboptimalityBound).toBeGreaterThan(0);
    expect(stats.rewardHigh).toBeGreaterThan(stats.rewardLow);
    index.dispose();
  });

  test('the same seed gives the same results', () => {
    const random = seededRandom(8);
    const vectors = gaussian(random, 300 * 64);
    const ids = Uint32Array.from({ length: 300 }, (_, i) => i);
    const query = gaussian(random, 64);
    const run = () => {
      const index = new sb.BoundedMEIndex({ dim: 64, epsilon: 0.5, delta: 0.3, seed: 9 });
      index.add(ids, vectors);
      const result = Array.from(index.search(query, 3).ids);
      index.dispose();
      return result;
    };
    expect(run()).toEqual(run());
  });

  test('invalid options throw INVALID_ARGUMENT', () => {
    for (const [Class, options] of [[sb.BoundedMEIndex, { epsilon: 0 }], [sb.BoundedMEIndex, { delta: 1 }],
      [sb.GreedyMipsIndex, { budget: 0 }], [sb.GreedyMipsIndex, { budgetFraction: 2 }],
      [sb.GreedyMipsIndex, { budget: 3, budgetFraction: 0.5 }], [sb.PcaTreeIndex, { depth: 21 }], [sb.PcaTreeIndex, { depth: -1 }]]) {
      expectBanditError(sb, () => new Class({ dim: 4, ...options }), 'INVALID_ARGUMENT');
    }
  });
});

describe('boundedME (MAB-BP solver)', () => {
  // Liu et al.'s (arXiv:1812.06360) setting: arm a's list has round(p_a N) ones, p_a uniform in [0,
  // 1].
  function bernoulliLists(random, K, N) {
    const rewards = new Float64Array(K * N);
    const means = new Float64Array(K);
    for (let a = 0; a < K; a++) {
      const ones = Math.round(random() * N);
      means[a] = ones / N;
      rewards.fill(1, a * N, a * N + ones);
    }
    return { rewards, means };
  }

  test('the (1 - delta)-percentile suboptimality over 20 seeds is below epsilon', () => {
    const K = 100;
    const N = 2000;
    const delta = 0.1;
    for (const epsilon of [0.1, 0.3]) {
      const suboptimality = [];
      for (let seed = 1; seed <= 20; seed++) {
        const { rewards, means } = bernoulliLists(seededRandom(seed), K, N);
        const { arms, pulls } = sb.boundedME(rewards, K, N, { epsilon, delta, seed, order: 'independent' });
        expect(arms).toBeInstanceOf(Uint32Array);
        expect(arms.length).toBe(1);
        expect(pulls).toBeLessThanOrEqual(K * N);
        suboptimality.push(Math.max(...means) - means[arms[0]]);
      }
      suboptimality.sort((a, b) => a - b);
      expect(suboptimality[Math.ceil((1 - delta) * 20) - 1]).toBeLessThanOrEqual(epsilon);
    }
  });

  test('top-k on known lists, in every draw order', () => {
    const K = 8;
    const N = 30;
    const rewards = new Float64Array(K * N);
    for (let a = 0; a < K; a++) rewards.fill(a / 10, a * N, (a + 1) * N);
    for (const order of ['shared', 'independent', 'given']) {
      expect(Array.from(sb.boundedME(rewards, K, N, { k: 3, order, epsilon: 0.5, delta: 0.5 }).arms)).toEqual([7, 6, 5]);
    }
  });

  test('bad input throws', () => {
    const rewards = new Float64Array(6).fill(0.5);
    expectBanditError(sb, () => sb.boundedME(rewards, 2, 4), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => sb.boundedME(rewards, 2, 3, { epsilon: 1 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.boundedME(rewards, 2, 3, { k: 3 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.boundedME(rewards, 2, 3, { high: 0.4 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.boundedME(rewards, 2, 3, { order: 'sorted' }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.boundedME(rewards, 0, 3), 'INVALID_ARGUMENT');
    expect(sb.boundedME(rewards, 2, 3, { low: 0, high: 2 }).arms.length).toBe(1);
  });
});
