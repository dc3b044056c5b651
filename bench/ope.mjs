// Off-policy evaluation (issue 54, docs/evaluation.md): on generated shops (bench/lib/logged-shop.mjs:
// 40 items, d = 8, users with hidden tastes and binary clicks), for each estimator of sb.evaluate and
// each reward model of dm and dr: how often its 95% interval covers the truth, its mean width and the
// time of one evaluation.
//   - one policy on clicks: one user's clicks, logistic or threshold (not logistic) in the features,
//     3,000 records of a uniform logger or of one preferring some items (propensities 1 to 4 in 100);
//     the target LinTS trained on 40 clicks, frozen; the truth sum_a pi(a) P(click | a), pi from
//     20,000 selections;
//   - a frozen population: 80 users, each logged by its own LinUCB exploring with the mix 0.5 after 50
//     unlogged steps, 100 records a user; the candidate every user's model as the logging left it,
//     the baseline the same with a quarter of the users started over; the truth each model's own
//     choice on the simulator. Once with tastes of their own, once with one taste for every user
//     (what a pooled reward model assumes);
//   - learning: every user from scratch with LinUCB, over 20 items (400 records a user), by replay
//     with rejection; the truth each user's LinUCB run online for the report's horizon.
//   - whole pages (--pages alone, saved as ope-pages: npm run bench -- ope --pages):
//     page-ips and page-pi on bench/lib/page-shop.mjs's shops (20 to 30 items, d = 5, clicks of a
//     position-based model, pages of 5 to 10, 2,000 logged pages); the target a frozen LinUCB or LinTS
//     trained on 60 clicks, the truth its page's expected clicks (LinTS: over 2,000 of its pages); the
//     loggers uniform without replacement, or LinUCB's exploration mix (0.5, 0.1) through decideSlate()
//     (page-pi reading its policyArms).
//     Then cascade clicks (8 items, pages of 3, 20,000 logged pages: page-cascade's weights are the
//     inverse of a whole prefix's probability, so it needs small shops and many pages): page-cascade
//     beside page-ips and page-pi, the target a frozen LinUCB (page-cascade takes deterministic
//     targets), the loggers uniform or the exploration mix 0.5, both with prefixPropensities.
//     Then a population (evaluate with users) on bench/lib/population-page-shop.mjs's shops (20 items,
//     d = 4, 40 users with tastes of their own, position-based clicks, 30 pages of 5 or 10 per user): a
//     frozen LinUCB population (each user trained on 60 clicks) against a weaker one (5 clicks), and a
//     learning LinUCB population from scratch; the loggers uniform without replacement or each user's
//     LinUCB with the exploration mix 0.5 through decideSlate(); the truth the population run on the
//     simulator (learning: online, each position's click learned with the report's acceptance).
//   npm run bench -- ope [--seeds=S] [--pages [--population --save-as ope-pages-population]]
import init from '../dist/index.js';
import { frozenTruth, logShop, makeShop, onlineMean } from './lib/logged-shop.mjs';
import { makePageShop, uniformLogger, writeCascadeLog, writePageLog } from './lib/page-shop.mjs';
import { numberArg } from './lib/args.mjs';
import { frozenPageTruth, learningPageTruth, logPopulationPages, makePopulationPageShop, trainedStates } from './lib/population-page-shop.mjs';

const covers = (estimate, truth) => estimate.low <= truth && truth <= estimate.high;

// One policy's log of `records` clicks of user 0 by a logger choosing item i with probability
// proportional to 1 (uniform) or 1 + i % 4.
function logOneUser(shop, records, uniform) {
  const weights = shop.ids.map((_, i) => (uniform ? 1 : 1 + (i % 4)));
  const total = weights.reduce((a, b) => a + b, 0);
  const log = { arms: new Uint32Array(records), rewards: new Float64Array(records), propensities: new Float64Array(records) };
  for (let t = 0; t < records; t++) {
    let u = shop.random() * total;
    let i = 0;
    while (i + 1 < weights.length && u >= weights[i]) u -= weights[i++];
    log.arms[t] = shop.ids[i];
    log.rewards[t] = shop.click(0, shop.ids[i]);
    log.propensities[t] = weights[i] / total;
  }
  return log;
}

