// HnswIndex's build against native hnswlib 0.6.2 (Debian's python3-hnswlib), interleaved pass by
// pass so that a shared machine's load falls on both alike: node bench/lib/build-against-native.mjs
// (after the wasm build). N (items, 100,000), D (32), P (passes, 3) and THREADS ("1,2") from the
// environment; M 16, efConstruction 200, inner product, the same Gaussian items for both. Each pass
// builds, per thread count, native hnswlib (a Python process), then ours in f32 and in int8
// (init({ threads }): the single-thread build on 1, the threaded build on more). Reported: wall
// seconds, the median and the fastest pass (the one least disturbed by other work), and our ratios.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../dist/index.js';

const n = Number(process.env.N || 100000), d = Number(process.env.D || 32), passes = Number(process.env.P || 3);
const threadCounts = (process.env.THREADS || '1,2').split(',').map(Number);
const PYTHON = String.raw`
import sys, time
import numpy as np
import hnswlib
path, n, d, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = np.fromfile(path, dtype=np.float32).reshape(n, d)
index = hnswlib.Index(space='ip', dim=d)
index.init_index(max_elements=n, ef_construction=200, M=16, random_seed=100)
started = time.perf_counter()
index.add_items(data, np.arange(n), num_threads=threads)
print(time.perf_counter() - started)
`;
let s = 7;
const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const data = new Float32Array(n * d);
for (let i = 0; i < data.length; i += 1) data[i] = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
const ids = Uint32Array.from({ length: n }, (_, i) => i);
const folder = mkdtempSync(join(tmpdir(), 'build-against-native-'));
const file = join(folder, 'items.f32');
writeFileSync(file, data);
const modules = {};
for (const threads of threadCounts) modules[threads] = await init({ threads });
const kinds = ['native', 'f32', 'int8'];
const times = Object.fromEntries(threadCounts.map((t) => [t, Object.fromEntries(kinds.map((k) => [k, []]))]));
try {
  for (let p = 0; p < passes; p += 1) {
    for (const threads of threadCounts) {
      const ran = spawnSync('/usr/bin/python3', ['-c', PYTHON, file, String(n), String(d), String(threads)], { encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`native hnswlib failed: ${ran.stderr}`);
      times[threads].native.push(Number(ran.stdout.trim()));
      for (const storage of ['f32', 'int8']) {
        const sb = modules[threads];
        const index = new sb.HnswIndex({ dim: d, M: 16, efConstruction: 200, build: 'immediate', space: 'inner-product', storage, seed: 100 });
        const started = performance.now();
        index.add(ids, data);
        times[threads][storage].push((performance.now() - started) / 1000);
        index.dispose();
      }
    }
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
const fastest = (a) => Math.min(...a);
for (const threads of threadCounts) {
  const t = times[threads];
  const cell = (k) => `${k} median ${median(t[k]).toFixed(2)} s, fastest ${fastest(t[k]).toFixed(2)} s [${t[k].map((x) => x.toFixed(2)).join(', ')}]`;
  console.log(`${threads} thread(s): ${kinds.map(cell).join('  |  ')}`);
  for (const storage of ['f32', 'int8']) {
    console.log(`  ${storage} / native: median ${(median(t[storage]) / median(t.native)).toFixed(3)}, fastest ${(fastest(t[storage]) / fastest(t.native)).toFixed(3)}`);
  }
}
