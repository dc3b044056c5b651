// Build time of HnswIndex in two builds of the package, loaded in one process and interleaved (CPU
// time, one thread): node bench/lib/build-side-by-side.mjs <checkout before> <checkout after>, each
// with its dist/ built; N (30,000 here), D (32) and P (passes, 3) from the environment.
const [, , ...dirs] = process.argv;
const n = Number(process.env.N || 30000), d = Number(process.env.D || 32), passes = Number(process.env.P || 3);
const mods = [];
for (const dir of dirs) mods.push({ dir, sb: await (await import(`${dir}/dist/index.js`)).default() });
let s = 7;
const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const data = new Float32Array(n * d);
for (let i = 0; i < data.length; i += 1) data[i] = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
const ids = Uint32Array.from({ length: n }, (_, i) => i);
for (const storage of ['f32', 'int8']) {
  const times = mods.map(() => []);
  for (let p = 0; p < passes; p += 1) {
    mods.forEach(({ sb }, m) => {
      const idx = new sb.HnswIndex({ dim: d, M: 16, efConstruction: 200, build: 'immediate', space: 'inner-product', storage, seed: 100 });
      const t0 = process.cpuUsage();
      idx.add(ids, data);
      const u = process.cpuUsage(t0);
      times[m].push((u.user + u.system) / 1e6);
      idx.dispose();
    });
  }
  const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(storage, mods.map(({ dir }, m) => `${dir.split('/').pop()}: ${med(times[m]).toFixed(2)} s [${times[m].map((t) => t.toFixed(2)).join(', ')}]`).join('  |  '), ` ratio ${(med(times[1]) / med(times[0])).toFixed(3)}`);
}
