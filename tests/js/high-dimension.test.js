// Issue 37 in JavaScript: audits that act on few clear misses, dimensions up to 4,096, and Linear TS
// and Sub-TS learning in the arms' principal subspace (saved and restored).
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

// `count` unit-norm arms in d dimensions from `rank` strong directions plus a weak isotropic tail.
function lowRankArms(dim, rank, count, seed, tail = 0.3) {
  const random = seededRandom(seed);
  const mixing = gaussian(random, dim * rank);
  const features = new Float64Array(count * dim);
  for (let i = 0; i < count; i++) {
    const z = gaussian(random, rank);
    const noise = gaussian(random, dim);
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      let value = tail * noise[j];
      for (let k = 0; k < rank; k++) value += (mixing[j * rank + k] * z[k]) / Math.sqrt(1 + k / 4);
      features[i * dim + j] = value;
      norm += value * value;
    }
    for (let j = 0; j < dim; j++) features[i * dim + j] /= Math.sqrt(norm);
  }
  return features;
}

describe('high-dimensional arms (issue 37)', () => {
  test('few audits of a graph that misses raise the effort; a graph that finds the best arm raises nothing', () => {
    const dim = 64;
    const random = seededRandom(3);
    const features = Float64Array.from(gaussian(random, 3000 * dim), (v) => v / Math.sqrt(dim));
    const thetaStar = gaussian(random, dim);
    const ids = Uint32Array.from({ length: 3000 }, (_, i) => i);
    const run = (options) => {
      const policy = new sb.SubTS({ dim, seed: 3, horizon: 800, ...options });
      policy.addArms(ids, features);
      for (let t = 0; t < 800; t++) {
        const arm = policy.select();
        let mean = 0;
        for (let j = 0; j < dim; j++) mean += features[arm * dim + j] * thetaStar[j];
        policy.update(arm, mean + 0.1 * (random() - 0.5));
      }
      const stats = policy.stats();
      policy.dispose();
      return stats;
    };
    // A budget that allows almost no audit, as at high d and K: the floor's audits alone.
    const weak = run({ auditBudget: 1e-6, shortlist: 1, index: { type: 'hnsw', M: 4, efConstruction: 8, efSearch: 1, build: 'immediate' } });
    expect(weak.approximation.audits).toBeGreaterThanOrEqual(3);
    expect(weak.approximation.audits).toBeLessThanOrEqual(20);
    expect(weak.approximation.missRate).toBeGreaterThan(0.3);
    expect(weak.approximation.effortRaises).toBeGreaterThanOrEqual(1);
    expect(weak.shortlist).toBeGreaterThan(1);
    const good = run({ index: { type: 'hnsw', build: 'immediate' } });
    expect(good.approximation.audits).toBeGreaterThanOrEqual(8);
    expect(good.approximation.effortRaises).toBe(0);
    expect(good.shortlist).toBe(30);
  });

  test('a policy and an index at d = 4,096', () => {
    const dim = 4096;
    const random = seededRandom(9);
    const features = Float64Array.from(gaussian(random, 40 * dim), (v) => v / 64);
    const ids = Uint32Array.from({ length: 40 }, (_, i) => i);
    for (const Policy of [sb.LinTS, sb.SubTS]) {
      const policy = new Policy({ dim, seed: 1 });
      policy.addArms(ids, features);
      for (let t = 0; t < 20; t++) {
        const arm = policy.select();
        policy.update(arm, features[arm * dim] * 64);
      }
      expect(policy.theta().length).toBe(dim);
      expect(policy.stats().subspace).toMatchObject({ modelDim: 256, fits: 1 });
      expect(policy.stats().subspace.rank).toBeLessThanOrEqual(40);
      policy.dispose();
    }
    for (const Index of [sb.ExactIndex, sb.HnswIndex]) {
      const index = new Index({ dim });
      index.add(ids, features);
      const query = features.subarray(7 * dim, 8 * dim);
      expect(index.search(query, 1).ids[0]).toBe(7);
      index.dispose();
    }
    expectBanditError(sb, () => new sb.LinTS({ dim: 4097 }), 'INVALID_ARGUMENT');
  });

  test('Linear TS in the arms\' subspace: on by default above 64 dimensions, saved and restored, refused where it cannot apply', () => {
    const dim = 128;
    const features = lowRankArms(dim, 10, 400, 5);
    const ids = Uint32Array.from({ length: 400 }, (_, i) => i);
    const policy = new sb.LinTS({ dim, seed: 2, horizon: 500 });
    policy.addArms(ids, features);
    const random = seededRandom(6);
    for (let t = 0; t < 100; t++) policy.update(policy.select(), random());
    const { subspace } = policy.stats();
    expect(subspace.modelDim).toBe(128);
    expect(subspace.rank).toBeGreaterThanOrEqual(8);
    expect(subspace.rank).toBeLessThan(dim);
    expect(subspace.energy).toBeGreaterThanOrEqual(0.6);
    const copy = sb.LinTS.fromBytes(policy.toBytes());
    for (let t = 0; t < 50; t++) {
      const arm = policy.select();
      expect(copy.select()).toBe(arm);
      const reward = random();
      policy.update(arm, reward);
      copy.update(arm, reward);
    }
    expect(Array.from(copy.theta())).toEqual(Array.from(policy.theta()));
    copy.dispose();
    policy.dispose();
    const small = new sb.LinTS({ dim: 64 });
    expect(small.stats().subspace).toBeUndefined();
    small.dispose();
    expectBanditError(sb, () => new sb.LinTS({ dim, modelDim: 0 }), 'INVALID_ARGUMENT');
    // modelDim asks for a subspace at any d (above d it means d); fitted at the first arms.
    const asked = new sb.LinTS({ dim: 8, modelDim: 100 });
    expect(asked.stats().subspace).toEqual({ modelDim: 8, rank: 0, energy: 0, fits: 0 });
    asked.dispose();
    expectBanditError(sb, () => new sb.SubTS({ dim, subspace: 'arms', negativeRewardTransform: true }), 'INVALID_ARGUMENT');
    expectBanditError(sb, () => new sb.LinearElim({ dim, subspace: 'arms', search: 'lifted' }), 'INVALID_ARGUMENT');
    const catalogue = new sb.Catalogue({ dim });
    expectBanditError(sb, () => new sb.LinTS({ catalogue, modelDim: 16 }), 'INVALID_ARGUMENT');
    catalogue.dispose();
  });
});
