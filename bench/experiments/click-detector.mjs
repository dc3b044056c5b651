// Calibrating 'auto''s detector over clicks (issue 51): the Bernoulli likelihood-ratio CUSUM's
// statistic traced with no alarm (likelihoodThreshold 1e6), so that one run gives, for every
// candidate alarm level, the pages until a switch is found and whether a stationary history would
// have raised an alarm. Worlds: Fashion-MNIST shoppers (bench/lib/drift-world.mjs) with the liked kind
// switched after 75 of 150 pages and with no switch; generated stationary Bernoulli linear worlds
// (several d, click rates, seeds), pages of 5.
// The detector is 'auto''s over clicks (LinearModel, issue 51); the internal options
// likelihoodThreshold, dropRatio, likelihoodMargin and alarmKeeps of the forgetting object set it.
//   node bench/experiments/click-detector.mjs [--users=U] [--drop=rho] [--margin=m] [--keep=share] [--warmup=w] [--types=a,b] [--skip-fashion] [--skip-generated]
//     [--trace=U --tracefrom=page] [--pages=P --seeds=S]      peaks of the statistic (no alarm), the pages each level would take
//   node bench/experiments/click-detector.mjs --regain --level=L [--still-only] ...  the drift benchmark's Fashion measure at alarm level L, and
//     the alarms in the same users with no switch
import init from '../../dist/index.js';
import { bernoulliWorld, fashionCatalogue, fashionShoppers } from '../lib/drift-world.mjs';

const CLASSES = { 'lin-ucb': 'LinUCB', 'lin-ts': 'LinTS', 'sub-ts': 'SubTS', 'linear-elim': 'LinearElim', 'sub-elim': 'SubElim' };
const LEVELS = [4, 5, 6, 7, 8, 9, 10, 12, 15];

