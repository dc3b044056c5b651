// One catalogue, many users (issue 31): K = 10^6 arms of d = 32 in one Catalogue and 10,000 users
// over it (SubTS, each with a taste of its own) in one Node process, wasm: setup, wasm heap in total
// and per user, select p50/p99, what a user of each policy type holds, user snapshots (size, load
// time, exact continuation), and a few users side by side with a Linear TS holding its own copy of
// the arms (same taste, same noise, mean over users x seeds).
//
//   npm run bench -- catalogue                 K = 10^6, d = 32, 10,000 users (minutes; the graph's build dominates)
//   npm run bench -- catalogue --quick         K = 10^5, 1,000 users, T = 200 (about a minute)
//   options: --arms K, --dim d, --users N, --rounds R (steps per served user), --horizon T (side by side),
//            --compare-users U, --seeds S, --chromium (also in a Chromium page: --browser-arms K (10^5) and
//            --browser-users N (10,000), the rest as in Node)
import init from '../dist/index.js';
import { runCatalogue } from './lib/catalogue-run.mjs';
import { runInChromiumPage } from './lib/chromium-page.mjs';

function parse(args) {
  const quick = args.includes('--quick');
  const config = {
    arms: quick ? 100000 : 1000000, dim: 32, users: quick ? 1000 : 10000, rounds: quick ? 5 : 5,
    compareUsers: 5, seeds: 5, horizon: quick ? 200 : 300, typeUsers: 100, ucbUsers: quick ? 20 : 10, snapshots: 1000,
    chromium: false, browserArms: 100000, browserUsers: 10000,
  };
  const numbers = { '--arms': 'arms', '--dim': 'dim', '--users': 'users', '--rounds': 'rounds', '--horizon': 'horizon',
    '--compare-users': 'compareUsers', '--seeds': 'seeds', '--browser-arms': 'browserArms', '--browser-users': 'browserUsers' };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--quick') continue;
    if (args[i] === '--chromium') config.chromium = true;
    else if (numbers[args[i]]) config[numbers[args[i]]] = Number(args[++i]);
    else throw new Error(`unknown argument ${args[i]} (--quick, ${Object.keys(numbers).join(', ')}, --chromium)`);
  }
  return config;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const std = (values) => (values.length < 2 ? 0 : Math.sqrt(values.reduce((a, b) => a + (b - mean(values)) ** 2, 0) / (values.length - 1)));
const mib = (bytes) => bytes / 2 ** 20;
const kib = (bytes) => bytes / 1024;

