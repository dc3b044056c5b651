// No default object's memory grows with calls (issue 14). 0.1 kept a journal of every call so that
// toBytes() could replay it (`journal: false` turned it off); 0.2 saves snapshots of the structures,
// so with default options an object's wasm memory and its saved state depend on what it holds, never
// on how many calls it has served. Each case warms up first (scratch buffers sized on first use,
// HNSW's visited lists, Sub-TS's first audits), then serves its calls: the bytes malloc'd may grow by
// less than `slack`, and toBytes() must be exactly as long after the calls as before.
import { describe, expect, test } from 'vitest';
import { gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();
const slack = 64 * 1024;
const inUse = () => sb.memoryUsage().allocatedBytes;

function ids(count) {
  return Uint32Array.from({ length: count }, (_, i) => i);
}

// Queries drawn once and reused: the calls allocate nothing on the JavaScript side that could be
// mistaken for the object's growth.
function queries(dim, count = 1000) {
  const values = gaussian(seededRandom(21), count * dim);
  return Array.from({ length: count }, (_, q) => values.subarray(q * dim, (q + 1) * dim));
}

function index(Class, { dim, items }) {
  return () => {
    const object = new Class({ dim });
    object.add(ids(items), gaussian(seededRandom(20), items * dim));
    // HNSW builds its graph a slice per search: finished first, the calls below see the structure
    // the index holds, whose size is fixed.
    object.build();
    const asked = queries(dim);
    return { object, step: (i) => object.search(asked[i % asked.length], 10) };
  };
}

// A linear bandit with a fixed arm set: reward <x, theta*> plus Gaussian noise.
function linear(Class, { dim, arms }) {
  return () => {
    const object = new Class({ dim });
    const features = Float64Array.from(gaussian(seededRandom(22), arms * dim));
    object.addArms(ids(arms), features);
    const theta = gaussian(seededRandom(23), dim);
    const means = Float64Array.from({ length: arms }, (_, a) => features.subarray(a * dim, (a + 1) * dim).reduce((sum, x, j) => sum + x * theta[j], 0));
    const noise = gaussian(seededRandom(24), 4096);
    return {
      object,
      step: (i) => {
        const arm = object.select();
        object.update(arm, means[arm] + noise[i % noise.length]);
      },
    };
  };
}

// A matroid semi-bandit with Bernoulli arms.
function matroid(Class, { arms, rank }) {
  return () => {
    const set = sb.Matroid.uniform(arms, rank);
    const object = new Class({ matroid: set });
    set.dispose();
    const random = seededRandom(25);
    const means = Float64Array.from({ length: arms }, () => random());
    return {
      object,
      step: () => {
        const basis = object.select();
        object.update(basis, Float64Array.from(basis, (arm) => (random() < means[arm] ? 1 : 0)));
      },
    };
  };
}

// A combinatorial linear semi-bandit: each round offers `rows` fresh feature rows, k are chosen.
function combinatorial(Class, { dim, rows, k }) {
  return () => {
    const object = new Class({ dim, k });
    const rounds = 64;
    const features = Float64Array.from(gaussian(seededRandom(26), rounds * rows * dim));
    const theta = gaussian(seededRandom(27), dim);
    return {
      object,
      step: (i) => {
        const x = features.subarray((i % rounds) * rows * dim, ((i % rounds) + 1) * rows * dim);
        const chosen = object.select(x, { k });
        object.update(chosen, Float64Array.from(chosen, (row) => x.subarray(row * dim, (row + 1) * dim).reduce((sum, v, j) => sum + v * theta[j], 0)));
      },
    };
  };
}

// What each object holds, then its calls: 10^5 calls each (a search, or a
// select and its update), except where 10^5 would take more than about 20 s in Node on a shared
// machine. 0.1's journal grew by tens of bytes per call, so even 2x10^4 calls would show
// hundreds of KiB against 64 KiB of slack.
const cases = [
  { name: 'ExactIndex', holds: '1,000 items, dim 32', make: index(sb.ExactIndex, { dim: 32, items: 1000 }), warmUp: 1000, calls: 1e5 },
  { name: 'HnswIndex', holds: '5,000 items, dim 16', make: index(sb.HnswIndex, { dim: 16, items: 5000 }), warmUp: 1000, calls: 1e5 },
  { name: 'LshIndex', holds: '5,000 items, dim 16', make: index(sb.LshIndex, { dim: 16, items: 5000 }), warmUp: 1000, calls: 1e5 },
  { name: 'BoundedMEIndex', holds: '1,000 items, dim 32', make: index(sb.BoundedMEIndex, { dim: 32, items: 1000 }), warmUp: 1000, calls: 1e5 },
  { name: 'GreedyMipsIndex', holds: '5,000 items, dim 16', make: index(sb.GreedyMipsIndex, { dim: 16, items: 5000 }), warmUp: 1000, calls: 1e5 },
  { name: 'PcaTreeIndex', holds: '5,000 items, dim 16', make: index(sb.PcaTreeIndex, { dim: 16, items: 5000 }), warmUp: 1000, calls: 1e5 },
  // Three HNSW copies searched per query: 10^5 searches take about 50 s.
  { name: 'AdaptiveIndex', holds: '5,000 items, dim 16', make: index(sb.AdaptiveIndex, { dim: 16, items: 5000 }), warmUp: 1000, calls: 2e4 },
  { name: 'LinUCB', holds: '1,000 arms, dim 8', make: linear(sb.LinUCB, { dim: 8, arms: 1000 }), warmUp: 1000, calls: 1e5 },
  // Sub-TS's graph is built a slice per step until complete, within these calls: bounded by the arms.
  { name: 'SubTS', holds: '1,000 arms, dim 8', make: linear(sb.SubTS, { dim: 8, arms: 1000 }), warmUp: 1000, calls: 1e5, savedSizeMoves: true },
  { name: 'LinTS', holds: '1,000 arms, dim 8', make: linear(sb.LinTS, { dim: 8, arms: 1000 }), warmUp: 1000, calls: 1e5 },
  { name: 'LinearElim', holds: '1,000 arms, dim 8', make: linear(sb.LinearElim, { dim: 8, arms: 1000 }), warmUp: 1000, calls: 1e5 },
  // Sub-Elim's and FasterCUCB's states move: arms go from stage to stage (from bin to bin), so
  // their saved size changes a little with the state while staying bounded -- a history of 10^5
  // calls would add megabytes.
  { name: 'SubElim', holds: '1,000 arms, dim 8', make: linear(sb.SubElim, { dim: 8, arms: 1000 }), warmUp: 1000, calls: 1e5, savedSizeMoves: true },
  { name: 'CUCB', holds: 'uniform matroid, 1,000 arms, rank 10', make: matroid(sb.CUCB, { arms: 1000, rank: 10 }), warmUp: 1000, calls: 1e5 },
  { name: 'FasterCUCB', holds: 'uniform matroid, 1,000 arms, rank 10', make: matroid(sb.FasterCUCB, { arms: 1000, rank: 10 }), warmUp: 1000, calls: 1e5, savedSizeMoves: true },
  // A Beta sample for each of the 1,000 arms every round: 10^5 rounds take about 22 s.
  { name: 'CTS', holds: 'uniform matroid, 1,000 arms, rank 10', make: matroid(sb.CTS, { arms: 1000, rank: 10 }), warmUp: 1000, calls: 2e4 },
  { name: 'C2UCB', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.C2UCB, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
  { name: 'PC2UCB', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.PC2UCB, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
  { name: 'CombLinUCB', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.CombLinUCB, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
  { name: 'CombLinTS', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.CombLinTS, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
  { name: 'CombTS', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.CombTS, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
  { name: 'GreedyCLS', holds: '20 rows of dim 8 per round, k 5', make: combinatorial(sb.GreedyCLS, { dim: 8, rows: 20, k: 5 }), warmUp: 1000, calls: 1e5 },
];

describe('no default object\'s memory grows with calls', () => {
  test.each(cases)('$name ($holds): $calls calls after $warmUp', ({ make, warmUp, calls, savedSizeMoves }) => {
    const { object, step } = make();
    for (let i = 0; i < warmUp; i++) step(i);
    // toBytes() frees its buffer on the wasm heap once JS holds the copy: it adds nothing here.
    const saved = object.toBytes().length;
    const before = inUse();
    for (let i = 0; i < calls; i++) step(warmUp + i);
    const growth = inUse() - before;
    expect(growth, `bytes in use grew by ${growth}`).toBeLessThan(slack);
    if (savedSizeMoves) expect(Math.abs(object.toBytes().length - saved)).toBeLessThan(saved / 5);
    else expect(object.toBytes().length).toBe(saved);
    object.dispose();
  }, 120_000);
});
