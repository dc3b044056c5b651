// The CPU time of an index's toBytes() and fromBytes() in two builds side by side in one process (issue 57
// point 3: the streamed state against the one copied whole): 30,000 x 784 uniform rows, one thread, median of 3.
//   node bench/experiments/stream-persistence-time.mjs <base dist/index.js> <dist/index.js>
const [basePath, newPath] = process.argv.slice(2);
const n = 30000, d = 784;
const ids = Uint32Array.from({ length: n }, (_, i) => i);
const vectors = new Float32Array(n * d);
let s = 7;
for (let i = 0; i < vectors.length; i++) { s = (s * 1103515245 + 12345) >>> 0; vectors[i] = s / 2 ** 32 - 0.5; }
const mods = [];
for (const p of [basePath, newPath]) mods.push((await import(p)).default);
const sbs = [await mods[0]({ threads: 1 }), await mods[1]({ threads: 1 })];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
for (const Type of ['ExactIndex', 'HnswIndex']) {
  const rows = [[], []];
  for (let rep = 0; rep < 3; rep++) {
    for (const k of [0, 1]) {
      const sb = sbs[k];
      const index = new sb[Type]({ dim: d, ...(Type === 'HnswIndex' ? { build: 'immediate', M: 8, efConstruction: 32 } : {}) });
      index.add(ids, vectors);
      let t = cpu(); const bytes = index.toBytes(); const save = cpu() - t;
      t = cpu(); const back = sb[Type].fromBytes(bytes); const load = cpu() - t;
      back.dispose(); index.dispose();
      rows[k].push([save, load, bytes.length]);
    }
  }
  const med = (k, j) => rows[k].map((r) => r[j]).sort((a, b) => a - b)[1];
  console.log(`${Type} ${n} x ${d}, ${(rows[0][0][2] / 1e6).toFixed(1)} MB: toBytes ms base ${med(0, 0).toFixed(0)} new ${med(1, 0).toFixed(0)} (${(med(1, 0) / med(0, 0)).toFixed(2)}x); fromBytes base ${med(0, 1).toFixed(0)} new ${med(1, 1).toFixed(0)} (${(med(1, 1) / med(0, 1)).toFixed(2)}x)`);
}