const args = process.argv.slice(2);
const numberArg = (name, fallback) => {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const textArg = (name, fallback) => {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const drop = numberArg('drop', 0.25);
const margin = numberArg('margin', 0);
const warmUp = numberArg('warmup', 2);
const types = textArg('types', Object.keys(CLASSES).join(',')).split(',');
const traced = numberArg('trace', 0);
const forgetting = { likelihoodThreshold: 1e6, dropRatio: drop, likelihoodMargin: margin, warmUp, alarmKeeps: numberArg('keep', 0) };
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

const sb = await init();
console.log(`drop ratio ${drop}, margin ${margin} widths, warm-up ${warmUp} per dimension`);

// One history: pages of 5, the statistic read after every update; returns its peak before and
// after `from` and, per level, the first page from `from` at which it passed the level.
function history(policy, pages, clickOf, from, trace) {
  let peakBefore = 0;
  let peakAfter = 0;
  let peakPage = -1;
  const found = LEVELS.map(() => Infinity);
  const lines = [];
  for (let page = 0; page < pages; page++) {
    const slate = policy.selectSlate(5);
    for (const arm of slate) {
      const click = clickOf(page, arm);
      policy.update(arm, click);
      const statistic = policy.stats().forgetting.detector.statistic;
      if (trace && page >= numberArg('tracefrom', 0)) lines.push(`${page}:${click}:${statistic.toFixed(2)}`);
      if (page < from) {
        if (statistic > peakBefore) peakPage = page;
        peakBefore = Math.max(peakBefore, statistic);
      }
      else {
        peakAfter = Math.max(peakAfter, statistic);
        LEVELS.forEach((level, k) => {
          if (statistic > level && !Number.isFinite(found[k])) found[k] = page - from;
        });
      }
    }
  }
  if (trace) console.log(lines.join(' '));
  return { peakBefore, peakAfter, found, peakPage };
}

if (!args.includes('--skip-fashion') && !args.includes('--regain')) {
  const data = fashionCatalogue(10000);
  const catalogue = new sb.Catalogue({ dim: data.dim, seed: 1 });
  catalogue.add(data.ids, data.features);
  catalogue.build();
  const users = numberArg('users', 100);
  for (const type of types) {
    const switched = fashionShoppers({ users, seed: 3, switchAt: 75 });
    const stationary = fashionShoppers({ users, seed: 3, switchAt: Infinity });
    const peaks = [];
    const peakPages = [];
    const foundPerLevel = LEVELS.map(() => []);
    for (let u = 0; u < users; u++) {
      for (const [world, isSwitched] of [[stationary, false], [switched, true]]) {
        const user = new sb[CLASSES[type]]({ catalogue, seed: u + 1, forgetting });
        const trace = u < traced;
        if (trace) console.log(`${type} user ${u} ${isSwitched ? 'switched' : 'stationary'}`);
        const run = history(user, 150, (page, arm) => (world.click(u, page, data.kinds[arm]) ? 1 : 0), isSwitched ? 75 : 150, trace);
        user.dispose();
        if (isSwitched) run.found.forEach((page, k) => foundPerLevel[k].push(page));
        else {
          peaks.push(run.peakBefore);
          peakPages.push(run.peakPage);
        }
      }
    }
    console.log(`fashion ${type}: stationary peak of the statistic over ${users} users: median ${median(peaks).toFixed(2)}, 90% ${quantile(peaks, 0.9).toFixed(2)}, max ${Math.max(...peaks).toFixed(2)}`);
    console.log(`  the highest peaks (statistic@page): ${peaks.map((p, i) => [p, peakPages[i]]).sort((a, b) => b[0] - a[0]).slice(0, 8).map(([p, g]) => `${p.toFixed(1)}@${g}`).join(' ')}`);
    console.log(`  level: ${LEVELS.map((level, k) => `${level}: alarms ${peaks.filter((p) => p > level).length}, found ${foundPerLevel[k].filter(Number.isFinite).length}/${users}, median page ${median(foundPerLevel[k])}`).join(' | ')}`);
  }
  catalogue.dispose();
}

if (!args.includes('--skip-generated') && !args.includes('--regain')) {
  const pages = numberArg('pages', 300);
  const seeds = numberArg('seeds', 3);
  const settings = [];
  for (const dim of [8, 16, 32]) {
    for (const [base, spread] of [[0.02, 0.25], [0.05, 0.5], [0.1, 0.3]]) settings.push({ dim, base, spread });
  }
  for (const type of types) {
    const peaks = [];
    for (const setting of settings) {
      for (let seed = 1; seed <= seeds; seed++) {
        const world = bernoulliWorld({ ...setting, arms: 2000, seed });
        const policy = new sb[CLASSES[type]]({ dim: setting.dim, seed, forgetting });
        policy.addArms(world.ids, world.features);
        let step = 0;
        const run = history(policy, pages, (page, arm) => world.reward(step++, arm), pages, false);
        policy.dispose();
        peaks.push(run.peakBefore);
        if (run.peakBefore > 6) console.log(`  ${type} d ${setting.dim} base ${setting.base} spread ${setting.spread} seed ${seed}: peak ${run.peakBefore.toFixed(2)}`);
      }
    }
    console.log(`generated ${type}: peak over ${peaks.length} histories of ${pages} pages: median ${median(peaks).toFixed(2)}, 90% ${quantile(peaks, 0.9).toFixed(2)}, max ${Math.max(...peaks).toFixed(2)}; above ${LEVELS.map((level) => `${level}: ${peaks.filter((p) => p > level).length}`).join(', ')}`);
  }
}

// --regain: the drift benchmark's Fashion measure with these settings as the alarm (likelihoodThreshold
// --level): pages to regain 80% against a fresh model, changes found a user, and the changes found in
// the same users with no switch (false alarms).
if (args.includes('--regain')) {
  const { regainedAt } = await import('../drift.mjs');
  const data = fashionCatalogue(10000);
  const catalogue = new sb.Catalogue({ dim: data.dim, seed: 1 });
  catalogue.add(data.ids, data.features);
  catalogue.build();
  const users = numberArg('users', 100);
  const pages = 150;
  const switchAt = 75;
  const settings = { ...forgetting, likelihoodThreshold: numberArg('level', 10) };
  const perPage = (options, type, startPage, at) => {
    const clicks = new Float64Array(pages);
    const shoppers = fashionShoppers({ users, seed: 3, switchAt: at });
    let changes = 0;
    let usersWithChanges = 0;
    for (let u = 0; u < users; u++) {
      const user = new sb[CLASSES[type]]({ catalogue, seed: u + 1, ...options });
      for (let page = startPage; page < pages; page++) {
        for (const arm of user.selectSlate(5)) {
          const click = shoppers.click(u, page, data.kinds[arm]) ? 1 : 0;
          clicks[page] += click / users;
          user.update(arm, click);
        }
      }
      const found = user.stats().forgetting.changes;
      changes += found;
      usersWithChanges += found > 0 ? 1 : 0;
      user.dispose();
    }
    return { clicks, changes, usersWithChanges };
  };
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const span = (clicks, from, to) => mean(Array.from(clicks.subarray(from, to)));
  for (const type of types) {
    if (args.includes('--still-only')) {
      const still = perPage({ forgetting: settings }, type, 0, Infinity);
      console.log(`${type} level ${settings.likelihoodThreshold} margin ${margin} drop ${drop}, no switch: ${still.changes} changes in ${still.usersWithChanges} of ${users} users`);
      continue;
    }
    const fresh = perPage({ forgetting: 'none' }, type, switchAt, switchAt);
    const run = perPage({ forgetting: settings }, type, 0, switchAt);
    const still = perPage({ forgetting: settings }, type, 0, Infinity);
    const before = span(run.clicks, switchAt - 25, switchAt);
    const level = 0.25 + 0.8 * (before - 0.25);
    const regained = regainedAt(run.clicks, switchAt, level, 5);
    const freshPages = regainedAt(fresh.clicks, switchAt, level, 5);
    console.log(`${type} level ${settings.likelihoodThreshold} margin ${margin} drop ${drop}: before ${before.toFixed(2)}, end ${span(run.clicks, pages - 15, pages).toFixed(2)}, ` +
      `regained ${regained} vs fresh ${freshPages} (${(regained / freshPages).toFixed(2)}x), changes a user ${(run.changes / users).toFixed(2)}; ` +
      `no switch: ${still.changes} changes in ${still.usersWithChanges} of ${users} users, clicks ${span(still.clicks, 0, pages).toFixed(3)}`);
  }
  catalogue.dispose();
}