// The page estimators' coverage of the target's page value, mean width and time (the --pages section).
function pages(sb, seeds, report) {
  const rows = new Map();
  for (let seed = 1; seed <= seeds; seed++) {
    const size = 5 + (seed % 6);
    for (const type of ['LinUCB', 'LinTS']) {
      const shop = makePageShop(sb, 300 + seed, { items: 20 + 5 * (seed % 3) });
      const target = shop.policy(60, { Class: sb[type] });
      let truth = 0;
      if (type === 'LinUCB') {
        truth = shop.pageValue(target.selectSlate(size));
      } else {
        const copy = sb.LinTS.fromBytes(target.toBytes());
        for (let i = 0; i < 2000; i++) truth += shop.pageValue(copy.selectSlate(size)) / 2000;
        copy.dispose();
      }
      const loggers = type === 'LinUCB' ? [['uniform', 0], ['exploration mix 0.5', 0.5], ['exploration mix 0.1', 0.1]] : [['uniform', 0], ['exploration mix 0.5', 0.5]];
      for (const [name, explore] of loggers) {
        const logger = explore > 0 ? shop.policy(20, { explore }) : undefined;
        // The mix's lines carry decideSlate()'s policyArms, which page-pi reads.
        const log = sb.parseDecisionLog(writePageLog(sb, shop, 2000, size, logger));
        logger?.dispose();
        for (const estimator of ['page-ips', 'page-pi']) {
          const started = performance.now();
          const estimate = sb.evaluate({ policy: target, log, estimators: [estimator] })[estimator];
          const ms = performance.now() - started;
          const key = `${type}, ${name}: ${estimator}`;
          const row = rows.get(key) ?? { covered: 0, width: 0, ms: 0, runs: 0, truth: 0 };
          row.covered += estimate.low <= truth && truth <= estimate.high ? 1 : 0;
          row.width += estimate.high - estimate.low;
          row.truth += truth;
          row.ms += ms;
          row.runs += 1;
          rows.set(key, row);
        }
      }
      target.dispose();
    }
    report.progress(seed / seeds, `seed ${seed}`);
  }
  report.table(`Whole pages: 95% intervals covering the target's page value, their mean width and the time of one sb.evaluate (wasm in Node), seeds 1-${seeds}`,
    ['target, logger: estimator', 'covered', 'mean width', 'mean page value', 'ms an evaluation'],
    [...rows].map(([key, row]) => [key, `${row.covered} of ${row.runs}`, (row.width / row.runs).toFixed(3), (row.truth / row.runs).toFixed(3), (row.ms / row.runs).toFixed(0)]));
  report.note('2,000 logged pages of 5 to 10 positions (10,000 to 20,000 records) over 20 to 30 items, clicks of a position-based model; ' +
    'the target trained on 60 clicks and frozen; LinTS\'s choice probabilities from the default 1,000 draws per position. The exploration mix: a LinUCB ' +
    'trained on 20 clicks (frozen while it logs) through decideSlate(), whose policyArms page-pi reads.');
}

