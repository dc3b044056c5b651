// A generated low-rank catalogue for the tests of users in a catalogue's subspace
// (catalogue-subspace.test.js, catalogue-subspace-scan.test.js).
import { seededRandom } from './helpers.js';
import { lowRankRows, standardNormal } from '../../bench/lib/seeded-random.mjs';

// Unit-norm rows x = B z / |B z| (B a fixed d x rank matrix) and theta* in their span.
export function lowRankWorld(dim, rank, seed) {
  const random = seededRandom(seed);
  const basis = Float64Array.from({ length: dim * rank }, () => standardNormal(random));
  const thetaStar = new Float64Array(dim);
  for (let j = 0; j < dim; j++) for (let r = 0; r < rank; r++) thetaStar[j] += basis[j * rank + r];
  const norm = Math.hypot(...thetaStar);
  thetaStar.forEach((v, j) => { thetaStar[j] = v / norm; });
  const means = [];
  return {
    means,
    arms(count) {
      const ids = Uint32Array.from({ length: count }, (_, i) => means.length + i);
      const x = lowRankRows(basis, dim, rank, count, random);
      for (let i = 0; i < count; i++) {
        let mean = 0;
        for (let j = 0; j < dim; j++) mean += x[i * dim + j] * thetaStar[j];
        means.push(mean);
      }
      return { ids, x };
    },
    reward: (id) => means[id] + 0.1 * standardNormal(random),
    best: () => Math.max(...means),
    uniformRegret() {
      const best = this.best();
      return means.reduce((sum, m) => sum + best - m, 0) / means.length;
    },
    play(user, steps, counted) {
      const best = this.best();
      let regret = 0;
      for (let t = 0; t < steps; t++) {
        const arm = user.select();
        if (t >= steps - counted) regret += best - means[arm];
        user.update(arm, this.reward(arm));
      }
      return regret;
    },
  };
}
