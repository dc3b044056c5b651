import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, plantedRatings, seededRandom } from './helpers.js';

const sb = await loadModule();

const CLASSES = [
  ['C2UCB', { lambda: 1, alpha: 1 }],
  ['PC2UCB', { lambda: 1, alpha: 1, c: 1 }],
  ['CombTS', { lambda: 1, v: 1, randomization: 'round' }],
  ['CombTS', { lambda: 1, v: 1, randomization: 'arm' }],
  ['CombLinUCB', { priorVariance: 1, noiseVariance: 1, c: 1 }],
  ['CombLinTS', { priorVariance: 1, noiseVariance: 1 }],
  ['GreedyCLS', { lambda: 1 }],
];

// Takemura and Ito's (arXiv:1909.02251) clustered case, built here independently of the library: d
// - 1 contiguous clusters, feature (cos angle, 0, .., sin angle at 1 + cluster, ..), theta* a
// random unit vector.
function clustered(seed, { dim = 11, arms = 2000, angle = 1.2 } = {}) {
  const random = seededRandom(seed);
  const features = new Float64Array(arms * dim);
  for (let row = 0; row < arms; row++) {
    features[row * dim] = Math.cos(angle);
    features[row * dim + 1 + Math.floor((row * (dim - 1)) / arms)] = Math.sin(angle);
  }
  const theta = Array.from(gaussian(random, dim));
  const norm = Math.hypot(...theta);
  const means = new Float64Array(arms);
  for (let row = 0; row < arms; row++) {
    let mean = 0;
    for (let j = 0; j < dim; j++) mean += (theta[j] / norm) * features[row * dim + j];
    means[row] = mean;
  }
  return { features, means, random, dim, arms };
}

function play(policy, env, k, rounds, clusterCounts) {
  let total = 0;
  for (let t = 0; t < rounds; t++) {
    const chosen = policy.select(env.features, { k });
    const rewards = Float64Array.from(chosen, (row) => (env.random() < (1 + env.means[row]) / 2 ? 1 : -1));
    chosen.forEach((row) => { total += env.means[row]; });
    clusterCounts?.push(new Set(Array.from(chosen, (row) => Math.floor((row * (env.dim - 1)) / env.arms))).size);
    policy.update(chosen, rewards);
  }
  return total;
}

function validSuperArm(chosen, n, k, groups, perGroup) {
  expect(chosen).toBeInstanceOf(Uint32Array);
  expect(chosen.length).toBe(k);
  expect(new Set(chosen).size).toBe(k);
  const counts = new Map();
  for (const row of chosen) {
    expect(row).toBeLessThan(n);
    if (groups) {
      counts.set(groups[row], (counts.get(groups[row]) ?? 0) + 1);
      expect(counts.get(groups[row])).toBeLessThanOrEqual(perGroup);
    }
  }
}

