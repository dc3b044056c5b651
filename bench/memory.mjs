// Memory that returns (issue 57, point 3): what an index holds on the wasm heap and in the process
// after add(), build(), toBytes() and fromBytes(), against the bytes it must keep, for ExactIndex and
// HnswIndex in f32 and int8, and native hnswlib's (Debian's python3-hnswlib) resident memory after a
// build on the same data. Every measurement runs in a process of its own (bench/lib/memory-run.mjs):
// wasm memory never shrinks, so its size is the high-water mark of all the process did.
//   npm run bench -- memory [--n=100000] [--dim=32] [--fashion] [--types=exact,hnsw] [--storages=f32,int8]
//                           [--threads=1] [--baseline=<another build's dist/index.js>]
// --fashion takes Fashion-MNIST's 60,000 training images (784 pixels in [0, 1]; --n fewer) instead of
// Gaussian rows. With --baseline, each measurement runs on that build too, and the tables show both.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readImages } from './mips-real.mjs';
import { numberArg, textArg } from './lib/args.mjs';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';

const RUNNER = fileURLToPath(new URL('./lib/memory-run.mjs', import.meta.url));
const THIS_BUILD = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const MB = 2 ** 20;

// Native hnswlib on the same rows, same parameters: resident bytes once the rows are read (numpy,
// no copy) and after the build, and the peak.
const PYTHON = `
import sys, json, numpy, hnswlib
path, n, dim, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def resident():
    fields = dict(line.split(':', 1) for line in open('/proc/self/status'))
    kib = lambda name: int(fields[name].split()[0]) * 1024
    return { 'rss': kib('VmRSS'), 'peakRss': kib('VmHWM') }
data = numpy.fromfile(path, dtype=numpy.float32, count=n * dim).reshape(n, dim)
read = resident()
index = hnswlib.Index(space='ip', dim=dim)
index.init_index(max_elements=n, ef_construction=200, M=16, random_seed=1)
index.add_items(data, numpy.arange(n), num_threads=threads)
print(json.dumps({ 'read': read, 'build': resident() }))
`;

function gaussianRows(n, dim) {
  const random = seededRandom(57);
  const values = new Float32Array(n * dim);
  for (let i = 0; i < values.length; i++) values[i] = standardNormal(random);
  return values;
}

function run(config) {
  const ran = spawnSync(process.execPath, [RUNNER, JSON.stringify(config)], { encoding: 'utf8', maxBuffer: 2 ** 24 });
  if (ran.status !== 0) throw new Error(`memory-run failed: ${ran.stderr}`);
  return JSON.parse(ran.stdout.trim().split('\n').pop());
}

