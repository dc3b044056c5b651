// Worlds whose tastes change (issue 51), for the drift benchmark (bench/drift.mjs) and the tests
// (tests/js/forgetting.test.js): a Gaussian linear world whose theta* switches, rotates or alternates,
// and Fashion-MNIST shoppers whose liked kind switches. Every world draws from its own seeded stream,
// so that each policy of a comparison meets the same arms, tastes and noise.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { seededRandom, standardNormal } from './seeded-random.mjs';

const FASHION = '/usr/share/datasets/fashion-mnist';

// A unit-free Gaussian vector of dimension d, scaled to `norm`.
function gaussianVector(random, d, norm) {
  const v = new Float64Array(d);
  let sum = 0;
  for (let j = 0; j < d; j++) {
    v[j] = standardNormal(random);
    sum += v[j] * v[j];
  }
  for (let j = 0; j < d; j++) v[j] *= norm / Math.sqrt(sum);
  return v;
}

// b made orthogonal to a, with a's norm (the second axis of a rotation).
function orthogonalTo(a, b) {
  let ab = 0;
  let aa = 0;
  for (let j = 0; j < a.length; j++) {
    ab += a[j] * b[j];
    aa += a[j] * a[j];
  }
  const out = b.map((value, j) => value - (ab / aa) * a[j]);
  const scale = Math.sqrt(aa) / Math.hypot(...out);
  return out.map((value) => value * scale);
}

/**
 * A Gaussian linear world: `arms` arms with N(0, I/d) features, theta* of norm `thetaNorm`, Gaussian
 * noise. `change`: 'none'; 'switch' (theta* turns to an orthogonal one at step `at`); 'rotate' (theta* turns in a plane
 * once every `period` steps); 'periodic' (two tastes alternating every `every` steps).
 */
export function gaussianWorld({ dim = 16, arms = 2000, noise = 0.5, thetaNorm = 1, seed = 1, change = 'none', at = 2000, period = 8000, every = 1500 } = {}) {
  const random = seededRandom(seed);
  const features = new Float64Array(arms * dim);
  for (let i = 0; i < features.length; i++) features[i] = standardNormal(random) / Math.sqrt(dim);
  const first = gaussianVector(random, dim, thetaNorm);
  const second = gaussianVector(random, dim, thetaNorm);
  const axis = orthogonalTo(first, second);
  const noiseStream = seededRandom(seed + 7919);
  const ids = Uint32Array.from({ length: arms }, (_, i) => i);
  let cachedStep = -1;
  let theta = first;
  let means = null;
  const thetaAt = (t) => {
    // The other taste is orthogonal to the first: what was liked is neither liked nor disliked now.
    if (change === 'switch') return t < at ? first : axis;
    if (change === 'periodic') return Math.floor(t / every) % 2 === 0 ? first : axis;
    if (change === 'rotate') {
      const angle = (2 * Math.PI * t) / period;
      return first.map((value, j) => Math.cos(angle) * value + Math.sin(angle) * axis[j]);
    }
    return first;
  };
  // The arms' means under theta*_t (recomputed when theta* moved).
  const meansAt = (t) => {
    if (t === cachedStep) return means;
    const next = thetaAt(t);
    if (means === null || next !== theta || change === 'rotate') {
      theta = next;
      means = new Float64Array(arms);
      for (let i = 0; i < arms; i++) {
        let sum = 0;
        for (let j = 0; j < dim; j++) sum += features[i * dim + j] * theta[j];
        means[i] = sum;
      }
      means.best = Math.max(...means);
      means.average = means.reduce((a, b) => a + b, 0) / arms;
    }
    cachedStep = t;
    return means;
  };
  return {
    dim, ids, features, change,
    // The switch times a restart oracle knows (rotation has none).
    changeTimes: change === 'switch' ? [at] : change === 'periodic' ? Array.from({ length: 64 }, (_, k) => (k + 1) * every) : [],
    mean: (t, arm) => meansAt(t)[arm],
    best: (t) => meansAt(t).best,
    average: (t) => meansAt(t).average,
    reward: (t, arm) => meansAt(t)[arm] + noise * standardNormal(noiseStream),
  };
}

function readIdx(file) {
  return gunzipSync(readFileSync(`${FASHION}/${file}`));
}

