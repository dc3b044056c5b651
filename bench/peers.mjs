// Our HnswIndex (wasm in Node) against native hnswlib 0.6.2 (Debian's python3-hnswlib, run with
// /usr/bin/python3, where installed) and the npm packages a JavaScript user would pick instead
// (hnswlib-node, usearch: devDependencies; issue 57), side by side on the same data with the same M
// and efConstruction (issue 36):
// build time, query time at equal recall@10 (each index's time interpolated on its own recall
// curve; the two sides' passes timed in turn at each beam), and bytes per item. Inner product. Ours twice: float rows (storage 'f32') and 8-bit codes
// (storage 'int8'), both against the exact float answer. Three data sets:
//   gaussian  100,000 x 32 Gaussian items, 200 Gaussian queries; builds on 1 and 2 threads
//   million   10^6 x 16 Gaussian items, 200 queries; one build per index, on 2 threads
//   fashion   Fashion-MNIST (Debian's dataset-fashion-mnist): the 60,000 training images as items
//             (784 pixels in [0, 1]), 200 test images as queries, raw inner product; one build per
//             index, on 2 threads
//   npm run bench -- peers                       all three, M 16, efConstruction 200
//   options: --only gaussian|million|fashion (repeatable), --items N and --dim d (gaussian),
//            --queries Q, --M m, --efConstruction e
// `npm run bench -- native` runs it too: that was its name before issue 57 added the npm peers, and
// its runs from then are bench/results/native*.md; a run under either name now writes peers.md. A
// side whose package is missing (python3-hnswlib: apt-get install python3-hnswlib) is left out with a note.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import init from '../dist/index.js';
import { readImages } from './mips-real.mjs';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { spacedNumberArg } from './lib/args.mjs';

const BEAMS = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384];
const TARGETS = [0.9, 0.95, 0.965, 0.99];
const K = 10;
// Timed passes per beam and side (the median is reported).
const PASSES = 5;
const MIN_PASS_MS = 100;

// Native hnswlib: builds on 1 and 2 threads, then for each ef the answers of one pass (queries one
// at a time, as ours run); the index's saved size stands for its memory. Its query times come from
// NATIVE_TIMER below, in passes interleaved with ours.
const PYTHON = String.raw`
import json, sys, time, os, resource
import numpy as np
import hnswlib
folder, n, d, q, M, efc = sys.argv[1], *map(int, sys.argv[2:7])
beams = json.loads(sys.argv[7])
threads_list = json.loads(sys.argv[8])
data = np.fromfile(os.path.join(folder, 'items.f32'), dtype=np.float32).reshape(n, d)
queries = np.fromfile(os.path.join(folder, 'queries.f32'), dtype=np.float32).reshape(q, d)
out = {'build': {}}
index = None
# The process's peak resident memory (KiB on Linux) before and after its first build: what holding
# the built index cost it at the most.
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for threads in threads_list:
    index = None
    index = hnswlib.Index(space='ip', dim=d)
    index.init_index(max_elements=n, ef_construction=efc, M=M, random_seed=100)
    started = time.perf_counter()
    index.add_items(data, np.arange(n), num_threads=threads)
    out['build'][str(threads)] = time.perf_counter() - started
    if 'rssGrowth' not in out:
        out['rssGrowth'] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) * 1024
index.set_num_threads(1)
out['curve'] = []
for ef in beams:
    index.set_ef(max(ef, 10))
    ids = []
    for i in range(q):
        labels, _ = index.knn_query(queries[i:i+1], k=10)
        ids.append([int(x) for x in labels[0]])
    out['curve'].append({'beam': ef, 'ids': ids})
path = os.path.join(folder, 'native.bin')
index.save_index(path)
out['bytesPerItem'] = os.path.getsize(path) / n
print(json.dumps(out))
`;