// Cascade clicks (the user scans a page from the top and stops at the first click): page-cascade, which
// weighs each position by the prefix's propensities, beside page-ips and page-pi, which read each
// position on its own and so credit the target for clicks below items it would not show.
function cascadePages(sb, seeds, report) {
  const items = 8;
  const size = 3;
  const pageCount = 20000;
  const rows = new Map();
  for (let seed = 1; seed <= seeds; seed++) {
    const shop = makePageShop(sb, 500 + seed, { items });
    // A deterministic target (page-cascade refuses Thompson sampling's): its page is its own slate.
    const target = shop.policy(60);
    const truth = shop.cascadeValue(target.selectSlate(size));
    for (const [name, explore] of [['uniform', 0], ['exploration mix 0.5', 0.5]]) {
      const logger = explore > 0 ? shop.policy(20, { explore }) : uniformLogger(shop);
      const log = sb.parseDecisionLog(writeCascadeLog(sb, shop, pageCount, size, logger));
      if (explore > 0) logger.dispose();
      // page-pi reads a uniform logger's pages only.
      for (const estimator of explore > 0 ? ['page-cascade', 'page-ips'] : ['page-cascade', 'page-ips', 'page-pi']) {
        const started = performance.now();
        const estimate = sb.evaluate({ policy: target, log, estimators: [estimator] })[estimator];
        const ms = performance.now() - started;
        const key = `LinUCB, ${name}: ${estimator}`;
        const row = rows.get(key) ?? { covered: 0, width: 0, error: 0, ms: 0, runs: 0, truth: 0 };
        row.covered += estimate.low <= truth && truth <= estimate.high ? 1 : 0;
        row.width += estimate.high - estimate.low;
        row.error += estimate.value - truth;
        row.truth += truth;
        row.ms += ms;
        row.runs += 1;
        rows.set(key, row);
      }
    }
    target.dispose();
    report.progress(seed / seeds, `cascade seed ${seed}`);
  }
  report.table(`Cascade clicks: 95% intervals covering the target's page value, their mean width, the mean error and the time of one sb.evaluate (wasm in Node), seeds 1-${seeds}`,
    ['target, logger: estimator', 'covered', 'mean width', 'mean error', 'mean page value', 'ms an evaluation'],
    [...rows].map(([key, row]) => [key, `${row.covered} of ${row.runs}`, (row.width / row.runs).toFixed(3), (row.error / row.runs).toFixed(3),
      (row.truth / row.runs).toFixed(3), (row.ms / row.runs).toFixed(0)]));
  report.note(`${pageCount.toLocaleString('en')} logged pages of ${size} positions over ${items} items (d = 5), cascade clicks (the user scans the page from the top ` +
    'and clicks the first item that attracts them, P = sigma(-1 + 3 x.theta*), nothing after the click counts); the target a LinUCB trained on 60 clicks ' +
    'and frozen, the truth its page\'s exact expected clicks; the loggers uniform without replacement (prefix propensities 1 / (m (m - 1) ...)) or ' +
    'a LinUCB trained on 20 clicks exploring with the mix 0.5 through decideSlate() (its prefixPropensities). Mean error: estimate minus truth.');
}

