// One run of `bench live` (bench/live.mjs): a catalogue changing while SubTS users are served, and
// the same users over a frozen one. Pure computation through the public API, shared by Node and the
// Chromium page, so both run the same code on the same numbers; returns plain data.
import { percentile, unitRows } from './catalogue-run.mjs';
import { seededRandom, standardNormal } from './seeded-random.mjs';

export const CATEGORIES = 50;
const CHUNK = 25000;

// The catalogue of `items` Gaussian rows, a category label each, a price in [1, 100] and a stock in
// 0..9 (a tenth out of stock), its graph built before serving starts.
function makeCatalogue(sb, options, features) {
  const { items, dim, storage } = options;
  const random = seededRandom(7);
  const catalogue = new sb.Catalogue({ dim, seed: 1, index: { type: 'hnsw', storage } });
  for (let first = 0; first < items; first += CHUNK) {
    const count = Math.min(CHUNK, items - first);
    const ids = Uint32Array.from({ length: count }, (_, i) => first + i);
    const labels = Uint32Array.from(ids, (id) => id % CATEGORIES);
    const price = Float64Array.from(ids, () => 1 + Math.floor(random() * 100));
    const stock = Float64Array.from(ids, () => Math.floor(random() * 10));
    catalogue.add(ids, features.subarray(first * dim, (first + count) * dim), { labels, values: { price, stock } });
  }
  catalogue.build();
  return catalogue;
}

// Serves `calls` calls over `catalogue` (users in turn), applying the changes due when `live`.
// Returns the times of each kind of call (ms) and the mean reward of what was shown.
function serve(sb, catalogue, features, options, live) {
  const { dim, users, calls, attributeRate, featureRate, slateShare, items } = options;
  const tastes = unitRows(users, dim, 777);
  const served = Array.from({ length: users }, (_, u) => new sb.SubTS({ catalogue, seed: u + 1 }));
  // Each run's own copy of the features (changed ones included) gives the rewards.
  const current = Float64Array.from(features);
  const noise = seededRandom(99);
  const choice = seededRandom(5);
  const changes = seededRandom(11);
  const times = { select: [], slate: [], setValues: [], setFeatures: [] };
  let reward = 0;
  let shown = 0;
  const rewardOf = (arm, u) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += current[arm * dim + j] * tastes[u * dim + j];
    return sum;
  };
  const started = performance.now();
  let attributesDone = 0;
  let featuresDone = 0;
  for (let call = 0; call < calls; call++) {
    if (live) {
      const elapsed = (performance.now() - started) / 1000;
      const attributesDue = Math.floor(elapsed * attributeRate) - attributesDone;
      if (attributesDue > 0) {
        // Half the changes flip stock (to 0 or back to a few), half move a price.
        const ids = Uint32Array.from({ length: attributesDue }, () => Math.floor(changes() * items));
        const unique = Uint32Array.from(new Set(ids));
        const t0 = performance.now();
        if (changes() < 0.5) {
          catalogue.setValues(unique, { stock: Float64Array.from(unique, () => (changes() < 0.5 ? 0 : 1 + Math.floor(changes() * 9))) });
        } else {
          catalogue.setValues(unique, { price: Float64Array.from(unique, () => 1 + Math.floor(changes() * 100)) });
        }
        times.setValues.push(performance.now() - t0);
        attributesDone += attributesDue;
      }
      const featuresDue = Math.floor(elapsed * featureRate) - featuresDone;
      if (featuresDue > 0) {
        const unique = Uint32Array.from(new Set(Array.from({ length: featuresDue }, () => Math.floor(changes() * items))));
        const rows = new Float64Array(unique.length * dim);
        for (let i = 0; i < rows.length; i++) rows[i] = standardNormal(changes);
        const t0 = performance.now();
        catalogue.setFeatures(unique, rows);
        times.setFeatures.push(performance.now() - t0);
        unique.forEach((id, i) => current.set(rows.subarray(i * dim, (i + 1) * dim), id * dim));
        featuresDone += featuresDue;
      }
    }
    const u = call % users;
    const user = served[u];
    if (choice() < slateShare) {
      const low = 1 + Math.floor(choice() * 50);
      const filters = { labels: [Math.floor(choice() * CATEGORIES)], where: { stock: [1, Infinity], price: [low, low + 50] } };
      const t0 = performance.now();
      const decision = user.decideSlate(10, filters);
      times.slate.push(performance.now() - t0);
      const rewards = Array.from(decision.arms, (arm) => rewardOf(arm, u) + standardNormal(noise));
      user.reward(decision.eventId, rewards);
      rewards.forEach((r) => { reward += r; });
      shown += decision.arms.length;
    } else {
      const t0 = performance.now();
      const arm = user.select();
      times.select.push(performance.now() - t0);
      const r = rewardOf(arm, u) + standardNormal(noise);
      user.update(arm, r);
      reward += r;
      shown++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  served.forEach((user) => user.dispose());
  return { times, meanReward: reward / shown, seconds, attributesDone, featuresDone };
}

export function summary(values) {
  if (values.length === 0) return ['—', '—', '—', '—', 0];
  return [values.length, percentile(values, 0.5), percentile(values, 0.99), Math.max(...values), values.filter((v) => v > 50).length];
}

// Both runs, live then frozen, each over a catalogue of its own built from the same features.
export function runLive(sb, options, progress = () => {}) {
  const random = seededRandom(12345);
  const features = new Float64Array(options.items * options.dim);
  for (let i = 0; i < features.length; i++) features[i] = standardNormal(random);
  const runs = {};
  for (const [name, live] of [['live', true], ['frozen', false]]) {
    progress(name === 'live' ? 0 : 0.5, `${name}: catalogue`);
    const started = performance.now();
    const catalogue = makeCatalogue(sb, options, features);
    const buildSeconds = (performance.now() - started) / 1000;
    progress(name === 'live' ? 0.2 : 0.7, `${name}: serving`);
    const run = serve(sb, catalogue, features, options, live);
    catalogue.dispose();
    // Times as their summaries (the raw arrays do not cross from the page).
    runs[name] = { ...run, buildSeconds, times: Object.fromEntries(Object.entries(run.times).map(([kind, values]) => [kind, summary(values)])) };
  }
  progress(1, 'done');
  return runs;
}
