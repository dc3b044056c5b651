// No default object's memory grows with calls (issue 14). 0.1 kept a journal of every call so that
// toBytes() could replay it (`journal: false` turned it off); 0.2 saves snapshots of the structures,
// so with default options an object's wasm memory and its saved state depend on what it holds, never
// on how many calls it has served. Each case warms up first (scratch buffers sized on first use,
// HNSW's visited lists, Sub-TS's first audits), then serves its calls: the bytes malloc'd may grow by
// less than `slack`, and toBytes() must be exactly as long after the calls as before.
import { describe, expect, test } from 'vitest';
import { gaussian, loadModule, registeredClasses, seededRandom } from './helpers.js';

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

// What each object holds, then its calls: 10^5 calls each (a search, or a select and its update),
// except where 10^5 would take more than about 20 s in Node on a shared machine. 0.1's journal grew
// by tens of bytes per call, so even 2x10^4 calls would show hundreds of KiB against 64 KiB of
// slack. Every registered type of each family is a case (registeredClasses): a new type is covered
// with its family's defaults unless it has a row here.
const families = [
  {
    kind: 'index',
    make: (Class, { dim = 16, items = 5000 }) => ({ holds: `${items.toLocaleString('en')} items, dim ${dim}`, make: index(Class, { dim, items }) }),
    perType: {
      exact: { dim: 32, items: 1000 },
      'bounded-me': { dim: 32, items: 1000 },
      // Three HNSW copies searched per query: 10^5 searches take about 50 s.
      adaptive: { calls: 2e4 },
    },
  },
  {
    kind: 'linear-policy',
    make: (Class) => ({ holds: '1,000 arms, dim 8', make: linear(Class, { dim: 8, arms: 1000 }) }),
    perType: {
      // Sub-TS's graph is built a slice per step until complete, within these calls: bounded by the arms.
      'sub-ts': { savedSizeMoves: true },
      // Sub-Elim's and FasterCUCB's states move: arms go from stage to stage (from bin to bin), so
      // their saved size changes a little with the state while staying bounded -- a history of 10^5
      // calls would add megabytes.
      'sub-elim': { savedSizeMoves: true },
    },
    // Forgetting 'auto' (every policy whose table has `forgetting`) keeps the observations since its
    // detector's statistic last stood at 0 (at most 32 rows of the model's dimension): a few hundred
    // bytes come and go with the state.
    savedSizeMoves: (type) => sb.optionTable('linear-policy', type).some((option) => option.name === 'forgetting'),
  },
  {
    kind: 'semi-bandit-policy',
    make: (Class) => ({ holds: 'uniform matroid, 1,000 arms, rank 10', make: matroid(Class, { arms: 1000, rank: 10 }) }),
    perType: {
      'faster-cucb': { savedSizeMoves: true },
      // A Beta sample for each of the 1,000 arms every round: 10^5 rounds take about 22 s.
      cts: { calls: 2e4 },
    },
  },
  {
    kind: 'cls-policy',
    make: (Class) => ({ holds: '20 rows of dim 8 per round, k 5', make: combinatorial(Class, { dim: 8, rows: 20, k: 5 }) }),
    perType: {},
  },
];

const cases = families.flatMap(({ kind, make, perType, savedSizeMoves: moves = () => false }) => registeredClasses(sb, kind, perType)
  .map(([name, { calls = 1e5, savedSizeMoves = moves(sb[name].type), ...sizes }]) => ({
    name, ...make(sb[name], sizes), warmUp: 1000, calls, savedSizeMoves,
  })));

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