// The page estimators of a population (evaluate with users): coverage of the population's page value
// (and, frozen, of the paired difference against a weaker population), mean width and time.
function populationPages(sb, seeds, report) {
  const rows = new Map();
  const add = (key, hit, width, ms, truth) => {
    const row = rows.get(key) ?? { covered: 0, width: 0, ms: 0, runs: 0, truth: 0 };
    Object.assign(row, { covered: row.covered + (hit ? 1 : 0), width: row.width + width, ms: row.ms + ms, runs: row.runs + 1, truth: row.truth + truth });
    rows.set(key, row);
  };
  const pagesPerUser = 30;
  for (let seed = 1; seed <= seeds; seed++) {
    for (const size of [5, 10]) {
      for (const [loggerName, explore] of [['uniform', 1], ['exploration mix 0.5', 0.5]]) {
        const shop = makePopulationPageShop(sb, 700 + seed, { users: 40 });
        const log = logPopulationPages(sb, shop, pagesPerUser, size, explore);
        const estimators = ['page-ips', 'page-pi', 'page-cascade'];
        const states = trainedStates(sb, shop, 60);
        const weaker = trainedStates(sb, shop, 5);
        let started = performance.now();
        const frozen = sb.evaluate({ catalogue: shop.catalogue, users: { states }, baseline: { states: weaker }, log, estimators });
        const frozenMs = performance.now() - started;
        const truth = frozenPageTruth(sb, shop, states, size);
        const difference = truth - frozenPageTruth(sb, shop, weaker, size);
        started = performance.now();
        const learning = sb.evaluate({ catalogue: shop.catalogue, users: { policy: { type: 'lin-ucb' } }, log, estimators });
        const learningMs = performance.now() - started;
        const learningTruth = learningPageTruth(sb, shop, pagesPerUser, size, learning.diagnostics.acceptance, 5);
        for (const name of estimators) {
          const width = (e) => e.high - e.low;
          add(`frozen, pages of ${size}, ${loggerName}: ${name}`, covers(frozen[name], truth), width(frozen[name]), frozenMs, truth);
          add(`frozen, pages of ${size}, ${loggerName}: difference.${name}`, covers(frozen.difference[name], difference), width(frozen.difference[name]), frozenMs, difference);
          add(`learning, pages of ${size}, ${loggerName}: ${name}`, covers(learning[name], learningTruth), width(learning[name]), learningMs, learningTruth);
        }
        shop.catalogue.dispose();
      }
    }
    report.progress(seed / seeds, `population pages seed ${seed}`);
  }
  report.table(`A population's whole pages: 95% intervals covering the population's page value, their mean width and the time of one sb.evaluate (wasm in Node; frozen: with the baseline), seeds 1-${seeds}`,
    ['population, pages, logger: estimator', 'covered', 'mean width', 'mean truth', 'ms an evaluation'],
    [...rows].map(([key, row]) => [key, `${row.covered} of ${row.runs}`, (row.width / row.runs).toFixed(3), (row.truth / row.runs).toFixed(3), (row.ms / row.runs).toFixed(0)]));
  report.note(`20 items (d = 4), 40 users with tastes of their own, ${pagesPerUser} logged pages a user (6,000 or 12,000 records), clicks Bernoulli(sigma(-1 + 2 x.theta_u) / (1 + 0.3 j)); ` +
    'the loggers uniform without replacement or each user\'s LinUCB (20 clicks, learning from its pages\' clicks) with the exploration mix 0.5 through decideSlate() ' +
    '(page-pi reads its policyArms). Frozen: each user\'s LinUCB trained ' +
    'on 60 clicks, the baseline on 5, the truth each user\'s own page on the simulator; learning: every user a LinUCB from scratch, the truth the population run ' +
    'online for the same pages, learning each position\'s click with the report\'s acceptance (5 runs). Mean truth: the page value (difference rows: the true difference).');
}

// Whether a population's paired page difference resolves a small difference with 20,000 logged pages:
// 200 users, 100 pages of 5 each; the candidate every user's LinUCB trained on 60 clicks, the baseline
// the same with a share of the users started over (a true difference of a few percent of the page value).
function populationPagesDifference(sb, seeds, report) {
  const rows = [];
  for (const [loggerName, explore] of [['uniform', 1], ['exploration mix 0.5', 0.5]]) {
    for (const share of [0.1, 0.05]) {
      const row = { covered: 0, resolved: 0, relative: 0, width: 0, ms: 0 };
      for (let seed = 1; seed <= seeds; seed++) {
        const shop = makePopulationPageShop(sb, 1200 + seed, { users: 200 });
        const log = logPopulationPages(sb, shop, 100, 5, explore);
        const states = trainedStates(sb, shop, 60);
        const fresh = new sb.LinUCB({ catalogue: shop.catalogue });
        const freshBytes = fresh.toBytes();
        fresh.dispose();
        const baseline = new Map([...states].map(([u, bytes]) => [u, u < share * shop.users ? freshBytes : bytes]));
        const started = performance.now();
        const result = sb.evaluate({ catalogue: shop.catalogue, users: { states }, baseline: { states: baseline }, log, estimators: ['page-ips'] });
        row.ms += (performance.now() - started) / seeds;
        const truth = frozenPageTruth(sb, shop, states, 5);
        const baselineTruth = frozenPageTruth(sb, shop, baseline, 5);
        const difference = result.difference['page-ips'];
        row.covered += covers(difference, truth - baselineTruth) ? 1 : 0;
        row.resolved += difference.low > 0 ? 1 : 0;
        row.relative += (truth - baselineTruth) / baselineTruth / seeds;
        row.width += (difference.high - difference.low) / seeds;
        shop.catalogue.dispose();
      }
      rows.push([`${loggerName}, ${100 * share}% of the users started over`, `${(100 * row.relative).toFixed(1)}%`, `${row.covered} of ${seeds}`,
        `${row.resolved} of ${seeds}`, row.width.toFixed(3), row.ms.toFixed(0)]);
      report.progress(rows.length / 4, 'population page differences');
    }
  }
  report.table(`A population's paired page difference from 20,000 logged pages, seeds 1-${seeds}`,
    ['logger, baseline', 'true relative difference', 'difference.page-ips covered', 'excludes 0', 'mean width', 'ms an evaluation'], rows);
  report.note('200 users with tastes of their own, 100 logged pages of 5 each (100,000 records) over 20 items; the candidate every user\'s LinUCB trained on 60 clicks, ' +
    'the baseline the same with a share of the users started over; the truth both populations\' own pages on the simulator.');
}

