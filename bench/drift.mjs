// Tastes that change (issue 51): every linear policy with forgetting 'none', 'auto' (the default),
// discounts (D-LinUCB's exponential weights), sliding windows (SW-LinUCB) and a restart oracle that
// knows the switch times (Zhao et al. 2020's restarts, with the change points given), on
//   - Gaussian worlds (d = 16, 2,000 arms, noise 0.5, |theta*| = 1): no change, an abrupt switch of
//     theta* at step 2,000, a rotation of theta* once every 8,000 steps, two tastes alternating every
//     1,500 steps; T = 6,000, three seeds;
//   - Fashion-MNIST shoppers: 10,000 test images (784 unit-norm pixels) as one catalogue, users with
//     a liked kind (a click on a liked item with probability 0.3, another 0.022: 0.25 clicks a
//     random page of 5), pages of 5 (selectSlate), the liked kind switched after 75 of 150 pages.
// Regret is the sum of (best mean - chosen mean). "Regained" is the number of steps (pages) after
// the switch until the policy's reward, averaged over a window, is back at 80% of its level before
// the switch (measured above random play), against what a fresh model needs from its first step to
// reach the same level on the new taste. First, what 'auto' costs a step where nothing changes.
//   npm run bench -- drift [--seeds=S] [--users=U] [--steps=T] [--skip-cost] [--skip-gaussian] [--skip-fashion]
import init from '../dist/index.js';
import { fashionCatalogue, fashionShoppers, gaussianWorld } from './lib/drift-world.mjs';
import { numberArg } from './lib/args.mjs';

const CLASSES = { 'lin-ucb': 'LinUCB', 'lin-ts': 'LinTS', 'sub-ts': 'SubTS', 'linear-elim': 'LinearElim', 'sub-elim': 'SubElim' };

const VARIANTS = [
  ['none', { forgetting: 'none' }],
  ['auto (default)', {}],
  ['discount 0.99 (D-LinUCB)', { forgetting: { discount: 0.99 } }],
  ['discount 0.998', { forgetting: { discount: 0.998 } }],
  ['window 500 (SW-LinUCB)', { forgetting: { window: 500 } }],
  ['window 2000', { forgetting: { window: 2000 } }],
  ['restart oracle', { forgetting: 'none' }, { oracle: true }],
];

// The first index from `from` at which the average of `series` over `window` entries reaches `level`.
export function regainedAt(series, from, level, window) {
  let sum = 0;
  for (let t = from; t < series.length; t++) {
    sum += series[t];
    if (t - from >= window) sum -= series[t - window];
    const count = Math.min(window, t - from + 1);
    if (count === window && sum / count >= level) return t - from - window + 1;
  }
  return Infinity;
}