/**
 * Fashion-MNIST's test images (784 pixels, unit norm) with their kinds, the first `count` of them.
 * Null where Debian's dataset-fashion-mnist is not installed.
 */
export function fashionCatalogue(count = 10000) {
  let images;
  let labels;
  try {
    images = readIdx('t10k-images-idx3-ubyte.gz');
    labels = readIdx('t10k-labels-idx1-ubyte.gz');
  } catch {
    return null;
  }
  const n = Math.min(count, images.readUInt32BE(4));
  const dim = 784;
  const features = new Float64Array(n * dim);
  const kinds = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let p = 0; p < dim; p++) norm += images[16 + i * dim + p] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < dim; p++) features[i * dim + p] = images[16 + i * dim + p] / norm;
    kinds[i] = labels[8 + i];
  }
  return { count: n, dim, ids: Uint32Array.from({ length: n }, (_, i) => i), features, kinds };
}

// A shopper clicks an item of the kind they like with this probability, another with the other:
// a random page of 5 then earns 5 (0.1 x 0.3 + 0.9 x 0.022) = 0.25 clicks, a page of liked items 1.5.
export const LIKED_CLICK = 0.3;
export const OTHER_CLICK = 0.022;

/**
 * Shoppers over a Fashion-MNIST catalogue: user u likes kind `before[u]` until page `switchAt`, then
 * kind `after[u]` (another one); clicks drawn from the user's own stream.
 */
export function fashionShoppers({ users = 100, seed = 1, switchAt = 75 } = {}) {
  const random = seededRandom(seed);
  const before = Uint32Array.from({ length: users }, () => Math.floor(random() * 10));
  const after = before.map((kind) => (kind + 1 + Math.floor(random() * 9)) % 10);
  const streams = Array.from({ length: users }, (_, u) => seededRandom(seed * 1000 + u + 1));
  return {
    users, before, after, switchAt,
    liked: (u, page) => (page < switchAt ? before[u] : after[u]),
    click: (u, page, kind) => streams[u]() < (kind === (page < switchAt ? before[u] : after[u]) ? LIKED_CLICK : OTHER_CLICK),
  };
}

/**
 * A Bernoulli linear world (clicks): x = (1, g), g ~ N(0, I / (d - 1)); an arm's click rate is
 * base + spread (g . u) sqrt(d - 1) / 3 clamped to [0.001, 0.999], u a unit taste direction: linear
 * where not clamped, so a linear model is nearly right, as over a real catalogue. `change`: 'none' or
 * 'switch' (u turns to an orthogonal direction at step `at`). Rewards are 0 or 1.
 */
export function bernoulliWorld({ dim = 16, arms = 2000, base = 0.05, spread = 0.5, seed = 1, change = 'none', at = 2000 } = {}) {
  const random = seededRandom(seed);
  const features = new Float64Array(arms * dim);
  for (let i = 0; i < arms; i++) {
    features[i * dim] = 1;
    for (let j = 1; j < dim; j++) features[i * dim + j] = standardNormal(random) / Math.sqrt(dim - 1);
  }
  const first = gaussianVector(random, dim - 1, 1);
  const second = orthogonalTo(first, gaussianVector(random, dim - 1, 1));
  const ratesOf = (u) => {
    const rates = new Float64Array(arms);
    for (let i = 0; i < arms; i++) {
      let dot = 0;
      for (let j = 1; j < dim; j++) dot += features[i * dim + j] * u[j - 1];
      rates[i] = Math.min(0.999, Math.max(0.001, base + (spread * dot * Math.sqrt(dim - 1)) / 3));
    }
    rates.best = Math.max(...rates);
    rates.average = rates.reduce((a, b) => a + b, 0) / arms;
    return rates;
  };
  const tastes = [ratesOf(first), change === 'switch' ? ratesOf(second) : null];
  const ratesAt = (t) => (change === 'switch' && t >= at ? tastes[1] : tastes[0]);
  const clicks = seededRandom(seed + 7919);
  return {
    dim, ids: Uint32Array.from({ length: arms }, (_, i) => i), features, change,
    changeTimes: change === 'switch' ? [at] : [],
    mean: (t, arm) => ratesAt(t)[arm],
    best: (t) => ratesAt(t).best,
    average: (t) => ratesAt(t).average,
    reward: (t, arm) => (clicks() < ratesAt(t)[arm] ? 1 : 0),
  };
}