describe('combinatorial linear semi-bandits', () => {
  test('the example of docs/policies.md (combinatorial) runs', () => {
    const env = clustered(1);
    const p = new sb.PC2UCB({ dim: 11, k: 100, lambda: 1, alpha: 1, c: 1, seed: 1 });
    const chosen = p.select(env.features, { k: 100 });
    validSuperArm(chosen, 2000, 100);
    p.update(chosen, new Float64Array(100).fill(1));
    expect(p.theta()).toBeInstanceOf(Float64Array);
    expect(p.dim).toBe(11);
    // The constructor's k is the default.
    validSuperArm(p.select(env.features), 2000, 100);
    p.dispose();
  });

  test('every class returns valid super arms, with and without quotas', () => {
    const random = seededRandom(3);
    const n = 120;
    const dim = 5;
    for (const [name, options] of CLASSES) {
      const p = new sb[name]({ dim, seed: 2, ...options });
      for (let t = 0; t < 6; t++) {
        const features = gaussian(random, n * dim);
        const groups = t % 2 ? Uint32Array.from({ length: n }, () => Math.floor(random() * 5)) : undefined;
        const k = groups ? 10 : 1 + Math.floor(random() * 30);
        const chosen = p.select(features, groups ? { k, groups, perGroup: 2 } : { k });
        validSuperArm(chosen, n, k, groups, 2);
        p.update(chosen, gaussian(random, k));
      }
      p.dispose();
    }
  });

  test('the top-k oracle agrees with sorting the scores', () => {
    // Greedy after its random first round scores theta^T x: recompute and sort in JS.
    const random = seededRandom(11);
    const n = 500;
    const dim = 6;
    const p = new sb.GreedyCLS({ dim, lambda: 0.5, seed: 4 });
    for (let t = 0; t < 5; t++) {
      const features = gaussian(random, n * dim);
      const k = 1 + Math.floor(random() * 60);
      const chosen = p.select(features, { k });
      if (t > 0) {
        const theta = p.theta();
        const scores = Array.from({ length: n }, (_, row) => {
          let s = 0;
          for (let j = 0; j < dim; j++) s += theta[j] * features[row * dim + j];
          return [s, row];
        });
        scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
        expect(Array.from(chosen)).toEqual(scores.slice(0, k).map(([, row]) => row));
      }
      p.update(chosen, gaussian(random, k));
    }
    p.dispose();
  });

  test('policies learn on the clustered case: more reward than random selection', () => {
    const rounds = 25;
    for (const [name, options] of CLASSES) {
      let policyTotal = 0;
      let randomTotal = 0;
      for (let seed = 1; seed <= 3; seed++) {
        const env = clustered(seed);
        const p = new sb[name]({ dim: 11, seed, ...options });
        policyTotal += play(p, env, 100, rounds);
        randomTotal += (rounds * 100 * env.means.reduce((a, b) => a + b, 0)) / env.arms;
        p.dispose();
      }
      expect(policyTotal, name).toBeGreaterThan(randomTotal + 300);
    }
  });

  test('arm-wise randomization mixes clusters where round-wise TS and C2UCB take one', () => {
    for (let seed = 1; seed <= 3; seed++) {
      const counts = {};
      for (const [key, name, options] of [['c2ucb', 'C2UCB', {}], ['round', 'CombTS', { randomization: 'round' }],
        ['arm', 'CombTS', { randomization: 'arm' }], ['perturbed', 'PC2UCB', {}]]) {
        counts[key] = [];
        const p = new sb[name]({ dim: 11, seed, ...options });
        play(p, clustered(seed, { angle: 1.4 }), 100, 5, counts[key]);
        p.dispose();
      }
      expect(counts.c2ucb).toEqual([1, 1, 1, 1, 1]);
      expect(counts.round).toEqual([1, 1, 1, 1, 1]);
      for (const c of counts.arm) expect(c).toBeGreaterThanOrEqual(2);
      expect(counts.perturbed[0]).toBeGreaterThanOrEqual(2);
    }
  });

  test('errors are coded and leave the policy unchanged', () => {
    const random = seededRandom(5);
    const dim = 3;
    for (const [name, options] of CLASSES) {
      const p = new sb[name]({ dim, seed: 9, ...options });
      const twin = new sb[name]({ dim, seed: 9, ...options });
      const features = gaussian(random, 10 * dim);
      const before = sb.memoryUsage().allocatedBytes;
      expectBanditError(sb, () => p.update([0], [1]), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select(features.subarray(1), { k: 2 }), 'DIMENSION_MISMATCH');
      const nan = features.slice();
      nan[3] = NaN;
      expectBanditError(sb, () => p.select(nan, { k: 2 }), 'NON_FINITE');
      expectBanditError(sb, () => p.select(features, { k: 0 }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select(features, { k: 11 }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select(features, { k: 2.5 }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select(features), 'INVALID_ARGUMENT');  // no k anywhere
      expectBanditError(sb, () => p.select(features, { k: 2, groups: [0, 1], perGroup: 1 }), 'DIMENSION_MISMATCH');
      expectBanditError(sb, () => p.select(features, { k: 2, groups: new Uint32Array(10), perGroup: 0 }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select(features, { k: 2, groups: new Uint32Array(10), perGroup: 1 }), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.select({ k: 2 }), 'EMPTY');
      expect(sb.memoryUsage().allocatedBytes).toBe(before);

      const chosen = p.select(features, { k: 3 });
      expect(Array.from(twin.select(features, { k: 3 }))).toEqual(Array.from(chosen));
      const outside = [0, 1, 2, 3].find((row) => !chosen.includes(row));
      expectBanditError(sb, () => p.update(chosen, [1, NaN, 1]), 'NON_FINITE');
      expectBanditError(sb, () => p.update(chosen, [1, 1]), 'DIMENSION_MISMATCH');
      expectBanditError(sb, () => p.update([chosen[0], outside, chosen[2]], [1, 1, 1]), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.update([chosen[0], chosen[0], chosen[2]], [1, 1, 1]), 'INVALID_ARGUMENT');
      expectBanditError(sb, () => p.update([-1, 0, 1], [1, 1, 1]), 'INVALID_ARGUMENT');
      p.update(chosen, [1, -1, 0.5]);
      twin.update(chosen, [1, -1, 0.5]);
      expect(Array.from(p.theta())).toEqual(Array.from(twin.theta()));
      const next = gaussian(random, 10 * dim);
      expect(Array.from(p.select(next, { k: 4 })), name).toEqual(Array.from(twin.select(next, { k: 4 })));
      p.dispose();
      twin.dispose();
      expectBanditError(sb, () => p.select(next, { k: 1 }), 'DISPOSED');
    }
    expectBanditError(sb, () => new sb.C2UCB({ lambda: 1 }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.C2UCB({ dim: 3, alpha: NaN }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.CombTS({ dim: 3, randomization: 'both' }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.PC2UCB({ dim: 3, index: { type: 'no-such-index' } }), 'INVALID_ARGUMENT');
  });

  test('fixed arms with an index: setArms + select({ k }) plays like full scoring', () => {
    const random = seededRandom(21);
    const n = 3000;
    const dim = 6;
    const features = gaussian(random, n * dim).map((v) => v * 0.4);
    const thetaStar = gaussian(random, dim);
    const mean = (row) => {
      let s = 0;
      for (let j = 0; j < dim; j++) s += thetaStar[j] * features[row * dim + j];
      return s;
    };
    const types = ['exact', ...(typeof sb.HnswIndex === 'function' ? ['hnsw'] : [])];
    for (const type of types) {
      for (const [name, options] of [['C2UCB', { alpha: 0.5 }], ['CombTS', { randomization: 'round', v: 0.3 }], ['PC2UCB', { alpha: 0.5 }]]) {
        const fast = new sb[name]({ dim, seed: 3, ...options, index: { type, shortlist: 40 } });
        const full = new sb[name]({ dim, seed: 3, ...options });
        fast.setArms(features);
        expect(fast.armCount).toBe(n);
        let fastTotal = 0;
        let fullTotal = 0;
        for (let t = 0; t < 6; t++) {
          const a = fast.select({ k: 20 });
          const b = full.select(features, { k: 20 });
          validSuperArm(a, n, 20);
          if (type === 'exact' && name !== 'PC2UCB') expect(Array.from(a)).toEqual(Array.from(b));
          const rewardsA = Float64Array.from(a, mean);
          const rewardsB = Float64Array.from(b, mean);
          fastTotal += rewardsA.reduce((x, y) => x + y, 0);
          fullTotal += rewardsB.reduce((x, y) => x + y, 0);
          fast.update(a, rewardsA);
          full.update(b, rewardsB);
        }
        const stats = fast.stats();
        expect(stats.shortlistRounds).toBe(6);
        if (type === 'exact') expect(stats.certifiedRounds).toBe(6);
        else expect(fastTotal).toBeGreaterThan(0.8 * fullTotal - 1);
        fast.dispose();
        full.dispose();
      }
    }
  });

  test('simulate() plays the clustered and promotion environments', () => {
    const clusteredRun = sb.simulate({
      environment: { type: 'clustered', dim: 11, arms: 2000, k: 100, angle: 1.0 },
      policy: { type: 'comb-ts', randomization: 'arm', v: 0.3 }, horizon: 20, seed: 2, recordEvery: 1,
    });
    expect(clusteredRun.t.length).toBe(20);
    const regrets = clusteredRun.cumulativeRegret.map((value, t) => value - (t > 0 ? clusteredRun.cumulativeRegret[t - 1] : 0));
    for (const regret of regrets) expect(regret).toBeGreaterThanOrEqual(-1e-9);
    expect(regrets[19]).toBeLessThan(regrets[0]);
    const promotion = sb.simulate({
      environment: { type: 'promotion', promotions: 3, k: 4, users: 200, population: 1000, rank: 4 },
      policy: { type: 'pc2ucb', alpha: 0.3 }, horizon: 5, seed: 1, recordEvery: 1,
    });
    expect(promotion.t.length).toBe(5);
    expect(promotion.innerProducts).toBeGreaterThan(0);
    // From a ratings file: users' ALS factors as features, ratings (0 if unrated) as rewards.
    const fromRatings = sb.simulate({
      environment: { type: 'promotion', ratings: plantedRatings({ users: 80, movies: 40 }), promotions: 3, k: 3, users: 40, rank: 2,
        testMinRaters: 20, testMaxRaters: 80 },
      policy: { type: 'pc2ucb', alpha: 0.3 }, horizon: 5, seed: 1, recordEvery: 1,
    });
    const perRound = Array.from(fromRatings.cumulativeReward, (value, i) => value - (i > 0 ? fromRatings.cumulativeReward[i - 1] : 0));
    for (const reward of perRound) {
      expect(reward).toBeGreaterThan(0);
      expect(reward).toBeLessThanOrEqual(3 * 3 * 5);
    }
    const error = expectBanditError(sb, () => sb.simulate({
      environment: { type: 'promotion', ratings: '1::2::5::0' }, policy: { type: 'c2ucb' }, horizon: 1,
    }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('testMinRaters');
  });
});
