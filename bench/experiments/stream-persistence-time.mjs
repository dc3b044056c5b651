// The CPU time of toBytes() and fromBytes() in two builds side by side in one process (issue 57
// point 3: the streamed state against the one copied whole, or written twice): indexes of 30,000 x
// 784 uniform rows, a catalogue and a LinUCB with its own arms of 100,000 x 32; one thread, median of 3.
// Then wasm memory (its high-water mark: it never shrinks) and malloc's bytes in use, in MB, after
// each object is made, after its toBytes(), and after fromBytes() of its state in a module of its own.
//   node bench/experiments/stream-persistence-time.mjs <base dist/index.js> <dist/index.js>
const [basePath, newPath] = process.argv.slice(2);
let s = 7;
const uniform = (length, Type) => {
  const values = new Type(length);
  for (let i = 0; i < values.length; i++) { s = (s * 1103515245 + 12345) >>> 0; values[i] = s / 2 ** 32 - 0.5; }
  return values;
};
const idsTo = (n) => Uint32Array.from({ length: n }, (_, i) => i);
const indexRows = { n: 30000, d: 784 };
const vectors = uniform(indexRows.n * indexRows.d, Float32Array);
const arms = { n: 100000, d: 32 };
const features = uniform(arms.n * arms.d, Float64Array);
const cases = [
  ['ExactIndex', `${indexRows.n} x ${indexRows.d}`, (sb) => {
    const index = new sb.ExactIndex({ dim: indexRows.d });
    index.add(idsTo(indexRows.n), vectors);
    return index;
  }],
  ['HnswIndex', `${indexRows.n} x ${indexRows.d}`, (sb) => {
    const index = new sb.HnswIndex({ dim: indexRows.d, build: 'immediate', M: 8, efConstruction: 32 });
    index.add(idsTo(indexRows.n), vectors);
    return index;
  }],
  ['Catalogue', `${arms.n} x ${arms.d}, exact index`, (sb) => {
    const catalogue = new sb.Catalogue({ dim: arms.d, index: { type: 'exact' } });
    catalogue.add(idsTo(arms.n), features);
    return catalogue;
  }],
  ['LinUCB', `own arms ${arms.n} x ${arms.d}`, (sb) => {
    const policy = new sb.LinUCB({ dim: arms.d, seed: 1 });
    policy.addArms(idsTo(arms.n), features);
    return policy;
  }],
];
const mods = [];
for (const p of [basePath, newPath]) mods.push((await import(p)).default);
const sbs = [await mods[0]({ threads: 1 }), await mods[1]({ threads: 1 })];
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
for (const [Type, what, make] of cases) {
  const rows = [[], []];
  for (let rep = 0; rep < 3; rep++) {
    for (const k of [0, 1]) {
      const sb = sbs[k];
      const object = make(sb);
      let t = cpu(); const bytes = object.toBytes(); const save = cpu() - t;
      t = cpu(); const back = sb[Type].fromBytes(bytes); const load = cpu() - t;
      back.dispose(); object.dispose();
      rows[k].push([save, load, bytes.length]);
    }
  }
  const med = (k, j) => rows[k].map((r) => r[j]).sort((a, b) => a - b)[1];
  console.log(`${Type} ${what}, ${(rows[0][0][2] / 1e6).toFixed(1)} MB: toBytes ms base ${med(0, 0).toFixed(0)} new ${med(1, 0).toFixed(0)} (${(med(1, 0) / med(0, 0)).toFixed(2)}x); fromBytes base ${med(0, 1).toFixed(0)} new ${med(1, 1).toFixed(0)} (${(med(1, 1) / med(0, 1)).toFixed(2)}x)`);
}

const MB = 2 ** 20;
const usage = (sb) => {
  const { heapBytes, allocatedBytes } = sb.memoryUsage();
  return `${(heapBytes / MB).toFixed(1)} (${(allocatedBytes / MB).toFixed(1)} in use)`;
};
for (const [Type, what, make] of cases) {
  for (const k of [0, 1]) {
    const sb = await mods[k]({ threads: 1 });
    const object = make(sb);
    const made = usage(sb);
    const bytes = object.toBytes();
    const saved = usage(sb);
    object.dispose();
    const own = await mods[k]({ threads: 1 });
    const back = own[Type].fromBytes(bytes);
    console.log(`${Type} ${what}, ${k === 0 ? 'base' : 'new'}: wasm memory after make ${made}, toBytes ${saved}, fromBytes ${usage(own)}`);
    back.dispose();
  }
}