// One policy's run on a Gaussian world: per step, its reward above random play over the best's.
function runGaussian(sb, type, options, world, steps, { oracle = false, startAt = 0 } = {}) {
  const policy = new sb[CLASSES[type]]({ dim: world.dim, seed: 5, ...options });
  policy.addArms(world.ids, world.features);
  const normalised = new Float64Array(steps);
  let regret = 0;
  const started = performance.now();
  for (let s = 0; s < steps; s++) {
    const t = startAt + s;
    if (oracle && world.changeTimes.includes(t)) policy.forget(0);
    const arm = policy.select();
    policy.update(arm, world.reward(t, arm));
    const mean = world.mean(t, arm);
    regret += world.best(t) - mean;
    normalised[s] = (mean - world.average(t)) / (world.best(t) - world.average(t));
  }
  const stats = policy.stats().forgetting;
  policy.dispose();
  return { regret, normalised, changes: stats.changes, msPerStep: (performance.now() - started) / steps };
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const pagesText = (value, limit) => (Number.isFinite(value) ? String(Math.round(value)) : `not in ${limit}`);

function gaussian(sb, args, report) {
  const seeds = numberArg(args, 'seeds', 3);
  const steps = numberArg(args, 'steps', 6000);
  const scenarios = [
    ['no change', { change: 'none' }],
    ['switch at 2,000', { change: 'switch', at: 2000 }],
    ['rotation, period 8,000', { change: 'rotate', period: 8000 }],
    ['alternating every 1,500', { change: 'periodic', every: 1500 }],
  ];
  const window = 200;
  const rows = [];
  const recovery = [];
  for (const type of Object.keys(CLASSES)) {
    const noneRegret = {};
    for (const [variant, options, extra = {}] of VARIANTS) {
      const row = [type, variant];
      let falseAlarms = 0;
      let ms = 0;
      for (const [scenario, change] of scenarios) {
        const regrets = [];
        const regained = [];
        const fresh = [];
        for (let seed = 1; seed <= seeds; seed++) {
          const world = gaussianWorld({ seed, ...change });
          const run = runGaussian(sb, type, options, world, steps, extra);
          regrets.push(run.regret);
          ms += run.msPerStep;
          if (change.change === 'none') falseAlarms += run.changes;
          if (change.change === 'switch') {
            const level = 0.8 * mean(Array.from(run.normalised.subarray(change.at - 500, change.at)));
            regained.push(regainedAt(run.normalised, change.at, level, window));
            // A fresh model of the same options on the new taste, from its first step.
            const newborn = runGaussian(sb, type, options, world, steps - change.at, { startAt: change.at });
            fresh.push(regainedAt(newborn.normalised, 0, level, window));
          }
        }
        const regret = mean(regrets);
        if (variant === 'none') noneRegret[scenario] = regret;
        row.push(`${regret.toFixed(0)} (${(regret / noneRegret[scenario]).toFixed(2)}x)`);
        if (change.change === 'switch') {
          const [late, newborn] = [median(regained), median(fresh)];
          const ratio = Number.isFinite(late) && Number.isFinite(newborn) ? (late / Math.max(1, newborn)).toFixed(2) : '-';
          recovery.push([type, variant, pagesText(late, steps - change.at), pagesText(newborn, steps - change.at), ratio]);
        }
      }
      row.push(falseAlarms, (ms / (seeds * scenarios.length)).toFixed(3));
      rows.push(row);
      report.progress(rows.length / (Object.keys(CLASSES).length * VARIANTS.length), `${type} ${variant}`);
    }
  }
  report.table(`Gaussian worlds: regret over ${steps} steps (mean of ${seeds} seeds; x none's), d = 16, 2,000 arms, noise 0.5, |theta*| = 1`,
    ['policy', 'forgetting', ...scenarios.map(([name]) => name), `changes found with no change (${seeds} runs)`, 'ms a step'], rows);
  report.table(`Gaussian switch at 2,000: steps until the reward (mean over ${window} steps, above random play) is back at 80% of its level before the switch, against a fresh model of the same options on the new theta* (medians of ${seeds} seeds)`,
    ['policy', 'forgetting', 'regained after', 'fresh model', 'ratio'], recovery);
}

// What the default costs where nothing changes: every policy with 'auto' and with 'none' on the same
// stationary world, stepped in turn (blocks of 250 steps, each policy's blocks timed), so that both
// see the same machine; the policies' choices are the same (no change is found), the time the
// detector's O(d) an update adds.
function stepCost(sb, args, report) {
  const rows = [];
  for (const [dim, arms] of [[16, 2000], [32, 20000]]) {
    const world = gaussianWorld({ dim, arms, seed: 1 });
    for (const type of Object.keys(CLASSES)) {
      const policies = ['none', 'auto'].map((forgetting) => {
        const policy = new sb[CLASSES[type]]({ dim, seed: 5, forgetting });
        policy.addArms(world.ids, world.features);
        return policy;
      });
      const ms = [0, 0];
      const steps = 3000;
      for (let block = 0; block < steps / 250; block++) {
        policies.forEach((policy, p) => {
          const started = performance.now();
          for (let t = block * 250; t < (block + 1) * 250; t++) {
            const arm = policy.select();
            policy.update(arm, world.reward(t, arm));
          }
          ms[p] += performance.now() - started;
        });
      }
      const changes = policies[1].stats().forgetting.changes;
      policies.forEach((policy) => policy.dispose());
      rows.push([type, dim, arms, (ms[0] / steps).toFixed(4), (ms[1] / steps).toFixed(4), (ms[1] / ms[0]).toFixed(2), changes]);
    }
  }
  report.table('The default\'s cost where nothing changes: ms a step (select + update) with forgetting \'none\' and \'auto\', stepped in turn on one stationary Gaussian world (noise 0.5), 3,000 steps',
    ['policy', 'd', 'arms', '\'none\'', '\'auto\'', 'auto / none', 'changes found'], rows);
}

// The Fashion-MNIST shoppers: per policy and forgetting, clicks per page before the switch, just
// after it, at the end, and the pages until 80% of the rate before it is regained.
function fashion(sb, args, report) {
  const catalogueData = fashionCatalogue(10000);
  if (catalogueData === null) {
    report.note('Fashion-MNIST is not installed (Debian dataset-fashion-mnist): the shoppers were not run.');
    return;
  }
  const users = numberArg(args, 'users', 100);
  const pages = 150;
  const switchAt = 75;
  const catalogue = new sb.Catalogue({ dim: catalogueData.dim, seed: 1 });
  catalogue.add(catalogueData.ids, catalogueData.features);
  catalogue.build();
  const rows = [];
  const perPage = (variant, type, startPage) => {
    const clicks = new Float64Array(pages);
    const shoppers = fashionShoppers({ users, seed: 3, switchAt });
    let changes = 0;
    for (let u = 0; u < users; u++) {
      const user = new sb[CLASSES[type]]({ catalogue, seed: u + 1, ...variant });
      for (let page = startPage; page < pages; page++) {
        const slate = user.selectSlate(5);
        for (const arm of slate) {
          const click = shoppers.click(u, page, catalogueData.kinds[arm]) ? 1 : 0;
          clicks[page] += click / users;
          user.update(arm, click);
        }
      }
      changes += user.stats().forgetting.changes;
      user.dispose();
    }
    return { clicks, changes };
  };
  const span = (clicks, from, to) => mean(Array.from(clicks.subarray(from, to)));
  for (const type of Object.keys(CLASSES)) {
    const fresh = perPage({ forgetting: 'none' }, type, switchAt);
    for (const [variant, options] of [['none', { forgetting: 'none' }], ['auto (default)', {}]]) {
      const started = performance.now();
      const { clicks, changes } = perPage(options, type, 0);
      const before = span(clicks, switchAt - 25, switchAt);
      const level = 0.25 + 0.8 * (before - 0.25);
      const regained = regainedAt(clicks, switchAt, level, 5);
      const freshPages = regainedAt(fresh.clicks, switchAt, level, 5);
      rows.push([type, variant, before.toFixed(2), span(clicks, switchAt, switchAt + 10).toFixed(2), span(clicks, pages - 15, pages).toFixed(2),
        Number.isFinite(regained) ? regained : `not in ${pages - switchAt}`, Number.isFinite(freshPages) ? freshPages : `not in ${pages - switchAt}`,
        (changes / users).toFixed(2), ((performance.now() - started) / (users * pages)).toFixed(2)]);
      report.progress(rows.length / 10, `fashion ${type} ${variant}`);
    }
  }
  catalogue.dispose();
  report.table(`Fashion-MNIST shoppers: ${users} users over one catalogue of 10,000 images (784 pixels), pages of 5, the liked kind switched after ${switchAt} of ${pages} pages (random pages: 0.25 clicks)`,
    ['policy', 'forgetting', `clicks a page, pages ${switchAt - 25}-${switchAt}`, `pages ${switchAt}-${switchAt + 10}`, `pages ${pages - 15}-${pages}`,
      'pages to regain 80% (above random)', 'a fresh model', 'changes found a user', 'ms a page'], rows);
}

export default async function drift(args, report) {
  const sb = await init();
  if (!args.includes('--skip-cost')) stepCost(sb, args, report);
  if (!args.includes('--skip-gaussian')) gaussian(sb, args, report);
  if (!args.includes('--skip-fashion')) fashion(sb, args, report);
}
