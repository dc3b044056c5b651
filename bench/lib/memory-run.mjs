// One measurement of bench/memory.mjs in a process of its own (wasm memory never shrinks, so each
// high-water mark needs a fresh module): node bench/lib/memory-run.mjs '<json>' with
//   { dist: path of a build's dist/index.js, data: path of n x dim float32 rows, n, dim,
//     type: 'exact' | 'hnsw', storage, space, threads, save: path for the state | restore: its path }
// Prints one JSON line: the module's memory (wasm memory's size, malloc's bytes in use) and the
// process's resident memory after each step, and a digest of a few searches' answers (the same
// digest from two builds: the same bits).
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const config = JSON.parse(process.argv[2]);
const { init } = await import(config.dist);
const sb = await init({ threads: config.threads });

// The process's resident bytes now and at their peak (Linux: VmRSS, VmHWM).
function resident() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
}
const steps = {};
const mark = (step) => {
  const { heapBytes, allocatedBytes } = sb.memoryUsage();
  steps[step] = { heapBytes, allocatedBytes, ...resident() };
};
mark('start');

const file = readFileSync(config.data);
const vectors = new Float32Array(file.buffer, file.byteOffset, config.n * config.dim);
const ids = Uint32Array.from({ length: config.n }, (_, i) => i);
const Class = { exact: sb.ExactIndex, hnsw: sb.HnswIndex }[config.type];
let index;
let stateBytes;
// Seconds of the whole run, and of toBytes() and fromBytes() alone.
const times = {};
const started = performance.now();
if (config.restore) {
  const bytes = readFileSync(config.restore);
  stateBytes = bytes.length;
  mark('read');
  const start = performance.now();
  index = Class.fromBytes(bytes);
  times.fromBytes = (performance.now() - start) / 1000;
  mark('fromBytes');
} else {
  const options = { dim: config.dim, storage: config.storage, seed: 1 };
  if (config.type === 'hnsw') Object.assign(options, { M: 16, efConstruction: 200, space: config.space });
  index = new Class(options);
  index.add(ids, vectors);
  mark('add');
  index.build();
  mark('build');
  const start = performance.now();
  const bytes = index.toBytes();
  times.toBytes = (performance.now() - start) / 1000;
  stateBytes = bytes.length;
  mark('toBytes');
  if (config.save) writeFileSync(config.save, bytes);
}
times.total = (performance.now() - started) / 1000;
const digest = createHash('sha256');
for (let q = 0; q < 20; q++) {
  const { ids: found, scores } = index.search(vectors.subarray(q * 37 % config.n * config.dim, (q * 37 % config.n + 1) * config.dim), 10);
  digest.update(new Uint8Array(found.buffer)).update(new Uint8Array(scores.buffer));
}
console.log(JSON.stringify({ steps, stateBytes, times, digest: digest.digest('hex').slice(0, 16), threads: sb.threads }));
index.dispose();
