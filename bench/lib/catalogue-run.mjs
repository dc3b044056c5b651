// One run of `bench catalogue`: one Catalogue of K Gaussian arms, many users over it, and a few
// users side by side with a Linear TS that holds its own copy of the arms. Pure computation through
// the public API, shared by Node and the Chromium page, so both run the same code on the same numbers.
import { seededRandom, standardNormal } from './seeded-random.mjs';

const kChunk = 25000;

export function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export function median(values) {
  return percentile(values, 0.5);
}

// Unit-norm tastes: `count` rows of d numbers.
export function unitRows(count, dim, seed) {
  const random = seededRandom(seed);
  const rows = new Float64Array(count * dim);
  for (let r = 0; r < count; r++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const value = standardNormal(random);
      rows[r * dim + j] = value;
      norm += value * value;
    }
    for (let j = 0; j < dim; j++) rows[r * dim + j] /= Math.sqrt(norm);
  }
  return rows;
}

function dot(features, arm, theta, offset, dim) {
  let sum = 0;
  for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * theta[offset + j];
  return sum;
}

// Adds the arms in chunks (as an application streams a catalogue in), so no single call copies the
// whole array onto the heap at once.
function addAll(target, method, ids, features, dim) {
  for (let first = 0; first < ids.length; first += kChunk) {
    target[method](ids.subarray(first, first + kChunk), features.subarray(first * dim, (first + kChunk) * dim));
  }
}

