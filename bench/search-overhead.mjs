// What a search() call costs beyond the search itself (issue 57, point 1): CPU time a call of
// index.search(query, k, options) over a small index, where the search is a few microseconds and the
// JavaScript wrapper (the argument checks, the options, the copies to and from the wasm heap) shows,
// against the same queries answered by one searchBatch call (CPU time a query). Three ways to call
// search(): without options, with an options object literal made at each call (a new object each time,
// as most callers write it), and with one options object reused for every call.
// CPU time (process.cpuUsage, user + system) rather than wall time: the machine is shared, and a
// descheduled process loses wall time but not CPU time. Every variant is measured in each round, in
// turn, and each figure is the median over the rounds.
// With --baseline=<path of another build's dist/index.js>, that build is loaded into the same process
// and every variant is measured on both builds alternately, on the same items and the same graph
// (built once, loaded into both from its bytes), with answers compared bit for bit.
//   npm run bench -- search-overhead [--n=2000] [--dim=16] [--queries=1000] [--rounds=9] [--efSearch=10] [--baseline=/work/main/dist/index.js]
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { numberArg, textArg } from './lib/args.mjs';

const K = 10;
// The pass over the queries is repeated for at least this much CPU time in each measurement.
const MIN_CPU_MICROSECONDS = 40_000;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function gaussian(count, seed) {
  const random = seededRandom(seed);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  return values;
}

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// CPU microseconds a query of `pass` (which answers `queryCount` queries), passes repeated until
// MIN_CPU_MICROSECONDS.
function cpuPerQuery(pass, queryCount) {
  let passes = 0;
  const start = cpuNow();
  let spent;
  do {
    pass();
    passes++;
    spent = cpuNow() - start;
  } while (spent < MIN_CPU_MICROSECONDS);
  return spent / (passes * queryCount);
}

// The passes of one index: search() in three ways and searchBatch, over the same query views.
function passesOf(index, queryViews, queries) {
  const reused = { shortlist: K };
  return {
    'search(q, k)': () => {
      for (const query of queryViews) index.search(query, K);
    },
    'search(q, k, { shortlist }) literal': () => {
      for (const query of queryViews) index.search(query, K, { shortlist: K });
    },
    'search(q, k, options) reused': () => {
      for (const query of queryViews) index.search(query, K, reused);
    },
    'searchBatch, a query': () => {
      index.searchBatch(queries, K);
    },
  };
}

function sameAnswers(a, b) {
  return a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i]) && a.scores.every((s, i) => Object.is(s, b.scores[i]));
}