// The native index saved by PYTHON, loaded once and kept: each line "ef repeats" on its input runs
// two passes over the queries (one at a time, `repeats` times over) at that ef and answers with the
// second's milliseconds per query (the first warms the caches that the other side's passes took).
const NATIVE_TIMER = String.raw`
import sys, time, os
import numpy as np
import hnswlib
folder, n, d, q = sys.argv[1], *map(int, sys.argv[2:5])
queries = np.fromfile(os.path.join(folder, 'queries.f32'), dtype=np.float32).reshape(q, d)
index = hnswlib.Index(space='ip', dim=d)
index.load_index(os.path.join(folder, 'native.bin'), max_elements=n)
index.set_num_threads(1)
print('ready', flush=True)
for line in sys.stdin:
    ef, repeats = map(int, line.split())
    index.set_ef(max(ef, 10))
    for _ in range(repeats):
        for i in range(q):
            index.knn_query(queries[i:i+1], k=10)
    started = time.perf_counter()
    for _ in range(repeats):
        for i in range(q):
            index.knn_query(queries[i:i+1], k=10)
    print((time.perf_counter() - started) * 1000 / (q * repeats), flush=True)
`;

// NATIVE_TIMER as a child process: pass(ef, repeats) resolves to its milliseconds per query.
function startNativeTimer(folder, n, d, q) {
  const child = spawn('/usr/bin/python3', ['-c', NATIVE_TIMER, folder, String(n), String(d), String(q)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  // A timer that ends (an error: its stderr is the benchmark's) answers every waiting pass so.
  child.on('exit', (code) => waiting.splice(0).forEach((answer) => answer(`native timer exited with ${code}`)));
  child.stdin.on('error', () => {});  // a write after the exit: the exit above answers
  const next = () => new Promise((resolve) => waiting.push(resolve));
  const number = (line) => {
    if (!Number.isFinite(Number(line))) throw new Error(line);
    return Number(line);
  };
  const ready = next();
  return {
    ready: ready.then((line) => {
      if (line !== 'ready') throw new Error(`native timer: ${line}`);
    }),
    pass(ef, repeats) {
      const answer = next();
      child.stdin.write(`${ef} ${repeats}\n`);
      return answer.then(number);
    },
    stop() {
      child.stdin.end();
      lines.close();
    },
  };
}

// The time at `target` recall on a curve of { recall, ms } (sorted by beam), linearly interpolated;
// null when the curve never reaches it.
function timeAt(curve, target) {
  for (let i = 0; i < curve.length; i++) {
    if (curve[i].recall >= target) {
      if (i === 0) return curve[0].ms;
      const a = curve[i - 1];
      const b = curve[i];
      return a.ms + ((b.ms - a.ms) * (target - a.recall)) / (b.recall - a.recall || 1);
    }
  }
  return null;
}

// The data sets: items and queries (Float32Array), their count and dimension, and the thread counts
// each index is built on (the last build answers the queries).
function gaussianData(n, d, q, seed) {
  const random = seededRandom(seed);
  const items = Float32Array.from({ length: n * d }, () => standardNormal(random));
  const queries = Float32Array.from({ length: q * d }, () => standardNormal(random));
  return { n, d, q, items, queries };
}

const DATASETS = {
  gaussian: (args, q) => {
    const n = spacedNumberArg(args, 'items', 100000);
    const d = spacedNumberArg(args, 'dim', 32);
    return { ...gaussianData(n, d, q, 4242), title: `${n} x ${d} Gaussian`, threads: [1, 2],
      description: `${n} x ${d} Gaussian items (N(0, 1) coordinates), ${q} Gaussian queries` };
  },
  million: (args, q) => ({ ...gaussianData(1000000, 16, q, 4243), title: '1000000 x 16 Gaussian', threads: [2],
    description: `1,000,000 x 16 Gaussian items, ${q} Gaussian queries, each index built once (2 threads)` }),
  fashion: (args, q) => {
    const items = readImages('train-images-idx3-ubyte.gz', 60000);
    const queries = readImages('t10k-images-idx3-ubyte.gz', q);
    return { n: items.count, d: items.dim, q: queries.count, items: items.vectors, queries: queries.vectors,
      title: `Fashion-MNIST ${items.count} x ${items.dim}`, threads: [2],
      // In hnswlib's inner-product space both graphs top out near recall@10 0.61 here (a few
      // large-norm images are every search's end; our default space 'auto' takes the euclidean
      // reduction instead): equal recall is compared where both curves reach.
      targets: [0.5, 0.55, 0.6],
      description: `Fashion-MNIST: ${items.count} training images as items (${items.dim} pixels in [0, 1]), ${queries.count} test images as queries, raw inner product, each index built once (2 threads)` };
  },
};

// The peers a JavaScript user would pick instead, from npm (devDependencies): each side builds on a
// thread count (null when it cannot: hnswlib-node adds one point a call) and answers one query at a
// beam. Missing packages (an installed tarball has no devDependencies) are skipped with a note.
async function jsPeers(report) {
  const peers = [];
  try {
    const { default: hnswlibNode } = await import('hnswlib-node');
    const version = JSON.parse(readFileSync(new URL('../node_modules/hnswlib-node/package.json', import.meta.url), 'utf8')).version;
    peers.push({
      name: `hnswlib-node ${version}`,
      threads: [1],
      build({ n, d, items, M, efConstruction }) {
        const rows = Array.from({ length: n }, (_, i) => Array.from(items.subarray(i * d, (i + 1) * d)));
        const index = new hnswlibNode.HierarchicalNSW('ip', d);
        index.initIndex(n, M, efConstruction, 100);
        const started = performance.now();
        for (let i = 0; i < n; i++) index.addPoint(rows[i], i);
        return { seconds: (performance.now() - started) / 1000, index };
      },
      searcher(index, queries, d) {
        // Its searchKnn takes a plain Array: converted once, outside the timed passes.
        const arrays = Array.from({ length: queries.length / d }, (_, i) => Array.from(queries.subarray(i * d, (i + 1) * d)));
        return (beam) => {
          index.setEf(Math.max(beam, K));
          return (i) => index.searchKnn(arrays[i], K).neighbors;
        };
      },
    });
  } catch (error) {
    report.note(`hnswlib-node is not installed (${error.code ?? error.message}): no row for it.`);
  }
  try {
    const { Index } = await import('usearch');
    const version = JSON.parse(readFileSync(new URL('../node_modules/usearch/package.json', import.meta.url), 'utf8')).version;
    const config = (d, M, efConstruction, beam) => ({ dimensions: d, metric: 'ip', quantization: 'f32', connectivity: M, expansion_add: efConstruction, expansion_search: beam });
    peers.push({
      name: `usearch ${version} f32`,
      threads: [1, 2],
      build({ n, d, items, M, efConstruction, threads, folder }) {
        const index = new Index(config(d, M, efConstruction, 64));
        const keys = BigUint64Array.from({ length: n }, (_, i) => BigInt(i));
        const started = performance.now();
        index.add(keys, items, threads);
        const seconds = (performance.now() - started) / 1000;
        // Its beam is fixed when an index is made: each beam views the saved graph (memory-mapped).
        index.save(join(folder, 'usearch.bin'));
        return { seconds, index: { path: join(folder, 'usearch.bin'), config: (beam) => config(d, M, efConstruction, beam) } };
      },
      searcher(saved, queries, d) {
        const views = new Map();
        return (beam) => {
          if (!views.has(beam)) {
            const view = new Index(saved.config(beam));
            view.view(saved.path);
            views.set(beam, view);
          }
          const view = views.get(beam);
          return (i) => Array.from(view.search(queries.subarray(i * d, (i + 1) * d), K, 1).keys, Number);
        };
      },
    });
  } catch (error) {
    report.note(`usearch is not installed (${error.code ?? error.message}): no row for it.`);
  }
  return peers;
}

async function runDataset(data, config, modules, peers, python, report, progress) {
  const { n, d, q, items, queries, threads } = data;
  const { M, efConstruction } = config;
  const folder = mkdtempSync(join(tmpdir(), 'bench-native-'));
  try {
    writeFileSync(join(folder, 'items.f32'), items);
    writeFileSync(join(folder, 'queries.f32'), queries);
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const query = (i) => queries.subarray(i * d, (i + 1) * d);

    // The truth: an exact scan.
    const exact = new modules[1].ExactIndex({ dim: d });
    exact.add(ids, items);
    const truth = Array.from({ length: q }, (_, i) => new Set(exact.search(query(i), K).ids));
    exact.dispose();
    const recallOf = (answers) => answers.reduce((sum, found, i) => sum + found.filter((id) => truth[i].has(id)).length, 0) / (q * K);

    // Each side: its name, builds per thread count, a pass(beam) answering query i, and its memory.
    const sides = [];
    let theirs = null;
    if (python) {
      progress(0.05, 'native hnswlib');
      const ran = spawnSync('/usr/bin/python3', ['-c', PYTHON, folder, String(n), String(d), String(q), String(M), String(efConstruction),
        JSON.stringify(BEAMS), JSON.stringify(threads)], { encoding: 'utf8', maxBuffer: 1 << 30 });
      if (ran.status !== 0) throw new Error(`native hnswlib failed: ${ran.stderr}`);
      theirs = JSON.parse(ran.stdout);
      sides.push({ name: 'native hnswlib', peer: true, builds: Object.fromEntries(Object.entries(theirs.build).map(([t, seconds]) => [t, { seconds }])),
        found: theirs.curve.map(({ ids: found }) => found) });
    }

    // Ours, per storage: the same build on each thread count's module (the 1-thread build last when
    // there is one, as native's); the last build answers and its heap growth is its memory.
    const ours = {};
    const order = [...threads].sort((a, b) => b - a);
    for (const [s, storage] of STORAGES.entries()) {
      const builds = {};
      for (const [t, count] of order.entries()) {
        progress(0.1 + 0.25 * s + (0.25 * t) / order.length, `ours (${storage}), ${count} thread(s)`);
        const sb = modules[count];
        const before = sb.memoryUsage();
        const built = new sb.HnswIndex({ dim: d, M, efConstruction, efSearch: 1, build: 'immediate', space: 'inner-product', storage, seed: 100 });
        const started = performance.now();
        built.add(ids, items);
        builds[count] = { seconds: (performance.now() - started) / 1000, threads: sb.threads };
        if (t === order.length - 1) {
          const after = sb.memoryUsage();
          // Wasm memory never shrinks: its growth by the build is the build's high-water mark (where
          // the module's earlier work had not already grown it), beside the live bytes it left.
          ours[storage] = { bytesPerItem: (after.allocatedBytes - before.allocatedBytes) / n, vectorBytesPerItem: built.stats().vectorBytesPerItem,
            heapGrowth: after.heapBytes - before.heapBytes, liveGrowth: after.allocatedBytes - before.allocatedBytes };
          sides.push({ name: `ours ${storage} (wasm)`, storage, builds, index: built,
            at: (beam) => (i) => built.search(query(i), K, { shortlist: beam }).ids, dispose: () => built.dispose() });
        } else {
          built.dispose();
        }
      }
    }
    for (const [p, peer] of peers.entries()) {
      const builds = {};
      let kept = null;
      for (const count of [...threads].sort((a, b) => b - a)) {
        if (!peer.threads.includes(count)) continue;
        progress(0.6 + (0.2 * p) / peers.length, `${peer.name}, ${count} thread(s)`);
        const { seconds, index } = peer.build({ n, d, items, M, efConstruction, threads: count, folder });
        builds[count] = { seconds };
        kept = index;
      }
      if (kept) sides.push({ name: peer.name, peer: true, builds, at: peer.searcher(kept, queries, d) });
    }
    // An answer pass of a side at a beam, repeated: its milliseconds a query.
    const jsPass = (side, beam, repeats) => {
      const answer = side.at(beam);
      const run = () => {
        for (let r = 0; r < repeats; r++) {
          for (let i = 0; i < q; i++) answer(i);
        }
      };
      run();
      const started = performance.now();
      run();
      return (performance.now() - started) / (q * repeats);
    };
    const timer = python ? startNativeTimer(folder, n, d, q) : null;
    try {
      progress(0.85, 'queries, interleaved');
      await timer?.ready;
      // First a pass at every beam on every side, untimed: V8 runs a wasm function first as
      // baseline code and compiles it optimised in the background once it is hot, so without this
      // the first beams of the first index were timed partly on baseline code (in one run f32 at a
      // beam of 10 took longer than at 16); the answers of the JavaScript sides come from this pass.
      for (const side of sides.filter((s) => s.at)) {
        side.found = BEAMS.map((beam) => {
          const answer = side.at(beam);
          return Array.from({ length: q }, (_, i) => Array.from(answer(i)));
        });
      }
      if (timer) for (const beam of BEAMS) await timer.pass(beam, 1);
      // Then at each beam PASSES rounds in which each side in turn runs a warming pass and a timed
      // one: the median of each side's. Native hnswlib's time for one beam varied by up to 20%
      // between runs of this benchmark when its passes all came before ours, which moved the ratios
      // with it; in turn, a slow minute slows both sides, and the warming pass gives each timed pass
      // the caches its own side left (a timed pass right after the other side's had measured
      // native's time 1.1x to 1.25x longer on Fashion-MNIST, ours 1.04x).
      const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
      for (const side of sides) side.times = [];
      const f32 = sides.find((side) => side.storage === 'f32');
      for (const beam of BEAMS) {
        // A pass lasts at least MIN_PASS_MS (the queries repeated): passes of a few milliseconds
        // right after the process had waited for the other side's measured the first beams up to
        // 1.6x slower than the beams after them.
        const probe = jsPass(f32, beam, 1);
        const repeats = Math.max(1, Math.ceil(MIN_PASS_MS / (probe * q)));
        const samples = sides.map(() => []);
        for (let round = 0; round < PASSES; round++) {
          for (const [s, side] of sides.entries()) samples[s].push(side.at ? jsPass(side, beam, repeats) : await timer.pass(beam, repeats));
        }
        sides.forEach((side, s) => side.times.push(median(samples[s])));
      }
    } finally {
      timer?.stop();
      sides.forEach((side) => side.dispose?.());
    }
    for (const side of sides) side.curve = BEAMS.map((beam, b) => ({ beam, ms: side.times[b], recall: recallOf(side.found[b]) }));

    const title = data.title;
    const peerSides = sides.filter((side) => side.peer);
    const ourSides = sides.filter((side) => !side.peer);
    const fastest = (values) => {
      const reached = values.filter((value) => value !== null);
      return reached.length > 0 ? Math.min(...reached) : null;
    };
    const cell = (value) => value ?? 'not reached';
    const ratio = (a, b) => (a !== null && b !== null ? a / b : '—');
    report.table(`${title}: build (seconds; "—" where a side does not build on that many threads)`,
      ['threads', ...sides.map((side) => side.name), ...ourSides.map((side) => `${side.storage} / fastest peer`)],
      threads.map((count) => {
        const seconds = sides.map((side) => side.builds[count]?.seconds ?? null);
        const best = fastest(seconds.filter((_, s) => sides[s].peer));
        return [`${count} (ours ran on ${ourSides[0].builds[count].threads})`, ...seconds.map((value) => value ?? '—'),
          ...ourSides.map((side) => ratio(side.builds[count].seconds, best))];
      }));
    report.table(`${title}: query at equal recall@10 against the exact float top 10 (ms per query, one query a call, one thread, interpolated on each curve)`,
      ['recall@10', ...sides.map((side) => side.name), ...ourSides.map((side) => `${side.storage} / fastest peer`)],
      (data.targets ?? TARGETS).map((target) => {
        const times = sides.map((side) => timeAt(side.curve, target));
        const best = fastest(times.filter((_, s) => sides[s].peer));
        return [target, ...times.map(cell), ...ourSides.map((side) => ratio(timeAt(side.curve, target), best))];
      }));
    report.table(`${title}: the curves (beam: hnswlib's ef, usearch's expansion_search; ours efSearch 1 and a shortlist of the beam, so the beam is the same)`,
      ['beam', ...sides.flatMap((side) => [`${side.name} recall`, `${side.name} ms`])],
      BEAMS.map((beam, i) => [beam, ...sides.flatMap((side) => [side.curve[i].recall, side.curve[i].ms])]));
    if (theirs) {
      report.table(`${title}: memory per item (bytes)`, ['', 'native hnswlib (saved index)', 'ours f32', 'ours int8'], [
        ['whole index (native: saved file; ours: wasm heap growth, vectors, graph, labels)', theirs.bytesPerItem, ours.f32.bytesPerItem, ours.int8.bytesPerItem],
        ['item vectors (native: 4d; ours: stats().vectorBytesPerItem, the store\'s row and the graph\'s reference to it, or its copy of a row of at most 64 bytes)', 4 * d, ours.f32.vectorBytesPerItem, ours.int8.vectorBytesPerItem],
        ['peak memory grown by the build (native: the process\'s peak RSS; ours: wasm memory, which never shrinks; 0 where earlier work had grown it)', theirs.rssGrowth / n, ours.f32.heapGrowth / n, ours.int8.heapGrowth / n],
        ['that peak over the live bytes the index keeps (ours: allocated; native: its saved size)', theirs.rssGrowth / (theirs.bytesPerItem * n), ours.f32.heapGrowth / ours.f32.liveGrowth, ours.int8.heapGrowth / ours.int8.liveGrowth],
      ]);
    }
    return Object.fromEntries(sides.map((side) => [side.name, side.curve]));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const STORAGES = ['f32', 'int8'];

export default async function native(args, report) {
  const q = spacedNumberArg(args, 'queries', 200);
  const config = { M: spacedNumberArg(args, 'M', 16), efConstruction: spacedNumberArg(args, 'efConstruction', 200) };
  const only = args.flatMap((arg, i) => (args[i - 1] === '--only' ? [arg] : []));
  const names = only.length > 0 ? only : Object.keys(DATASETS);
  for (const name of names) {
    if (!DATASETS[name]) throw new Error(`--only takes ${Object.keys(DATASETS).join(', ')}`);
  }
  const python = spawnSync('/usr/bin/python3', ['-c', 'import hnswlib, numpy'], { encoding: 'utf8' }).status === 0;
  if (!python) report.note('python3-hnswlib is missing (sudo apt-get install python3-hnswlib on Debian): no native hnswlib row.');
  const peers = await jsPeers(report);
  const modules = { 1: await init({ threads: 1 }), 2: await init({ threads: 2 }) };
  report.note(`Configuration: inner product, top ${K}, M ${config.M}, efConstruction ${config.efConstruction}; ours with build: 'immediate', space: 'inner-product' (hnswlib's own space) and efSearch 1 with a shortlist of the beam (so every side searches the same beam), queries one at a time on one thread (on the module that built the index); native hnswlib's index saved after its build and loaded into a second Python process that times its passes on request (a Python call a query), the npm peers in this process; at each beam every side runs in turn: ${PASSES} rounds in which each side runs an untimed pass and a timed one (each over the queries repeated to last at least ${MIN_PASS_MS} ms), the median reported, all after one untimed pass at every beam (warm code on every side).`);
  // The machine is shared: its load beside the timings says how far to trust them.
  const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');
  report.note(`Machine load at the start (1, 5, 15 min averages): ${load()}.`);
  const curves = {};
  for (const [i, name] of names.entries()) {
    const data = DATASETS[name](args, q);
    report.note(`Data set ${name}: ${data.description}.`);
    curves[name] = await runDataset(data, config, modules, peers, python, report, (fraction, label) =>
      report.progress((i + fraction) / names.length, `${name}: ${label}`));
  }
  report.progress(1, 'done');
  report.note(`Machine load at the end (1, 5, 15 min averages): ${load()}.`);
  report.data('curves', curves);
}