// config: { arms, dim, users, rounds, compareUsers, seeds, horizon, typeUsers, ucbUsers, snapshots }.
// progress(fraction, label) is optional. Returns plain data (it crosses from the page as JSON).
export function runCatalogue(sb, config, progress = () => {}) {
  const { arms, dim, users, rounds, compareUsers, seeds, horizon } = config;
  const now = () => performance.now();
  const allocated = () => sb.memoryUsage().allocatedBytes;
  const out = { config };

  // The catalogue: features drawn once (the same for every contender), added, its graph built.
  progress(0, 'arms');
  const random = seededRandom(12345);
  const features = new Float64Array(arms * dim);
  for (let i = 0; i < features.length; i++) features[i] = standardNormal(random);
  const ids = Uint32Array.from({ length: arms }, (_, i) => i);
  const heapStart = allocated();
  let start = now();
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  addAll(catalogue, 'add', ids, features, dim);
  const addMs = now() - start;
  start = now();
  // build(maxItems) in slices, for the progress line; the same work as one build().
  for (let waiting = arms; waiting > 0;) {
    waiting = catalogue.build(Math.max(1, Math.floor(arms / 20)));
    progress(0.05 + (0.3 * (arms - waiting)) / arms, 'graph');
  }
  const buildMs = now() - start;
  out.catalogue = { addMs, buildMs, heapBytes: allocated() - heapStart, snapshotBytes: null, identity: catalogue.stats().identity };
  progress(0.35, 'users');

  // Many users: SubTS over the catalogue, each with a taste of their own, served in turn.
  const tastes = unitRows(users, dim, 777);
  const beforeUsers = allocated();
  start = now();
  const served = [];
  for (let u = 0; u < users; u++) served.push(new sb.SubTS({ catalogue, seed: u + 1, horizon }));
  const createMs = now() - start;
  const noise = seededRandom(99);
  const selectMs = new Float64Array(users * rounds);
  const updateMs = new Float64Array(users * rounds);
  let step = 0;
  for (let round = 0; round < rounds; round++) {
    for (let u = 0; u < users; u++) {
      const user = served[u];
      const t0 = now();
      const arm = user.select();
      const t1 = now();
      user.update(arm, dot(features, arm, tastes, u * dim, dim) + standardNormal(noise));
      selectMs[step] = t1 - t0;
      updateMs[step] = now() - t1;
      step++;
    }
    progress(0.35 + (0.25 * (round + 1)) / rounds, 'serving');
  }
  const usersHeap = allocated() - beforeUsers;
  // Snapshots of a sample of the users: size, load time, and the loaded user's next choice.
  const sample = Math.min(users, config.snapshots);
  const sizes = [];
  const loadMs = [];
  let continued = 0;
  for (let u = 0; u < sample; u++) {
    const bytes = served[u].toBytes();
    sizes.push(bytes.length);
    const t0 = now();
    const restored = sb.SubTS.fromBytes(bytes, { catalogue });
    loadMs.push(now() - t0);
    if (restored.select() === served[u].select()) continued++;
    restored.dispose();
  }
  out.users = {
    count: users, rounds, createMs, heapBytes: usersHeap, perUserBytes: usersHeap / users,
    select: { p50: median(selectMs), p99: percentile(selectMs, 0.99), mean: selectMs.reduce((a, b) => a + b, 0) / selectMs.length },
    update: { p50: median(updateMs), p99: percentile(updateMs, 0.99) },
    snapshot: { sampled: sample, bytesMedian: median(sizes), bytesMax: Math.max(...sizes), loadP50: median(loadMs), loadP99: percentile(loadMs, 0.99), continued },
  };
  out.heap = { allocatedBytes: allocated(), heapBytes: sb.memoryUsage().heapBytes };
  for (const user of served) user.dispose();
  progress(0.6, 'per policy');

  // What a user of each policy type holds, at this K: heap per user after a few steps, snapshot size.
  // LinUCB with `widths: 'direct'` (nothing kept per arm, so its memory does not grow with K)
  // computes every arm's width at each select (O(K d^2)), so fewer of its users are measured; with
  // its default kept widths it holds 12 bytes an arm more.
  out.types = [];
  for (const [name, count] of [['LinUCB', config.ucbUsers], ['LinTS', config.typeUsers], ['SubTS', config.typeUsers]]) {
    const before = allocated();
    const list = [];
    for (let u = 0; u < count; u++) {
      const user = new sb[name]({ catalogue, seed: 1000 + u, horizon, ...(name === 'LinUCB' ? { widths: 'direct' } : {}) });
      const arm = user.select();
      user.update(arm, dot(features, arm, tastes, (u % users) * dim, dim));
      list.push(user);
    }
    const perUser = (allocated() - before) / count;
    out.types.push({ name, users: count, perUserBytes: perUser, snapshotBytes: list[0].toBytes().length });
    for (const user of list) user.dispose();
  }

  // Side by side: a few users, each with the same taste and the same noise, played by a Linear TS
  // with its own copy of the arms, a SubTS over the catalogue and a LinTS over the catalogue.
  const compareTastes = unitRows(compareUsers, dim, 4242);
  const contenders = ['own-copy LinTS', 'catalogue SubTS', 'catalogue LinTS'];
  out.compare = [];
  const totalRuns = compareUsers * seeds * contenders.length;
  let runsDone = 0;
  for (let u = 0; u < compareUsers; u++) {
    const means = new Float64Array(arms);
    let best = -Infinity;
    for (let arm = 0; arm < arms; arm++) {
      means[arm] = dot(features, arm, compareTastes, u * dim, dim);
      if (means[arm] > best) best = means[arm];
    }
    for (let seed = 1; seed <= seeds; seed++) {
      const policySeed = 100 * seed + u;
      for (const label of contenders) {
        const before = allocated();
        const t0 = now();
        let policy;
        if (label === 'own-copy LinTS') {
          policy = new sb.LinTS({ dim, horizon, seed: policySeed });
          addAll(policy, 'addArms', ids, features, dim);
        } else {
          policy = new sb[label === 'catalogue SubTS' ? 'SubTS' : 'LinTS']({ catalogue, horizon, seed: policySeed });
        }
        const setupMs = now() - t0;
        const noiseOf = seededRandom(1000 * u + seed);
        let regret = 0;
        const t1 = now();
        for (let t = 0; t < horizon; t++) {
          const arm = policy.select();
          policy.update(arm, means[arm] + standardNormal(noiseOf));
          regret += best - means[arm];
        }
        const stepMs = (now() - t1) / horizon;
        const heapBytes = allocated() - before;
        policy.dispose();
        out.compare.push({ label, user: u, seed, regret, setupMs, stepMs, heapBytes });
        runsDone++;
        progress(0.6 + (0.4 * runsDone) / totalRuns, `${label} user ${u} seed ${seed}`);
      }
    }
  }
  const snapshot = catalogue.toBytes();
  out.catalogue.snapshotBytes = snapshot.length;
  catalogue.dispose();
  progress(1, 'done');
  return out;
}