export default async function searchOverhead(args, report) {
  const options = {
    n: numberArg(args, 'n', 2000), dim: numberArg(args, 'dim', 16), queries: numberArg(args, 'queries', 1000),
    rounds: numberArg(args, 'rounds', 9), efSearch: numberArg(args, 'efSearch', 10), baseline: textArg(args, 'baseline', undefined), seed: 57,
  };
  const builds = [{ name: 'this build', sb: await init({ threads: 1 }) }];
  if (options.baseline !== undefined) {
    const { default: baselineInit } = await import(pathToFileURL(resolve(options.baseline)).href);
    builds.unshift({ name: 'baseline', sb: await baselineInit({ threads: 1 }) });
  }
  const hnswOptions = { dim: options.dim, M: 16, efConstruction: 200, efSearch: options.efSearch, space: 'inner-product', seed: 1 };
  report.note(`${options.n} x ${options.dim} Gaussian items (seed ${options.seed}), ${options.queries} Gaussian queries, top ${K}, ` +
    `the single-thread build (init({ threads: 1 })). HnswIndex: ${JSON.stringify(hnswOptions)}; ExactIndex: { dim: ${options.dim} }. ` +
    `CPU microseconds (process.cpuUsage, user + system) a call of search() or a query of one searchBatch call over all the queries: ` +
    `each measurement repeats its pass over the queries for at least ${MIN_CPU_MICROSECONDS / 1000} ms of CPU time; every variant` +
    `${builds.length > 1 ? ' of both builds' : ''} is measured in turn in each of ${options.rounds} rounds; medians over the rounds.` +
    (options.baseline === undefined ? '' : ` Baseline: ${options.baseline}, loaded into the same process; the same graph (toBytes/fromBytes) in both.`));
  report.data('configuration', { ...options, k: K, hnsw: hnswOptions, threads: 1 });

  const ids = Uint32Array.from({ length: options.n }, (_, i) => i);
  const items = gaussian(options.n * options.dim, options.seed);
  const queries = gaussian(options.queries * options.dim, options.seed + 1);
  const queryViews = Array.from({ length: options.queries }, (_, q) => queries.subarray(q * options.dim, (q + 1) * options.dim));

  const built = new builds[0].sb.HnswIndex(hnswOptions);
  built.add(ids, items);
  built.build();
  const graph = built.toBytes();
  built.dispose();

  // [index kind, build, variant] -> pass
  const cases = [];
  const indexes = [];
  for (const kind of ['HnswIndex', 'ExactIndex']) {
    let first = null;
    for (const build of builds) {
      let index;
      if (kind === 'HnswIndex') {
        index = build.sb.HnswIndex.fromBytes(graph);
      } else {
        index = new build.sb.ExactIndex({ dim: options.dim });
        index.add(ids, items);
      }
      indexes.push(index);
      // Every way of calling gives the same answers, in both builds.
      const answers = [index.search(queryViews[0], K), index.search(queryViews[0], K, { shortlist: K })];
      const batch = index.searchBatch(queries, K);
      answers.push({ ids: batch.ids.subarray(0, batch.counts[0]), scores: batch.scores.subarray(0, batch.counts[0]) });
      first ??= answers[0];
      if (!answers.every((answer) => sameAnswers(answer, first))) throw new Error(`${kind}: the answers differ between calls or builds`);
      for (const [variant, pass] of Object.entries(passesOf(index, queryViews, queries))) cases.push({ kind, build: build.name, variant, pass, measures: [] });
    }
  }

  // Measured in the order index, call, build: the two builds' measurements of one call are adjacent,
  // and a round's figures are compared with each other (the machine's load drifts between rounds).
  const variants = Object.keys(passesOf(null, [], null));
  const order = (entry) => [entry.kind === 'HnswIndex' ? 0 : 1, variants.indexOf(entry.variant), builds.findIndex((b) => b.name === entry.build)];
  cases.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
  for (const entry of cases) entry.pass();  // warm up
  for (let round = 0; round < options.rounds; round++) {
    for (const entry of cases) entry.measures.push(cpuPerQuery(entry.pass, options.queries));
    report.progress((round + 1) / options.rounds, `round ${round + 1}`);
  }
  for (const index of indexes) index.dispose();

  const measures = (kind, build, variant) => cases.find((c) => c.kind === kind && c.build === build && c.variant === variant).measures;
  // Per round: a call's time less the same round's batch time a query, then the median over rounds.
  const beyond = (kind, build, variant) => {
    const batch = measures(kind, build, 'searchBatch, a query');
    return median(measures(kind, build, variant).map((time, round) => time - batch[round]));
  };
  const rows = [];
  for (const kind of ['HnswIndex', 'ExactIndex']) {
    for (const variant of variants) {
      const row = [kind, variant];
      for (const build of builds) row.push(median(measures(kind, build.name, variant)), beyond(kind, build.name, variant));
      if (builds.length > 1) {
        // This build over the baseline, round by round (the median of the rounds' ratios): of the CPU
        // time a call, and of what a call costs beyond the batch.
        const ratio = (of) => median(of(builds[1].name).map((value, round) => value / of(builds[0].name)[round]));
        const batch = (name) => measures(kind, name, 'searchBatch, a query');
        row.push(ratio((name) => measures(kind, name, variant)),
          variant.startsWith('searchBatch') ? '-' : ratio((name) => measures(kind, name, variant).map((time, round) => time - batch(name)[round])));
      }
      rows.push(row);
    }
  }
  const columns = ['index', 'call'];
  for (const build of builds) columns.push(`${build.name}: CPU us a query`, `${build.name}: beyond searchBatch`);
  if (builds.length > 1) columns.push('this build / baseline: a query', 'this build / baseline: beyond searchBatch');
  report.note(`Load average when the table was made: ${loadavg().map((x) => x.toFixed(1)).join(', ')} (2 cores shared with other work: CPU time, not wall time, and the rounds' own comparisons).`);
  report.table(`search() against searchBatch: ${options.n} x ${options.dim}, top ${K}, CPU microseconds a query`, columns, rows);
  report.data('rows', rows);
}
