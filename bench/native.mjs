// Our HnswIndex (wasm in Node) against native hnswlib 0.6.2 (Debian's python3-hnswlib, run with
// /usr/bin/python3), side by side on the same data with the same M and efConstruction (issue 36):
// build time on 1 and 2 threads, query time at equal recall@10 (each index's time interpolated on
// its own recall curve), and bytes per item. Inner product, Gaussian items. Ours twice: float rows
// (storage 'f32') and 8-bit codes (storage 'int8'), both against the exact float answer.
//   npm run bench -- native            100,000 x 32, 200 queries, M 16, efConstruction 200
//   options: --items N, --dim d, --queries Q, --M m, --efConstruction e
// Needs python3-hnswlib (apt-get install python3-hnswlib); the benchmark says so when it is missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';

const BEAMS = [10, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384];
const TARGETS = [0.9, 0.95, 0.965, 0.99];
const K = 10;

function option(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

// Native hnswlib: builds on 1 and 2 threads, then for each ef the queries one at a time (as ours
// run), reporting ms per query and the ids; the index's saved size stands for its memory.
const PYTHON = String.raw`
import json, sys, time, os
import numpy as np
import hnswlib
folder, n, d, q, M, efc = sys.argv[1], *map(int, sys.argv[2:7])
beams = json.loads(sys.argv[7])
data = np.fromfile(os.path.join(folder, 'items.f32'), dtype=np.float32).reshape(n, d)
queries = np.fromfile(os.path.join(folder, 'queries.f32'), dtype=np.float32).reshape(q, d)
out = {'build': {}}
index = None
for threads in (1, 2):
    index = hnswlib.Index(space='ip', dim=d)
    index.init_index(max_elements=n, ef_construction=efc, M=M, random_seed=100)
    started = time.perf_counter()
    index.add_items(data, np.arange(n), num_threads=threads)
    out['build'][str(threads)] = time.perf_counter() - started
index.set_num_threads(1)
out['curve'] = []
for ef in beams:
    index.set_ef(max(ef, 10))
    ids = []
    started = time.perf_counter()
    for i in range(q):
        labels, _ = index.knn_query(queries[i:i+1], k=10)
        ids.append([int(x) for x in labels[0]])
    out['curve'].append({'beam': ef, 'ms': (time.perf_counter() - started) * 1000 / q, 'ids': ids})
path = os.path.join(folder, 'native.bin')
index.save_index(path)
out['bytesPerItem'] = os.path.getsize(path) / n
print(json.dumps(out))
`;

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

export default async function native(args, report) {
  const n = option(args, 'items', 100000);
  const d = option(args, 'dim', 32);
  const q = option(args, 'queries', 200);
  const M = option(args, 'M', 16);
  const efConstruction = option(args, 'efConstruction', 200);
  const python = spawnSync('/usr/bin/python3', ['-c', 'import hnswlib, numpy'], { encoding: 'utf8' });
  if (python.status !== 0) {
    report.note('python3-hnswlib is missing: sudo apt-get install python3-hnswlib (Debian), then run again.');
    return;
  }
  report.note(`Configuration: ${n} x ${d} Gaussian items (N(0, 1) coordinates), ${q} Gaussian queries, inner product, top ${K}, M ${M}, efConstruction ${efConstruction}; ours with build: 'immediate', space: 'inner-product' (hnswlib's own space) and efSearch 1 with a shortlist of the beam (so both search the same beam), queries one at a time on one thread.`);
  const random = seededRandom(4242);
  const items = Float32Array.from({ length: n * d }, () => standardNormal(random));
  const queries = Float32Array.from({ length: q * d }, () => standardNormal(random));
  const folder = mkdtempSync(join(tmpdir(), 'bench-native-'));
  try {
    writeFileSync(join(folder, 'items.f32'), items);
    writeFileSync(join(folder, 'queries.f32'), queries);
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const query = (i) => queries.subarray(i * d, (i + 1) * d);

    // The truth: an exact scan.
    const one = await init({ threads: 1 });
    const exact = new one.ExactIndex({ dim: d });
    exact.add(ids, items);
    const truth = Array.from({ length: q }, (_, i) => new Set(exact.search(query(i), K).ids));
    exact.dispose();
    const recallOf = (answers) => answers.reduce((sum, found, i) => sum + found.filter((id) => truth[i].has(id)).length, 0) / (q * K);

    report.progress(0.1, 'native hnswlib');
    const ran = spawnSync('/usr/bin/python3', ['-c', PYTHON, folder, String(n), String(d), String(q), String(M), String(efConstruction), JSON.stringify(BEAMS)],
      { encoding: 'utf8', maxBuffer: 1 << 30 });
    if (ran.status !== 0) throw new Error(`native hnswlib failed: ${ran.stderr}`);
    const theirs = JSON.parse(ran.stdout);
    const nativeCurve = theirs.curve.map(({ beam, ms, ids: found }) => ({ beam, ms, recall: recallOf(found) }));

    // Ours, per storage: the same build on a 1-thread and a 2-thread module; the 1-thread index answers.
    const STORAGES = ['f32', 'int8'];
    const two = await init({ threads: 2 });
    const ours = {};
    for (const [s, storage] of STORAGES.entries()) {
      const builds = {};
      let index = null;
      let bytesPerItem = null;
      for (const threads of [2, 1]) {
        report.progress(0.3 + 0.35 * s + (threads === 2 ? 0 : 0.15), `ours (${storage}), ${threads} thread(s)`);
        const sb = threads === 1 ? one : two;
        const before = sb.memoryUsage().allocatedBytes;
        const built = new sb.HnswIndex({ dim: d, M, efConstruction, efSearch: 1, build: 'immediate', space: 'inner-product', storage, seed: 100 });
        const started = performance.now();
        built.add(ids, items);
        builds[threads] = { seconds: (performance.now() - started) / 1000, threads: sb.threads };
        if (threads === 1) {
          index = built;
          bytesPerItem = (sb.memoryUsage().allocatedBytes - before) / n;
        } else {
          built.dispose();
        }
      }
      const vectorBytesPerItem = index.stats().vectorBytesPerItem;
      // One untimed pass first, so that the engine has compiled the search before it is timed.
      for (let i = 0; i < q; i++) index.search(query(i), K, { shortlist: 64 });
      const curve = BEAMS.map((beam) => {
        const found = [];
        const started = performance.now();
        for (let i = 0; i < q; i++) found.push(Array.from(index.search(query(i), K, { shortlist: beam }).ids));
        return { beam, ms: (performance.now() - started) / q, recall: recallOf(found) };
      });
      index.dispose();
      ours[storage] = { builds, curve, bytesPerItem, vectorBytesPerItem };
    }

    report.table('Build (seconds)', ['threads', 'native hnswlib', 'ours f32 (wasm)', 'ours int8 (wasm)', 'f32 / native', 'int8 / native'], [1, 2].map((threads) => {
      const native = theirs.build[String(threads)];
      const [a, b] = STORAGES.map((storage) => ours[storage].builds[threads].seconds);
      return [`${threads} (ours ran on ${ours.f32.builds[threads].threads})`, native, a, b, a / native, b / native];
    }));
    report.table('Query at equal recall@10 against the exact float top 10 (ms per query, one thread, interpolated on each curve)',
      ['recall@10', 'native hnswlib', 'ours f32 (wasm)', 'ours int8 (wasm)', 'f32 / native', 'int8 / native'],
      TARGETS.map((target) => {
        const a = timeAt(nativeCurve, target);
        const [b, c] = STORAGES.map((storage) => timeAt(ours[storage].curve, target));
        return [target, a ?? 'not reached', b ?? 'not reached', c ?? 'not reached', a && b ? b / a : '—', a && c ? c / a : '—'];
      }));
    report.table('The curves (beam: hnswlib ef; ours efSearch 1 and a shortlist of the beam, so the beam is the same)',
      ['beam', 'native recall', 'native ms', 'f32 recall', 'f32 ms', 'int8 recall', 'int8 ms'],
      BEAMS.map((beam, i) => [beam, nativeCurve[i].recall, nativeCurve[i].ms, ours.f32.curve[i].recall, ours.f32.curve[i].ms,
        ours.int8.curve[i].recall, ours.int8.curve[i].ms]));
    report.table('Memory per item (bytes)', ['', 'native hnswlib (saved index)', 'ours f32', 'ours int8'], [
      ['whole index (native: saved file; ours: wasm heap growth, vectors, graph, labels)', theirs.bytesPerItem, ours.f32.bytesPerItem, ours.int8.bytesPerItem],
      ['item vectors (ours: stats().vectorBytesPerItem, the store and the graph\'s copy)', 4 * d, ours.f32.vectorBytesPerItem, ours.int8.vectorBytesPerItem],
    ]);
    report.data('curves', { native: nativeCurve, f32: ours.f32.curve, int8: ours.int8.curve });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
