// A shop's day on a live catalogue (issue 53, point 3): one Catalogue, many SubTS users served in
// turn, while stock flips (setValues), prices change (setValues) and items are re-described
// (setFeatures) at fixed rates on the serving thread, as a shop's one process would. Each call is
// timed: select (+ update) and decideSlate(10) with a combined filter (a category, in stock, a
// price range; + reward), and the changes themselves. The same users with the same seeds are then
// served again over a frozen copy of the catalogue (no changes): the reward per call of the two runs
// says what the changes cost the users' learning.
//   npm run bench -- live [--items=1000000] [--dim=32] [--users=10000] [--calls=100000]
//                         [--attributeRate=1000] [--featureRate=100] [--storage=f32|int8] [--slateShare=0.3]
// Rates are per second of the serving loop's wall time (changes due are applied before the next
// call). Node; the Chromium page is not built (see docs/status.md).
import init from '../dist/index.js';
import { loadavg } from 'node:os';
import { percentile, unitRows } from './lib/catalogue-run.mjs';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';

const CATEGORIES = 50;
const CHUNK = 25000;

function parseArgs(args) {
  const value = (name, fallback) => {
    const found = args.find((a) => a.startsWith(`--${name}=`));
    return found ? found.slice(name.length + 3) : fallback;
  };
  return {
    items: Number(value('items', 1000000)), dim: Number(value('dim', 32)), users: Number(value('users', 10000)),
    calls: Number(value('calls', 100000)), attributeRate: Number(value('attributeRate', 1000)), featureRate: Number(value('featureRate', 100)),
    storage: value('storage', 'f32'), slateShare: Number(value('slateShare', 0.3)),
  };
}

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

function summary(values) {
  if (values.length === 0) return ['—', '—', '—', '—', 0];
  return [values.length, percentile(values, 0.5), percentile(values, 0.99), Math.max(...values), values.filter((v) => v > 50).length];
}

export default async function live(args, report) {
  const options = parseArgs(args);
  const sb = await init();
  report.note(`Configuration: ${options.items} x ${options.dim} Gaussian items (${CATEGORIES} categories, price 1-100, stock 0-9), index HNSW ` +
    `(the catalogue's default graph, storage ${options.storage}), graph built before serving; ${options.users} SubTS users (defaults) served in turn, ` +
    `${options.calls} calls a run, ${Math.round(options.slateShare * 100)}% of them decideSlate(10) with { labels: [a category], where: { stock: [1, Infinity], ` +
    `price: [p, p + 50] } } and reward(), the rest select() and update(); rewards x^T theta_u + N(0, 1) with unit-norm tastes. Live run: ` +
    `${options.attributeRate} attribute changes a second (setValues: stock flips or prices) and ${options.featureRate} feature changes a second ` +
    `(setFeatures), applied on the serving thread before the next call once due. ${sb.threads} module threads (${sb.threadsReason}).`);
  report.note(`Machine load at the start (1, 5, 15 min averages): ${loadavg().map((x) => x.toFixed(2)).join(', ')}.`);
  report.data('configuration', options);
  const random = seededRandom(12345);
  const features = new Float64Array(options.items * options.dim);
  for (let i = 0; i < features.length; i++) features[i] = standardNormal(random);

  const runs = {};
  for (const [name, live] of [['live', true], ['frozen', false]]) {
    report.progress(name === 'live' ? 0 : 0.5, `${name}: catalogue`);
    const started = performance.now();
    const catalogue = makeCatalogue(sb, options, features);
    const buildSeconds = (performance.now() - started) / 1000;
    report.progress(name === 'live' ? 0.2 : 0.7, `${name}: serving`);
    runs[name] = { ...serve(sb, catalogue, features, options, live), buildSeconds };
    catalogue.dispose();
  }
  report.progress(1, 'done');
  const { live: changing, frozen } = runs;
  report.table(`Call times (ms), ${options.items} x ${options.dim}, ${options.users} users: the live run (changes while serving) and the frozen one`,
    ['call', 'run', 'calls', 'p50', 'p99', 'max', 'over 50 ms'], [
      ['select', 'live', ...summary(changing.times.select)],
      ['select', 'frozen', ...summary(frozen.times.select)],
      ['decideSlate(10), combined filter', 'live', ...summary(changing.times.slate)],
      ['decideSlate(10), combined filter', 'frozen', ...summary(frozen.times.slate)],
      ['setValues (a batch of the changes due)', 'live', ...summary(changing.times.setValues)],
      ['setFeatures (a batch of the changes due)', 'live', ...summary(changing.times.setFeatures)],
    ]);
  report.table('The users\' learning: mean reward of what was shown (rewards of the features at the time), live against frozen',
    ['run', 'mean reward a shown item', 'attribute changes', 'feature changes', 'serving seconds', 'catalogue build seconds'], [
      ['live', changing.meanReward, changing.attributesDone, changing.featuresDone, changing.seconds, changing.buildSeconds],
      ['frozen', frozen.meanReward, 0, 0, frozen.seconds, frozen.buildSeconds],
    ]);
  report.note(`Machine load at the end (1, 5, 15 min averages): ${loadavg().map((x) => x.toFixed(2)).join(', ')}. The times are wall-clock on a machine ` +
    'shared with other work; the load says how far to trust them.');
  report.data('runs', Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, { ...run, times: Object.fromEntries(
    Object.entries(run.times).map(([kind, values]) => [kind, summary(values)])) }])));
}
