// The tail of select (issue 53, point 2): one Catalogue of K Gaussian arms (d = 32, its graph built
// with build()), many SubTS users over it served in turn, every select timed and its work counted
// (the user's inner products on the catalogue's index: its search and any audit scan). Side by side
// in one run, the same users (same seeds, tastes and noise) with their audits in one call
// (auditSlice: 0, the exact scan inside the select that draws the audit, as before issue 53) and
// spread over later calls (auditSlice N): p50, p99 and max of select's time and work, the slow calls
// that recorded an audit, and the users' regret. The configurations alternate in blocks of selects
// so that the machine's drift hits them alike.
//
//   npm run bench -- tail                       K = 200,000, d = 32, 200 users, 20,000 selects a configuration
//   options: --arms K, --dim d, --users N, --selects S, --slow-ms t (a call this slow counts as slow: 1),
//            --configs one-call,slice-4,slice-8,default (which to run: slice-N is auditSlice N)
import os from 'node:os';
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { median, unitRows } from './lib/catalogue-run.mjs';

const kChunk = 25000;
const kBlock = 1000;

// 'one-call': auditSlice 0 (the audit's exact scan inside the select that draws it, as before
// issue 53); 'slice-N': auditSlice N; 'default': the library's defaults.
function configuration(name) {
  if (name === 'one-call') return { auditSlice: 0 };
  if (name === 'default') return {};
  const slice = /^slice-(\d+(\.\d+)?)$/.exec(name);
  if (slice) return { auditSlice: Number(slice[1]) };
  throw new Error(`unknown configuration ${name} (one-call, slice-N, default)`);
}

function parse(args) {
  const config = { arms: 200000, dim: 32, users: 200, selects: 20000, slowMs: 1, configs: ['one-call', 'slice-4', 'slice-8', 'default'] };
  const numbers = { '--arms': 'arms', '--dim': 'dim', '--users': 'users', '--selects': 'selects', '--slow-ms': 'slowMs' };
  for (let i = 0; i < args.length; i++) {
    if (numbers[args[i]]) config[numbers[args[i]]] = Number(args[++i]);
    else if (args[i] === '--configs') config.configs = args[++i].split(',');
    else throw new Error(`unknown argument ${args[i]} (${Object.keys(numbers).join(', ')}, --configs)`);
  }
  for (const name of config.configs) configuration(name);
  return config;
}

function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// The users of one configuration: the same seeds for every configuration, so that they differ only
// in how their audits run.
function makeUsers(sb, catalogue, config, options) {
  const users = [];
  for (let u = 0; u < config.users; u++) users.push(new sb.SubTS({ catalogue, seed: u + 1, horizon: config.selects, ...options }));
  return users;
}

