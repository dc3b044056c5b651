import { describe, expect, test } from 'vitest';
import { expectBanditError, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

// Brute-force definitions, independent of the library.
function isForest(numVertices, edges, arms) {
  const parent = Array.from({ length: numVertices }, (_, v) => v);
  const find = (v) => (parent[v] === v ? v : (parent[v] = find(parent[v])));
  for (const arm of arms) {
    const u = find(edges[2 * arm]);
    const v = find(edges[2 * arm + 1]);
    if (u === v) return false;
    parent[u] = v;
  }
  return true;
}

function isMatchable(numRight, edges, arms) {
  const used = new Array(numRight).fill(false);
  const assign = (i) => {
    if (i === arms.length) return true;
    for (let e = 0; e < edges.length; e += 2) {
      if (edges[e] !== arms[i] || used[edges[e + 1]]) continue;
      used[edges[e + 1]] = true;
      const ok = assign(i + 1);
      used[edges[e + 1]] = false;
      if (ok) return true;
    }
    return false;
  };
  return assign(0);
}

function subsets(k) {
  const out = [];
  for (let mask = 0; mask < 1 << k; mask++) out.push([...Array(k).keys()].filter((i) => mask & (1 << i)));
  return out;
}

function instances(random) {
  const k = 7;
  const groups = Uint32Array.from({ length: k }, () => Math.floor(random() * 3) * 5);
  const edges = Uint32Array.from({ length: 2 * k }, () => Math.floor(random() * 4));
  const bipartite = [];
  for (let arm = 0; arm < k; arm++) for (let j = 0; j < 2; j++) bipartite.push(arm, Math.floor(random() * 3));
  return [
    [sb.Matroid.uniform(k, 3), (s) => s.length <= 3],
    [sb.Matroid.partition(groups), (s) => new Set(s.map((a) => groups[a])).size === s.length],
    [sb.Matroid.graphic(4, edges), (s) => isForest(4, edges, s)],
    [sb.Matroid.transversal(k, 3, bipartite), (s) => isMatchable(3, bipartite, s)],
  ];
}

describe('Matroid', () => {
  test('independence, rank and the greedy basis agree with brute force', () => {
    const random = seededRandom(3);
    for (let round = 0; round < 3; round++) {
      for (const [m, independent] of instances(random)) {
        const all = subsets(m.groundSetSize);
        let rank = 0;
        for (const s of all) {
          expect(m.isIndependent(s)).toBe(independent(s));
          if (independent(s)) rank = Math.max(rank, s.length);
        }
        expect(m.rank).toBe(rank);
        const weights = Float64Array.from({ length: m.groundSetSize }, () => random() * 2 - 1);
        const basis = m.maxWeightBasis(weights);
        expect(basis).toBeInstanceOf(Uint32Array);
        expect(basis.length).toBe(rank);
        expect(m.isIndependent(basis)).toBe(true);
        const best = Math.max(...all.filter((s) => s.length === rank && independent(s)).map((s) => s.reduce((t, a) => t + weights[a], 0)));
        expect(basis.reduce((t, a) => t + weights[a], 0)).toBeCloseTo(best, 12);
        m.dispose();
      }
    }
  });

  test('rejects invalid input with codes and stays usable', () => {
    expectBanditError(sb, () => sb.Matroid.uniform(5, 0), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.Matroid.uniform(5, 6), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.Matroid.graphic(3, [0, 3]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.Matroid.graphic(3, [0, 1, 2]), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => sb.Matroid.transversal(2, 2, [0, 2]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.Matroid.transversal(2, 2, [2, 0]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => sb.Matroid.partition([]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.Matroid(), 'INVALID_ARGUMENT');
    const m = sb.Matroid.uniform(4, 2);
    expectBanditError(sb, () => m.isIndependent([4]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => m.isIndependent([1, 1]), 'DUPLICATE_ID');
    expectBanditError(sb, () => m.maxWeightBasis([1, 2, 3]), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => m.maxWeightBasis([1, 2, 3, NaN]), 'NON_FINITE');
    expect(Array.from(m.maxWeightBasis([1, 3, 2, 3]))).toEqual([1, 3]);
    expect(m.kind).toBe('uniform');
    m.dispose();
    expectBanditError(sb, () => m.rank, 'DISPOSED');
  });
});

describe('CUCB, FasterCUCB, CTS', () => {
  const K = 60;
  const random = seededRandom(11);
  const means = Float64Array.from({ length: K }, () => 0.1 + 0.9 * random());
  const groups = Uint32Array.from({ length: K }, (_, k) => k % 5);

  for (const name of ['CUCB', 'FasterCUCB', 'CTS']) {
    test(`${name} plays bases and its regret per round falls`, () => {
      const m = sb.Matroid.partition(groups);
      const optimum = Array.from(m.maxWeightBasis(means)).reduce((t, a) => t + means[a], 0);
      // Options are strict: only FasterCUCB reads epsilon.
      const policy = new sb[name]({ matroid: m, horizon: 3000, a: 0.1, b: 1, seed: 1, ...(name === 'FasterCUCB' ? { epsilon: 0.1 } : {}) });
      m.dispose(); // the policy holds its own copy
      const rewardRandom = seededRandom(5);
      const regret = [];
      for (let t = 0; t < 3000; t++) {
        const basis = policy.select();
        expect(basis.length).toBe(5);
        expect(new Set(Array.from(basis, (a) => groups[a])).size).toBe(5);
        regret.push(optimum - Array.from(basis).reduce((s, a) => s + means[a], 0));
        // Bounded rewards in [0.1, 1]: 0.1 or 1 with the arm's mean.
        const rewards = Float64Array.from(basis, (a) => (rewardRandom() < (means[a] - 0.1) / 0.9 ? 1 : 0.1));
        policy.update(basis, rewards);
      }
      const sum = (values) => values.reduce((s, v) => s + v, 0);
      expect(sum(regret.slice(-750))).toBeLessThan(0.5 * sum(regret.slice(0, 750)));
      expect(policy.rounds).toBe(3000);
      expect(policy.stats().type).toBe({ CUCB: 'cucb', FasterCUCB: 'faster-cucb', CTS: 'cts' }[name]);
      policy.dispose();
    });
  }

  test('update validates the basis and rewards, leaving the policy usable', () => {
    const m = sb.Matroid.uniform(6, 2);
    const policy = new sb.FasterCUCB({ matroid: m, horizon: 100, a: 0.1, b: 1, epsilon: 0.1, seed: 1 });
    expectBanditError(sb, () => policy.update([0, 1], [0.5, 0.5]), 'INVALID_ARGUMENT');
    const basis = policy.select();
    const other = [0, 1, 2, 3, 4, 5].filter((a) => !basis.includes(a)).slice(0, 2);
    expectBanditError(sb, () => policy.update(other, [0.5, 0.5]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.update(basis, [0.5]), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => policy.update(basis.subarray(0, 1), [0.5]), 'DIMENSION_MISMATCH');
    expectBanditError(sb, () => policy.update(basis, [0.5, NaN]), 'NON_FINITE');
    expectBanditError(sb, () => policy.update(basis, [0.5, 1.5]), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => policy.update(basis, [0.05, 0.5]), 'INVALID_ARGUMENT');
    expect(policy.rounds).toBe(0);
    policy.update(basis, [0.5, 1]);
    expect(policy.rounds).toBe(1);
    expectBanditError(sb, () => new sb.FasterCUCB({ matroid: m, epsilon: 2 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.FasterCUCB({ matroid: m, a: -1 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.CUCB({ matroid: m, a: 1, b: 0 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.CTS({ matroid: {} }), 'INVALID_ARGUMENT');
    policy.dispose();
    m.dispose();
    expectBanditError(sb, () => new sb.CUCB({ matroid: m }), 'DISPOSED');
  });

  test('the same seed gives the same bases; memory is released', () => {
    const before = sb.memoryUsage().allocatedBytes;
    const runs = [];
    for (let run = 0; run < 2; run++) {
      const m = sb.Matroid.graphic(8, Uint32Array.from({ length: 80 }, (_, i) => (i * 7 + (i >> 1)) % 8));
      const policy = new sb.CTS({ matroid: m, seed: 4 });
      const seen = [];
      for (let t = 0; t < 50; t++) {
        const basis = policy.select();
        seen.push(...basis);
        policy.update(basis, Float64Array.from(basis, (a) => (a % 3 === 0 ? 1 : 0)));
      }
      runs.push(seen);
      policy.dispose();
      m.dispose();
    }
    expect(runs[0]).toEqual(runs[1]);
    expect(sb.memoryUsage().allocatedBytes).toBeLessThanOrEqual(before + 4096);
  });
});