function describe(runtime, result, report) {
  const { config, catalogue, users, heap, types, compare } = result;
  report.table(`${runtime}: setup and memory (K = ${config.arms}, d = ${config.dim}, ${config.users} users)`, ['what', 'value'], [
    ['catalogue add (s)', catalogue.addMs / 1000],
    ['catalogue graph build (s)', catalogue.buildMs / 1000],
    ['catalogue wasm heap (MiB)', mib(catalogue.heapBytes)],
    ['catalogue snapshot (MiB)', mib(catalogue.snapshotBytes)],
    [`${config.users} SubTS users created (s)`, users.createMs / 1000],
    [`${config.users} users' wasm heap after ${users.rounds} steps each (MiB)`, mib(users.heapBytes)],
    ['wasm heap per user (KiB)', kib(users.perUserBytes)],
    ['wasm heap allocated, catalogue and users (MiB)', mib(heap.allocatedBytes)],
    ['wasm memory reserved (MiB)', mib(heap.heapBytes)],
  ]);
  report.table(`${runtime}: a step of a user among ${config.users} (SubTS over the catalogue's graph, ${config.users * users.rounds} steps, users in turn)`,
    ['call', 'p50 ms', 'p99 ms', 'mean ms'], [
      ['select', users.select.p50, users.select.p99, users.select.mean],
      ['update', users.update.p50, users.update.p99, '—'],
    ]);
  report.table(`${runtime}: user snapshots (${users.snapshot.sampled} users)`, ['bytes (median)', 'bytes (max)', 'fromBytes p50 ms', 'fromBytes p99 ms', 'next choice identical'], [
    [users.snapshot.bytesMedian, users.snapshot.bytesMax, users.snapshot.loadP50, users.snapshot.loadP99, `${users.snapshot.continued} / ${users.snapshot.sampled}`],
  ]);
  report.table(`${runtime}: what a user holds, per policy type (d = ${config.dim}, over the catalogue of ${config.arms} arms, after one step)`,
    ['policy', 'users measured', 'wasm heap per user (KiB)', 'snapshot (bytes)'],
    types.map((type) => [type.name, type.users, kib(type.perUserBytes), type.snapshotBytes]));
  const labels = [...new Set(compare.map((entry) => entry.label))];
  const own = compare.filter((entry) => entry.label === 'own-copy LinTS');
  const rows = labels.map((label) => {
    const list = compare.filter((entry) => entry.label === label);
    const regrets = list.map((entry) => entry.regret);
    const perUser = Array.from({ length: config.compareUsers }, (_, u) => mean(list.filter((entry) => entry.user === u).map((entry) => entry.regret)));
    return [label, `${mean(regrets).toFixed(1)} ± ${std(regrets).toFixed(1)}`, (mean(regrets) / mean(own.map((entry) => entry.regret))).toFixed(3),
      perUser.map((value) => value.toFixed(0)).join(' '), mean(list.map((entry) => entry.setupMs)) / 1000, mean(list.map((entry) => entry.stepMs)),
      mib(mean(list.map((entry) => entry.heapBytes)))];
  });
  report.table(`${runtime}: regret per user, side by side (T = ${config.horizon}, ${config.compareUsers} users x ${config.seeds} seeds, the same taste and noise for each contender)`,
    ['policy', 'regret mean ± std', 'x own-copy LinTS', 'mean per user', 'setup s', 'ms / step', 'wasm heap held (MiB)'], rows);
  return rows;
}

export default async function catalogueBench(args, report) {
  const config = parse(args);
  report.note(`Configuration: K = ${config.arms} Gaussian arms (N(0, 1) coordinates), d = ${config.dim}, in one Catalogue ` +
    `(default index: hnsw, built at once with build()); ${config.users} users, each a SubTS over the catalogue with default options ` +
    `and a unit-norm taste of its own, served in turn for ${config.rounds} steps each (reward = taste . x + N(0, 1)); ` +
    `per policy type ${config.typeUsers} LinTS and SubTS users and ${config.ucbUsers} LinUCB users (widths: 'direct': every arm's width computed at each select, O(K d^2) a step, nothing kept per arm), one step each; ` +
    `snapshots of ${config.snapshots} users; side by side: ${config.compareUsers} users x ${config.seeds} seeds, T = ${config.horizon}, ` +
    'each user\'s taste and noise the same for a Linear TS with its own copy of the arms (addArms), a SubTS and a LinTS over the catalogue. ' +
    'Heap figures are the wasm allocator\'s bytes in use (memoryUsage().allocatedBytes) before and after.');
  const sb = await init();
  const nodeResult = runCatalogue(sb, config, (fraction, label) => report.progress(fraction, label));
  report.data('node', nodeResult);
  const rows = describe('Node', nodeResult, report);
  const ratio = Number(rows.find((row) => row[0] === 'catalogue SubTS')[2]);
  report.note(`Node: a SubTS user over the shared catalogue had ${ratio.toFixed(3)}x the regret of a Linear TS with its own copy ` +
    `(mean over ${config.compareUsers} users x ${config.seeds} seeds; the issue asks within 10%), holding ` +
    `${kib(nodeResult.users.perUserBytes).toFixed(1)} KiB of wasm heap against ` +
    `${mib(mean(nodeResult.compare.filter((entry) => entry.label === 'own-copy LinTS').map((entry) => entry.heapBytes))).toFixed(1)} MiB for the own copy.`);
  if (config.chromium) {
    const browserConfig = { ...config, arms: config.browserArms, users: config.browserUsers };
    report.progress(0, 'Chromium');
    const browserResult = await runInChromiumPage('catalogue', { module: '/bench/lib/catalogue-run.mjs', exportName: 'runCatalogue', options: browserConfig });
    report.progress(1, 'Chromium');
    report.data('chromium', browserResult);
    describe('Chromium', browserResult, report);
  }
}
