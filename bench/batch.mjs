// A batch of queries in one call (issue 57, point 2): HnswIndex.searchBatch on one thread and on
// every core, against one search() call per query, side by side in one run on the same graph (built
// once on the threads, then loaded from its bytes by the single-thread build and the threaded one);
// then ExactIndex, GreedyMipsIndex, LshIndex and PcaTreeIndex at their defaults, batch on 1 and every thread.
// 100,000 x 32 Gaussian items, inner product, M 16, efConstruction 200; the beam widened by the
// shortlist (the beam is efSearch + max(k, shortlist) - 1); recall@10 against the exact top 10
// (ExactIndex). Microseconds a query: the median of --repeats passes over the queries, each pass at
// least 100 ms. If Debian's python3-hnswlib is installed, its batch knn_query on the same data at the
// same parameters is a row beside (ef chosen to match each recall).
//   npm run bench -- batch [--n=100000] [--dim=32] [--queries=2000] [--repeats=3] [--shortlists=10,30,80,200]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { textArg, numberArg } from './lib/args.mjs';

const K = 10;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function parseArgs(args) {
  return {
    n: numberArg(args, 'n', 100000), dim: numberArg(args, 'dim', 32), queries: numberArg(args, 'queries', 2000),
    repeats: numberArg(args, 'repeats', 3), shortlists: textArg(args, 'shortlists', '10,30,80,200').split(',').map(Number), seed: 57,
  };
}

function gaussian(count, seed) {
  const random = seededRandom(seed);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  return values;
}

// Microseconds a query of `pass` (which answers every query once): passes repeated until 100 ms,
// the median of `repeats` such measurements.
function microsecondsPerQuery(pass, queryCount, repeats) {
  const measures = [];
  for (let r = 0; r < repeats; r++) {
    let passes = 0;
    const start = performance.now();
    do {
      pass();
      passes++;
    } while (performance.now() - start < 100);
    measures.push(((performance.now() - start) * 1000) / (passes * queryCount));
  }
  return median(measures);
}

// CPU time (clock ticks) of each thread of this process so far, from Linux's /proc; null elsewhere.
// On a machine shared with other work, the wall-clock speedup of 2 threads is capped by the cores the
// process gets; how evenly the batch's CPU time falls on its threads is what 2 free cores would turn
// into wall-clock speedup (total CPU time over the busiest thread's).
function threadTicks() {
  if (!existsSync('/proc/self/task')) return null;
  const ticks = new Map();
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks.set(task, Number(fields[11]) + Number(fields[12]));  // utime + stime
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ticks;
}

function cpuSplit(before, after) {
  if (before === null || after === null) return NaN;
  const spent = [...after].map(([task, ticks]) => ticks - (before.get(task) ?? 0)).filter((ticks) => ticks > 0);
  const total = spent.reduce((a, b) => a + b, 0);
  return total / Math.max(...spent);
}

function recallOf(found, truth) {
  let hits = 0;
  for (let q = 0; q < truth.counts.length; q++) {
    const expected = new Set(truth.ids.subarray(q * truth.stride, q * truth.stride + truth.counts[q]));
    for (let i = 0; i < found.counts[q]; i++) hits += expected.has(found.ids[q * found.stride + i]) ? 1 : 0;
  }
  return hits / (truth.counts.length * K);
}

const sameAnswers = (a, b) => a.ids.every((id, i) => id === b.ids[i]) && a.scores.every((s, i) => Object.is(s, b.scores[i]));

