// Off-policy evaluation of a population (issue 54, docs/evaluation.md): on generated shops
// (bench/lib/logged-shop.mjs: 40 items, d = 8, 80 users with hidden tastes and logistic clicks, each
// logged by its own LinUCB exploring with the mix 0.5 after 50 unlogged steps, 100 records a user),
// for each estimator of sb.evaluate: how often its 95% interval covers the truth, its mean width and
// the time of one evaluation.
//   - frozen: the candidate is every user's model as the logging left it; the baseline the same with
//     a quarter of the users started over; the truth each model's own choice on the simulator;
//   - learning: every user from scratch with LinUCB, over 20 items (400 records a user), by replay
//     with rejection; the truth each user's LinUCB run online for the report's horizon.
//   npm run bench -- ope [--seeds=S]
import init from '../dist/index.js';
import { frozenTruth, logShop, makeShop } from './lib/logged-shop.mjs';

const covers = (estimate, truth) => estimate.low <= truth && truth <= estimate.high;

export default async function ope(args, report) {
  const found = args.find((a) => a.startsWith('--seeds='));
  const seeds = found ? Number(found.slice(8)) : 20;
  const sb = await init();
  const rows = new Map();
  const horizons = [];
  const add = (name, covered, width, ms) => {
    const row = rows.get(name) ?? { covered: 0, width: 0, ms: 0, runs: 0 };
    Object.assign(row, { covered: row.covered + (covered ? 1 : 0), width: row.width + width, ms: row.ms + ms, runs: row.runs + 1 });
    rows.set(name, row);
  };
  for (let seed = 1; seed <= seeds; seed++) {
    const shop = makeShop(sb, seed, { items: 40, users: 80 });
    const { log, states } = logShop(sb, shop, 100, 0.5, 50);
    const untrained = new sb.LinUCB({ catalogue: shop.catalogue });
    const fresh = untrained.toBytes();
    untrained.dispose();
    const baselineStates = new Map([...states].map(([u, bytes]) => [u, u % 4 === 0 ? fresh : bytes]));
    const truth = frozenTruth(sb, shop, states, log);
    const difference = truth - frozenTruth(sb, shop, baselineStates, log);
    let started = performance.now();
    const normal = sb.evaluate({ catalogue: shop.catalogue, users: { states }, baseline: { states: baselineStates }, log });
    const normalMs = performance.now() - started;
    started = performance.now();
    const boot = sb.evaluate({ catalogue: shop.catalogue, users: { states }, baseline: { states: baselineStates }, log, estimators: ['ips', 'dr'], interval: 'bootstrap', seed });
    const bootMs = performance.now() - started;
    for (const name of ['ips', 'snips', 'dm', 'dr']) add(`frozen: ${name}`, covers(normal[name], truth), normal[name].high - normal[name].low, normalMs);
    for (const name of ['ips', 'dr']) {
      add(`frozen: ${name}, bootstrap`, covers(boot[name], truth), boot[name].high - boot[name].low, bootMs);
      add(`frozen: paired difference, ${name}`, covers(normal.difference[name], difference), normal.difference[name].high - normal.difference[name].low, normalMs);
    }
    shop.catalogue.dispose();

    const small = makeShop(sb, 100 + seed, { items: 20, users: 50 });
    const learningLog = logShop(sb, small, 400, 0.5).log;
    started = performance.now();
    const learning = sb.evaluate({ catalogue: small.catalogue, users: { policy: { type: 'lin-ucb' } }, log: learningLog, seed });
    const learningMs = performance.now() - started;
    const steps = Math.max(1, Math.round(learning.horizon));
    let online = 0;
    const replications = 5;
    for (let r = 0; r < replications; r++) {
      for (let u = 0; u < small.users; u++) {
        const user = new sb.LinUCB({ catalogue: small.catalogue });
        for (let t = 0; t < steps; t++) {
          const arm = user.select();
          online += small.clickRate(u, arm);
          user.update(arm, small.click(u, arm));
        }
        user.dispose();
      }
    }
    online /= replications * small.users * steps;
    add('learning: replay', covers(learning.replay, online), learning.replay.high - learning.replay.low, learningMs);
    horizons.push(learning.horizon);
    small.catalogue.dispose();
    report.progress(seed / seeds, `seed ${seed}`);
  }
  const table = [...rows].map(([name, row]) => [name, `${row.covered} of ${row.runs}`, (row.width / row.runs).toFixed(3), (row.ms / row.runs).toFixed(0)]);
  report.table(`95% intervals covering the truth, their mean width and the time of one sb.evaluate (wasm in Node), seeds 1-${seeds}`,
    ['estimator', 'covered', 'mean width', 'ms an evaluation'], table);
  report.note(`Frozen: 8,000 records (80 users x 100), click rate about 0.25-0.4; the time of the normal rows is one evaluation of all four estimators with the baseline. Learning: 20,000 records (50 users x 400), the default acceptance (the smallest propensity) keeping about 2.5%: a horizon of ${(horizons.reduce((a, b) => a + b, 0) / horizons.length).toFixed(1)} decisions a user on average.`);
}