export default async function memory(args, report) {
  const fashion = args.includes('--fashion');
  const threads = numberArg(args, 'threads', 1);
  const types = textArg(args, 'types', 'exact,hnsw').split(',');
  const storages = textArg(args, 'storages', 'f32,int8').split(',');
  const baseline = textArg(args, 'baseline', undefined);
  const builds = baseline ? [['before', resolve(baseline)], ['after', THIS_BUILD]] : [['this build', THIS_BUILD]];
  let rows;
  let n;
  let dim;
  if (fashion) {
    const images = readImages('train-images-idx3-ubyte.gz', numberArg(args, 'n', 60000));
    ({ count: n, dim } = images);
    rows = images.vectors;
  } else {
    n = numberArg(args, 'n', 100000);
    dim = numberArg(args, 'dim', 32);
    rows = gaussianRows(n, dim);
  }
  // The Euclidean reduction on Fashion-MNIST (what 'auto' picks there), inner product on Gaussian rows.
  const space = fashion ? 'euclidean' : 'inner-product';
  const folder = mkdtempSync(join(tmpdir(), 'sb-memory-'));
  const data = join(folder, 'rows.f32');
  writeFileSync(data, new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
  const dataBytes = rows.byteLength;
  rows = null;
  report.note(`Configuration: ${fashion ? 'Fashion-MNIST training images' : 'Gaussian rows (N(0, 1), seed 57)'}, ${n} x ${dim} ` +
    `(${(dataBytes / MB).toFixed(1)} MB as float32, held by the process throughout); HnswIndex M 16, efConstruction 200, ` +
    `space '${space}', seed 1, add() of all rows then build(); ${threads} thread(s); builds: ${builds.map(([label, path]) => `${label} = ${path}`).join(', ')}; ` +
    `load average at the start ${loadavg().map((x) => x.toFixed(1)).join(' ')}. Each row is one process of its own. ` +
    '"in use" is malloc\'s bytes in use (mallinfo), "wasm memory" the module\'s memory size (it never shrinks: the high-water mark), ' +
    '"RSS" the process\'s resident memory (VmRSS) and its peak (VmHWM); all in MB (2^20 bytes).');
  const results = [];
  try {
    const jobs = types.flatMap((type) => storages.map((storage) => ({ type, storage })));
    for (const [j, { type, storage }] of jobs.entries()) {
      const measured = {};
      for (const [b, [label, dist]] of builds.entries()) {
        report.progress((j * builds.length + b) / (jobs.length * builds.length), `${type} ${storage} ${label}`);
        const state = join(folder, `state-${b}.bin`);
        const base = { dist, data, n, dim, type, storage, space, threads };
        const built = run({ ...base, save: state });
        const restored = run({ ...base, restore: state });
        measured[label] = { built, restored };
      }
      const table = [];
      for (const [label] of builds) {
        const { built, restored } = measured[label];
        const line = (step, s) => {
          return [label, step, s.allocatedBytes / MB, s.heapBytes / MB, s.heapBytes / s.allocatedBytes, s.rss / MB, s.peakRss / MB];
        };
        table.push(line('add', built.steps.add), line('build', built.steps.build), line('toBytes', built.steps.toBytes),
          line('fromBytes (a fresh process)', restored.steps.fromBytes));
      }
      const digests = builds.map(([label]) => measured[label].built.digest);
      const restoredDigests = builds.map(([label]) => measured[label].restored.digest);
      report.table(`${type === 'hnsw' ? 'HnswIndex' : 'ExactIndex'} ${storage}, ${n} x ${dim}`,
        ['build', 'after', 'in use', 'wasm memory', 'wasm memory / in use', 'RSS', 'peak RSS'], table);
      const state = measured[builds.at(-1)[0]].built.stateBytes;
      report.note(`Saved state ${(state / MB).toFixed(1)} MB; toBytes() ${builds.map(([label]) => `${label} ${measured[label].built.times.toBytes.toFixed(3)} s`).join(', ')}; ` +
        `fromBytes() ${builds.map(([label]) => `${label} ${measured[label].restored.times.fromBytes.toFixed(3)} s`).join(', ')}. Answers of 20 searches (ids and scores, sha-256): ` +
        `${builds.map(([label], b) => `${label} ${digests[b]} (restored ${restoredDigests[b]})`).join(', ')}` +
        `${new Set([...digests, ...restoredDigests]).size === 1 ? ': the same bits' : ': DIFFERENT'}.`);
      results.push({ type, storage, measured, stateBytes: state });
    }
    // The headline: the high-water mark (wasm memory, which never shrinks) over the bytes in use,
    // after the build and toBytes() in one process, after fromBytes() in another.
    const ratio = (step) => step.heapBytes / step.allocatedBytes;
    report.table('Wasm memory over the bytes in use', ['index', ...builds.flatMap(([label]) => [`${label}: build`, `${label}: + toBytes`, `${label}: fromBytes`])],
      results.map(({ type, storage, measured }) => [`${type === 'hnsw' ? 'HnswIndex' : 'ExactIndex'} ${storage}`,
        ...builds.flatMap(([label]) => [ratio(measured[label].built.steps.build), ratio(measured[label].built.steps.toBytes),
          ratio(measured[label].restored.steps.fromBytes)])]));
    const python = spawnSync('/usr/bin/python3', ['-c', PYTHON, data, String(n), String(dim), String(threads)], { encoding: 'utf8' });
    if (python.status === 0) {
      const native = JSON.parse(python.stdout.trim());
      report.table(`Native hnswlib (python3-hnswlib, space 'ip', M 16, efConstruction 200), ${n} x ${dim}`,
        ['after', 'RSS', 'peak RSS'], [['rows read', native.read.rss / MB, native.read.peakRss / MB], ['build', native.build.rss / MB, native.build.peakRss / MB]]);
      const hnsw = results.filter((result) => result.type === 'hnsw');
      const last = builds.at(-1)[0];
      report.table('RSS after the build over native hnswlib\'s', ['storage', ...builds.map(([label]) => label)],
        hnsw.map((result) => [result.storage, ...builds.map(([label]) => result.measured[label].built.steps.build.rss / native.build.rss)]));
      report.data('native', native);
      report.note(`Native hnswlib's RSS after its build ${(native.build.rss / MB).toFixed(1)} MB; ours (${last}) ` +
        hnsw.map((result) => `${result.storage} ${(result.measured[last].built.steps.build.rss / MB).toFixed(1)} MB`).join(', ') + '.');
    } else {
      report.note(`python3-hnswlib did not run (apt-get install python3-hnswlib): ${python.stderr.trim().split('\n').pop()}`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  report.data('results', results);
}