export default async function ope(args, report) {
  const seeds = numberArg(args, 'seeds', 20);
  const sb = await init();
  if (args.includes('--pages')) {
    // --population alone: the population's section only (saved with --save-as ope-pages-population).
    if (!args.includes('--population')) {
      pages(sb, seeds, report);
      cascadePages(sb, seeds, report);
    }
    populationPages(sb, seeds, report);
    populationPagesDifference(sb, Math.min(seeds, 10), report);
    return;
  }
  const rows = new Map();
  const horizons = [];
  const add = (name, model, covered, width, ms) => {
    const key = `${name}\u0000${model}`;
    const row = rows.get(key) ?? { name, model, covered: 0, width: 0, ms: 0, runs: 0 };
    Object.assign(row, { covered: row.covered + (covered ? 1 : 0), width: row.width + width, ms: row.ms + ms, runs: row.runs + 1 });
    rows.set(key, row);
  };
  const timed = (options) => {
    const started = performance.now();
    const result = sb.evaluate(options);
    return [result, performance.now() - started];
  };
  for (let seed = 1; seed <= seeds; seed++) {
    for (const clicks of ['logistic', 'threshold']) {
      for (const uniform of [true, false]) {
        const shop = makeShop(sb, 200 + seed, { items: 40, users: 1, clicks });
        const target = new sb.LinTS({ catalogue: shop.catalogue, seed });
        for (let t = 0; t < 40; t++) {
          const arm = shop.ids[Math.floor(shop.random() * shop.ids.length)];
          target.update(arm, shop.click(0, arm));
        }
        const log = logOneUser(shop, 3000, uniform);
        const copy = sb.LinTS.fromBytes(target.toBytes(), { catalogue: shop.catalogue });
        let truth = 0;
        for (let i = 0; i < 20000; i++) truth += shop.clickRate(0, copy.select()) / 20000;
        copy.dispose();
        const name = `one policy, ${clicks} clicks, ${uniform ? 'uniform' : 'non-uniform'} logger`;
        for (const rewardModel of ['auto', 'linear']) {
          const estimators = rewardModel === 'auto' ? ['ips', 'snips', 'dm', 'dr'] : ['dm', 'dr'];
          const [result, ms] = timed({ policy: target, log, estimators, rewardModel });
          for (const e of estimators) {
            add(`${name}: ${e}`, e === 'dm' || e === 'dr' ? result.rewardModel : '', covers(result[e], truth), result[e].high - result[e].low, ms);
          }
        }
        target.dispose();
        shop.catalogue.dispose();
      }
    }

    for (const oneTaste of [false, true]) {
      const shop = makeShop(sb, seed, { items: 40, users: 80, oneTaste });
      const { log, states } = logShop(sb, shop, 100, 0.5, 50);
      const untrained = new sb.LinUCB({ catalogue: shop.catalogue });
      const fresh = untrained.toBytes();
      untrained.dispose();
      const baselineStates = new Map([...states].map(([u, bytes]) => [u, u % 4 === 0 ? fresh : bytes]));
      const truth = frozenTruth(sb, shop, states, log);
      const difference = truth - frozenTruth(sb, shop, baselineStates, log);
      const frozen = oneTaste ? 'frozen, one taste' : 'frozen';
      const [normal, normalMs] = timed({ catalogue: shop.catalogue, users: { states }, baseline: { states: baselineStates }, log });
      const [linear, linearMs] = timed({ catalogue: shop.catalogue, users: { states }, log, estimators: ['dm', 'dr'], rewardModel: 'linear' });
      // The default reward model is one per user (rewardModelScope 'per-user'); the pooled one beside it.
      const [pooled, pooledMs] = timed({ catalogue: shop.catalogue, users: { states }, log, estimators: ['dm', 'dr'], rewardModelScope: 'pooled' });
      const scoped = (result) => `${result.rewardModel}, ${result.rewardModelScope}`;
      for (const name of ['ips', 'snips', 'dm', 'dr']) {
        add(`${frozen}: ${name}`, name === 'dm' || name === 'dr' ? scoped(normal) : '', covers(normal[name], truth), normal[name].high - normal[name].low, normalMs);
      }
      for (const name of ['dm', 'dr']) {
        add(`${frozen}: ${name}`, scoped(pooled), covers(pooled[name], truth), pooled[name].high - pooled[name].low, pooledMs);
        add(`${frozen}: ${name}`, scoped(linear), covers(linear[name], truth), linear[name].high - linear[name].low, linearMs);
      }
      if (!oneTaste) {
        const [boot, bootMs] = timed({ catalogue: shop.catalogue, users: { states }, baseline: { states: baselineStates }, log, estimators: ['ips', 'dr'], interval: 'bootstrap', seed });
        for (const name of ['ips', 'dr']) {
          const model = name === 'dr' ? scoped(boot) : '';
          add(`${frozen}: ${name}, bootstrap`, model, covers(boot[name], truth), boot[name].high - boot[name].low, bootMs);
          add(`${frozen}: paired difference, ${name}`, name === 'dr' ? scoped(normal) : '', covers(normal.difference[name], difference),
            normal.difference[name].high - normal.difference[name].low, normalMs);
        }
      }
      shop.catalogue.dispose();
    }

    const small = makeShop(sb, 100 + seed, { items: 20, users: 50 });
    const learningLog = logShop(sb, small, 400, 0.5).log;
    const [learning, learningMs] = timed({ catalogue: small.catalogue, users: { policy: { type: 'lin-ucb' } }, log: learningLog, seed });
    const steps = Math.max(1, Math.round(learning.horizon));
    const online = onlineMean(sb, small.catalogue, small.users, 5, steps, (user, u) => {
      const arm = user.select();
      const value = small.clickRate(u, arm);
      user.update(arm, small.click(u, arm));
      return value;
    });
    add('learning: replay', '', covers(learning.replay, online), learning.replay.high - learning.replay.low, learningMs);
    horizons.push(learning.horizon);
    small.catalogue.dispose();
    report.progress(seed / seeds, `seed ${seed}`);
  }
  const table = [...rows.values()].map((row) => [row.name, row.model || '-', `${row.covered} of ${row.runs}`, (row.width / row.runs).toFixed(3), (row.ms / row.runs).toFixed(0)]);
  report.table(`95% intervals covering the truth, their mean width and the time of one sb.evaluate (wasm in Node), seeds 1-${seeds}`,
    ['estimator', 'reward model (dm, dr)', 'covered', 'mean width', 'ms an evaluation'], table);
  report.note('One policy: 3,000 records of one user\'s clicks over 40 items (d = 8), the target LinTS trained on 40 clicks; the time of a row is one evaluation of the estimators of its reward model (auto: ips, snips, dm, dr; linear: dm, dr). ' +
    'Frozen: 8,000 records (80 users x 100), click rate about 0.25-0.4; the time of the normal rows is one evaluation of all four estimators with the baseline, of the linear rows (one model per user, the default scope) and the pooled ones (rewardModelScope \'pooled\') dm and dr alone. ' +
    `Learning: 20,000 records (50 users x 400), the default acceptance (the smallest propensity) keeping about 2.5%: a horizon of ${(horizons.reduce((a, b) => a + b, 0) / horizons.length).toFixed(1)} decisions a user on average.`);
}