export default async function tailBench(args, report) {
  const config = parse(args);
  const { arms, dim } = config;
  report.note(`Configuration: K = ${arms} arms of N(0, 1) coordinates, d = ${dim}, one Catalogue (default index: hnsw, ` +
    `built with build() before serving); ${config.users} SubTS users over it (default options besides the configuration's), ` +
    `each with a unit-norm taste of its own (reward = taste . x + N(0, 1)), served in turn: ${config.selects} selects per configuration, ` +
    `the configurations alternating in blocks of ${kBlock}. Configurations: ${config.configs.map((name) => `${name} ${JSON.stringify(configuration(name))}`).join(', ')}. ` +
    `A call over ${config.slowMs} ms counts as slow; 'with an audit' counts the selects during which stats().approximation.audits grew ` +
    '(an audit recorded: in one call, the select that drew it; sliced, the select that finished its scan).');
  const sb = await init();
  const random = seededRandom(12345);
  const features = new Float64Array(arms * dim);
  for (let i = 0; i < features.length; i++) features[i] = standardNormal(random);
  const ids = Uint32Array.from({ length: arms }, (_, i) => i);
  const catalogue = new sb.Catalogue({ dim, seed: 1 });
  for (let first = 0; first < arms; first += kChunk) {
    catalogue.add(ids.subarray(first, first + kChunk), features.subarray(first * dim, (first + kChunk) * dim));
  }
  let start = performance.now();
  catalogue.build();
  const buildMs = performance.now() - start;
  // Each user's best mean, for its regret.
  const tastes = unitRows(config.users, dim, 777);
  const bestMean = new Float64Array(config.users);
  for (let u = 0; u < config.users; u++) {
    let best = -Infinity;
    for (let arm = 0; arm < arms; arm++) {
      let sum = 0;
      for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * tastes[u * dim + j];
      if (sum > best) best = sum;
    }
    bestMean[u] = best;
  }

  const runs = config.configs.map((name) => ({
    name,
    users: makeUsers(sb, catalogue, config, configuration(name)),
    noise: seededRandom(99),
    times: new Float64Array(config.selects),
    work: new Float64Array(config.selects),
    audited: new Uint8Array(config.selects),
    regret: 0,
    next: 0,
    turn: 0,
  }));
  const mean = (arm, u) => {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += features[arm * dim + j] * tastes[u * dim + j];
    return sum;
  };
  // A user's audits and its share of the catalogue index's work (its searches and audit slices).
  const countersOf = (user) => {
    const stats = user.stats();
    return { audits: stats.approximation.audits, work: stats.indexInnerProducts };
  };
  for (let done = 0; done < config.selects; done += kBlock) {
    for (const run of runs) {
      const counters = run.users.map(countersOf);
      for (let s = done; s < Math.min(config.selects, done + kBlock); s++) {
        const u = run.turn;
        run.turn = (run.turn + 1) % config.users;
        const user = run.users[u];
        const t0 = performance.now();
        const arm = user.select();
        run.times[s] = performance.now() - t0;
        const after = countersOf(user);
        if (after.audits !== counters[u].audits) run.audited[s] = 1;
        run.work[s] = after.work - counters[u].work;
        counters[u] = after;
        const expected = mean(arm, u);
        run.regret += bestMean[u] - expected;
        user.update(arm, expected + standardNormal(run.noise));
      }
    }
    report.progress((done + kBlock) / config.selects, 'serving');
  }

  const rows = runs.map((run) => {
    const slow = [...run.times.keys()].filter((s) => run.times[s] > config.slowMs);
    const approximation = run.users.map((user) => user.stats().approximation);
    const sum = (key) => approximation.reduce((total, a) => total + a[key], 0);
    const summary = {
      p50: median(run.times), p99: percentile(run.times, 0.99), p999: percentile(run.times, 0.999), max: Math.max(...run.times),
      mean: run.times.reduce((a, b) => a + b, 0) / run.times.length,
      workP50: median(run.work), workP99: percentile(run.work, 0.99), workMax: Math.max(...run.work),
      pending: approximation.filter((a) => a.auditPending).length,
      slow: slow.length, slowWithAudit: slow.filter((s) => run.audited[s]).length,
      audits: sum('audits'), misses: sum('misses'), effortRaises: sum('effortRaises'), auditInnerProducts: sum('auditInnerProducts'),
      regretPerSelect: run.regret / config.selects,
    };
    report.data(run.name, summary);
    return { run, summary };
  });
  report.data('config', config);
  report.data('catalogue', { buildMs });
  report.table(`select of a SubTS user among ${config.users} over K = ${arms}, d = ${dim}: time (graph built in ${(buildMs / 1000).toFixed(1)} s; ` +
    `load average ${os.loadavg().map((load) => load.toFixed(1)).join(' / ')} at the end)`,
  ['audits', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'mean ms', `calls > ${config.slowMs} ms (with an audit recorded)`],
  rows.map(({ run, summary }) => [run.name, summary.p50, summary.p99, summary.p999, summary.max, summary.mean, `${summary.slow} (${summary.slowWithAudit})`]));
  report.table('select: inner products of the catalogue index per call (its search and any audit scan; exact counts, not timings)',
    ['audits', 'p50', 'p99', 'max', 'audits recorded', 'pending at the end', 'misses', 'regret / select'],
    rows.map(({ run, summary }) => [run.name, summary.workP50, summary.workP99, summary.workMax, summary.audits, summary.pending, summary.misses,
      summary.regretPerSelect]));
  for (const run of runs) for (const user of run.users) user.dispose();
  catalogue.dispose();
}
