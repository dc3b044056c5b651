// Build time of HnswIndex in two builds of the package, loaded in one process and interleaved:
// node bench/lib/build-side-by-side.mjs <checkout before> <checkout after>, each with its dist/
// built; N (items, 30,000), D (32), P (passes, 3) and THREADS (thread counts, "1"; "1,2" for both)
// from the environment. Each checkout's module is loaded once per thread count with
// init({ threads }) (one thread: the single-thread build; more: the threaded build), and every
// pass builds on each of them in turn. Reported per storage and thread count: the median CPU time
// of the process (all threads) and the median wall time; the ratios are after / before.
const [, , ...dirs] = process.argv;
const n = Number(process.env.N || 30000), d = Number(process.env.D || 32), passes = Number(process.env.P || 3);
const threadCounts = (process.env.THREADS || '1').split(',').map(Number);
const mods = [];
for (const dir of dirs) {
  const { init } = await import(`${dir}/dist/index.js`);
  for (const threads of threadCounts) {
    const sb = await init({ threads });
    if (sb.threads !== threads) throw new Error(`${dir}: asked for ${threads} threads, got ${sb.threads}`);
    mods.push({ dir, threads, sb });
  }
}
let s = 7;
const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const data = new Float32Array(n * d);
for (let i = 0; i < data.length; i += 1) data[i] = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
const ids = Uint32Array.from({ length: n }, (_, i) => i);
const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const storage of ['f32', 'int8']) {
  const cpu = mods.map(() => []), wall = mods.map(() => []);
  for (let p = 0; p < passes; p += 1) {
    mods.forEach(({ sb }, m) => {
      const idx = new sb.HnswIndex({ dim: d, M: 16, efConstruction: 200, build: 'immediate', space: 'inner-product', storage, seed: 100 });
      const t0 = process.cpuUsage(), w0 = performance.now();
      idx.add(ids, data);
      const u = process.cpuUsage(t0);
      wall[m].push((performance.now() - w0) / 1000);
      cpu[m].push((u.user + u.system) / 1e6);
      idx.dispose();
    });
  }
  for (const threads of threadCounts) {
    const at = (dir) => mods.findIndex((mod) => mod.dir === dir && mod.threads === threads);
    const cells = dirs.map((dir) => {
      const m = at(dir);
      return `${dir.split('/').pop()}: cpu ${med(cpu[m]).toFixed(2)} s [${cpu[m].map((t) => t.toFixed(2)).join(', ')}], wall ${med(wall[m]).toFixed(2)} s [${wall[m].map((t) => t.toFixed(2)).join(', ')}]`;
    });
    const [a, b] = [at(dirs[0]), at(dirs[dirs.length - 1])];
    console.log(`${storage}, ${threads} thread(s)`, cells.join('  |  '),
      ` ratio cpu ${(med(cpu[b]) / med(cpu[a])).toFixed(3)}, wall ${(med(wall[b]) / med(wall[a])).toFixed(3)}`);
  }
}