// python3-hnswlib's batch knn_query (all threads) at each ef: [{ ef, recall, us }], or null when it
// is not installed.
function pythonHnswlib(items, queries, truth, options, threads) {
  if (spawnSync('/usr/bin/python3', ['-c', 'import hnswlib'], { encoding: 'utf8' }).status !== 0) return null;
  const folder = mkdtempSync(join(tmpdir(), 'batch-bench-'));
  try {
    writeFileSync(join(folder, 'items.f32'), items);
    writeFileSync(join(folder, 'queries.f32'), queries);
    writeFileSync(join(folder, 'truth.u32'), truth.ids);
    const script = `
import hnswlib, numpy as np, time, json, sys
n, d, q, threads = ${options.n}, ${options.dim}, ${options.queries}, ${threads}
items = np.fromfile('${folder}/items.f32', dtype=np.float32).reshape(n, d)
queries = np.fromfile('${folder}/queries.f32', dtype=np.float32).reshape(q, d)
truth = np.fromfile('${folder}/truth.u32', dtype=np.uint32).reshape(q, ${K})
index = hnswlib.Index(space='ip', dim=d)
index.init_index(max_elements=n, ef_construction=200, M=16, random_seed=1)
index.set_num_threads(threads)
index.add_items(items, np.arange(n))
rows = []
for ef in [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384]:
    index.set_ef(ef)
    labels, _ = index.knn_query(queries, k=${K}, num_threads=threads)
    recall = np.mean([len(set(labels[i]) & set(truth[i])) / ${K} for i in range(q)])
    measures = []
    for r in range(${options.repeats}):
        passes, start = 0, time.perf_counter()
        while True:
            index.knn_query(queries, k=${K}, num_threads=threads)
            passes += 1
            if time.perf_counter() - start >= 0.1: break
        measures.append((time.perf_counter() - start) * 1e6 / (passes * q))
    rows.append({'ef': ef, 'recall': float(recall), 'us': sorted(measures)[len(measures) // 2]})
print(json.dumps(rows))
`;
    const result = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8', maxBuffer: 1 << 24 });
    if (result.status !== 0) throw new Error(`python3-hnswlib failed: ${result.stderr}`);
    return JSON.parse(result.stdout);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// The speedup this machine gives two threads right now, whatever the package: `threads` Workers
// each spinning a fixed JavaScript loop, against one, wall-clock (the median of three). On a quiet
// 2-core machine about 2; when other work holds a core, about 1, and no batch can do better.
async function machineSpeedup(threads) {
  const spin = 'let x = 0; for (let i = 0; i < 2e8; i++) x += i % 7; require("node:worker_threads").parentPort.postMessage(x);';
  const wall = async (count) => {
    const start = performance.now();
    await Promise.all(Array.from({ length: count }, () => new Promise((resolve, reject) => {
      const worker = new Worker(spin, { eval: true });
      worker.once('message', () => worker.terminate().then(resolve));
      worker.once('error', reject);
    })));
    return performance.now() - start;
  };
  const ratios = [];
  for (let r = 0; r < 3; r++) ratios.push((threads * (await wall(1))) / (await wall(threads)));
  return median(ratios);
}

const loadAverage = () => loadavg().map((x) => x.toFixed(1)).join(', ');

export default async function batch(args, report) {
  const options = parseArgs(args);
  const one = await init({ threads: 1 });
  const all = await init();
  report.note(`Single-thread build: ${one.threadsReason}. Threaded build: ${all.threads} threads (${all.threadsReason}).`);
  report.note(`HnswIndex: ${options.n} x ${options.dim} Gaussian items (seed ${options.seed}), space 'inner-product', M 16, efConstruction 200, ` +
    `efSearch 1 (the shortlist is the beam: efSearch + shortlist - 1), build() on ${all.threads} threads, the same graph loaded by both builds; ` +
    `${options.queries} Gaussian queries, top ${K}; microseconds a query, the median of ${options.repeats} passes of at least 100 ms each. ` +
    'The machine is shared with other engineers\' builds and tests during the run: absolute times are noisy; the ratios are measured side by side.');
  report.data('configuration', { ...options, k: K, M: 16, efConstruction: 200, efSearch: 1, threads: all.threads, reason: all.threadsReason });

  const ids = Uint32Array.from({ length: options.n }, (_, i) => i);
  const items = gaussian(options.n * options.dim, options.seed);
  const queries = gaussian(options.queries * options.dim, options.seed + 1);
  const exact = new all.ExactIndex({ dim: options.dim });
  exact.add(ids, items);
  const truth = exact.searchBatch(queries, K);
  exact.dispose();

  const built = new all.HnswIndex({ dim: options.dim, M: 16, efConstruction: 200, efSearch: 1, space: 'inner-product', seed: 1 });
  built.add(ids, items);
  const start = performance.now();
  built.build();
  const buildSeconds = (performance.now() - start) / 1000;
  const bytes = built.toBytes();
  built.dispose();
  report.note(`Graph built in ${buildSeconds.toFixed(1)} s on ${all.threads} threads.`);
  const single = one.HnswIndex.fromBytes(bytes);
  const threaded = all.HnswIndex.fromBytes(bytes);
  const dim = options.dim;
  const rows = [];
  for (const shortlist of options.shortlists) {
    const searchOptions = { shortlist };
    const perCall = () => {
      for (let q = 0; q < options.queries; q++) single.search(queries.subarray(q * dim, (q + 1) * dim), K, searchOptions);
    };
    const answers = threaded.searchBatch(queries, K, searchOptions);
    const answersOne = single.searchBatch(queries, K, searchOptions);
    // One search() a query gives the same answers as both batches (tests/js/search-batch.test.js).
    const first = single.search(queries.subarray(0, dim), K, searchOptions);
    if (!sameAnswers(answers, answersOne) || !first.ids.every((id, i) => id === answers.ids[i])) throw new Error('the batches disagree');
    const recall = recallOf(answers, truth);
    const usCall = microsecondsPerQuery(perCall, options.queries, options.repeats);
    const usOne = microsecondsPerQuery(() => single.searchBatch(queries, K, searchOptions), options.queries, options.repeats);
    const capacity = await machineSpeedup(all.threads);
    const ticksBefore = threadTicks();
    const usAll = microsecondsPerQuery(() => threaded.searchBatch(queries, K, searchOptions), options.queries, options.repeats);
    const split = cpuSplit(ticksBefore, threadTicks());
    rows.push([shortlist, shortlist, recall, usCall, usOne, usAll, usOne / usAll, split, capacity, usCall / usAll]);
    report.progress(rows.length / options.shortlists.length, `shortlist ${shortlist}`);
  }
  single.dispose();
  threaded.dispose();
  report.table(`HnswIndex ${options.n} x ${options.dim}: one search() a query against searchBatch on 1 and ${all.threads} threads (wasm in Node)`,
    ['shortlist', 'beam', 'recall@10', 'search() us/query', 'batch 1 thread us/query', `batch ${all.threads} threads us/query`,
      `batch: 1 thread / ${all.threads} threads`, `CPU split of the ${all.threads}-thread batch`, `machine: ${all.threads} spinning Workers' speedup`,
      `search() / batch ${all.threads} threads`], rows);
  report.note(`"CPU split": the ${all.threads}-thread batch's CPU time over its busiest thread's (Linux /proc/self/task), the most wall-clock speedup ` +
    `that ${all.threads} free cores can give it (threads that share memory bandwidth get less); the measured "1 thread / ${all.threads} threads" is capped by the cores the shared machine left this process ` +
    `(load average ${loadAverage()} when the table was made). "Machine": ${all.threads} Workers spinning a plain JavaScript loop, ` +
    `${all.threads} x the wall time of one over the wall time of ${all.threads} at once, measured just before each row: the speedup the machine allowed any program then.`);
  report.data('rows', rows);

  // The other index types whose searches share out among the threads (unfiltered), at their defaults.
  const otherRows = [];
  for (const type of ['ExactIndex', 'GreedyMipsIndex', 'LshIndex', 'PcaTreeIndex']) {
    const index = new all[type]({ dim, seed: 1 });
    index.add(ids, items);
    index.build();
    const saved = index.toBytes();
    index.dispose();
    const alone = one[type].fromBytes(saved);
    const shared = all[type].fromBytes(saved);
    const answers = shared.searchBatch(queries, K);
    if (!sameAnswers(answers, alone.searchBatch(queries, K))) throw new Error(`the ${type} batches disagree`);
    const usOne = microsecondsPerQuery(() => alone.searchBatch(queries, K), options.queries, options.repeats);
    const capacity = await machineSpeedup(all.threads);
    const ticksBefore = threadTicks();
    const usAll = microsecondsPerQuery(() => shared.searchBatch(queries, K), options.queries, options.repeats);
    const split = cpuSplit(ticksBefore, threadTicks());
    otherRows.push([type, recallOf(answers, truth), usOne, usAll, usOne / usAll, split, capacity]);
    alone.dispose();
    shared.dispose();
  }
  report.table(`Other index types ${options.n} x ${options.dim} at their defaults: searchBatch on 1 and ${all.threads} threads (wasm in Node)`,
    ['index', 'recall@10', 'batch 1 thread us/query', `batch ${all.threads} threads us/query`, `batch: 1 thread / ${all.threads} threads`,
      `CPU split of the ${all.threads}-thread batch`, `machine: ${all.threads} spinning Workers' speedup`], otherRows);
  report.data('other types', otherRows);

  const peer = pythonHnswlib(items, queries, truth, options, all.threads);
  if (peer === null) {
    report.note('python3-hnswlib is not installed on this machine (`/usr/bin/python3 -c \'import hnswlib\'` fails): no side-by-side row.');
  } else {
    // At each of our recalls, the fastest ef of the peer reaching it.
    const peerRows = rows.map(([shortlist, , recall, , , usAll]) => {
      const match = peer.find((row) => row.recall >= recall) ?? peer[peer.length - 1];
      return [shortlist, recall, usAll, match.ef, match.recall, match.us, usAll / match.us];
    });
    report.table(`Beside python3-hnswlib's batch knn_query on ${all.threads} threads (same data, M 16, efConstruction 200)`,
      ['shortlist', 'recall@10', `ours us/query (${all.threads} threads)`, 'hnswlib ef', 'hnswlib recall@10', 'hnswlib us/query', 'ours / hnswlib'], peerRows);
    report.data('python3-hnswlib', peer);
  }
}
