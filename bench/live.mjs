// A shop's day on a live catalogue (issue 53, point 3): one Catalogue, many SubTS users served in
// turn, while stock flips (setValues), prices change (setValues) and items are re-described
// (setFeatures) at fixed rates on the serving thread, as a shop's one process would. Each call is
// timed: select (+ update) and decideSlate(10) with a combined filter (a category, in stock, a
// price range; + reward), and the changes themselves. The same users with the same seeds are then
// served again over a frozen copy of the catalogue (no changes): the reward per call of the two runs
// says what the changes cost the users' learning.
//   npm run bench -- live [--items=1000000] [--dim=32] [--users=10000] [--calls=100000]
//                         [--attributeRate=1000] [--featureRate=100] [--storage=f32|int8] [--slateShare=0.3]
//                         [--chromium] (the same runs in a Chromium page too, after Node's)
// Rates are per second of the serving loop's wall time (changes due are applied before the next
// call). The runs themselves are bench/lib/live-run.mjs, shared by Node and the page.
import init from '../dist/index.js';
import { loadavg } from 'node:os';
import { CATEGORIES, runLive } from './lib/live-run.mjs';
import { runInChromiumPage } from './lib/chromium-page.mjs';
import { textArg, numberArg } from './lib/args.mjs';

function parseArgs(args) {
  return {
    items: numberArg(args, 'items', 1000000), dim: numberArg(args, 'dim', 32), users: numberArg(args, 'users', 10000),
    calls: numberArg(args, 'calls', 100000), attributeRate: numberArg(args, 'attributeRate', 1000), featureRate: numberArg(args, 'featureRate', 100),
    storage: textArg(args, 'storage', 'f32'), slateShare: numberArg(args, 'slateShare', 0.3), chromium: args.includes('--chromium'),
  };
}

function describe(runtime, options, runs, report) {
  const { live: changing, frozen } = runs;
  report.table(`Call times (ms) in ${runtime}, ${options.items} x ${options.dim}, ${options.users} users: the live run (changes while serving) and the frozen one`,
    ['call', 'run', 'calls', 'p50', 'p99', 'max', 'over 50 ms'], [
      ['select', 'live', ...changing.times.select],
      ['select', 'frozen', ...frozen.times.select],
      ['decideSlate(10), combined filter', 'live', ...changing.times.slate],
      ['decideSlate(10), combined filter', 'frozen', ...frozen.times.slate],
      ['setValues (a batch of the changes due)', 'live', ...changing.times.setValues],
      ['setFeatures (a batch of the changes due)', 'live', ...changing.times.setFeatures],
    ]);
  report.table(`The users' learning in ${runtime}: mean reward of what was shown (rewards of the features at the time), live against frozen`,
    ['run', 'mean reward a shown item', 'attribute changes', 'feature changes', 'serving seconds', 'catalogue build seconds'], [
      ['live', changing.meanReward, changing.attributesDone, changing.featuresDone, changing.seconds, changing.buildSeconds],
      ['frozen', frozen.meanReward, 0, 0, frozen.seconds, frozen.buildSeconds],
    ]);
}

export default async function live(args, report) {
  const options = parseArgs(args);
  const sb = await init();
  report.note(`Configuration: ${options.items} x ${options.dim} Gaussian items (${CATEGORIES} categories, price 1-100, stock 0-9), index HNSW ` +
    `(the catalogue's default graph, storage ${options.storage}), graph built before serving; ${options.users} SubTS users (defaults) served in turn, ` +
    `${options.calls} calls a run, ${Math.round(options.slateShare * 100)}% of them decideSlate(10) with { labels: [a category], where: { stock: [1, Infinity], ` +
    `price: [p, p + 50] } } and reward(), the rest select() and update(); rewards x^T theta_u + N(0, 1) with unit-norm tastes. Live run: ` +
    `${options.attributeRate} attribute changes a second (setValues: stock flips or prices) and ${options.featureRate} feature changes a second ` +
    `(setFeatures), applied on the serving thread before the next call once due. Node: ${sb.threads} module threads (${sb.threadsReason}).`);
  report.note(`Machine load at the start (1, 5, 15 min averages): ${loadavg().map((x) => x.toFixed(2)).join(', ')}.`);
  report.data('configuration', options);
  const runs = runLive(sb, options, (fraction, label) => report.progress(options.chromium ? fraction / 2 : fraction, `Node: ${label}`));
  report.data('node', runs);
  describe('Node', options, runs, report);
  if (options.chromium) {
    report.progress(0.5, 'Chromium');
    const browserRuns = await runInChromiumPage('live', { module: '/bench/lib/live-run.mjs', exportName: 'runLive', options });
    report.progress(1, 'Chromium');
    report.data('chromium', browserRuns);
    describe('Chromium', options, browserRuns, report);
    report.note('Chromium\'s times: a page without cross-origin isolation reads performance.now() to 0.1 ms, so its p50s below that are 0 or 0.1.');
  }
  report.note(`Machine load at the end (1, 5, 15 min averages): ${loadavg().map((x) => x.toFixed(2)).join(', ')}. The times are wall-clock on a machine ` +
    'shared with other work; the load says how far to trust them.');
}
