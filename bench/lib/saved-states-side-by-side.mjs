// Whether two builds of the package build the same HnswIndex: node bench/lib/saved-states-side-by-side.mjs
// <checkout before> <checkout after>, each with its dist/ built. One thread (a threaded build's links
// depend on timing), 6,000 x 24 items with a removal of 200 between two adds (freed slots reused),
// every storage, space and build mode: prints whether the saved states are the same bytes and the
// answers of 20 searches the same ids.
const load = async (dir) => (await import(`${dir}/dist/index.js`)).init({ threads: 1 });
const [a, b] = await Promise.all(process.argv.slice(2, 4).map(load));
let s = 11;
const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const n = 6000, d = 24;
const data = new Float32Array(n * d);
for (let i = 0; i < data.length; i += 1) data[i] = Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd()) + (i % d === 0 ? 0.5 : 0);
const ids = Uint32Array.from({ length: n }, (_, i) => i);
const eq = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
for (const storage of ['f32', 'int8']) {
  for (const space of ['inner-product', 'euclidean', 'auto']) {
    for (const build of ['immediate', 'incremental']) {
      const bytes = [];
      const answers = [];
      for (const sb of [a, b]) {
        const idx = new sb.HnswIndex({ dim: d, M: 12, efConstruction: 60, build, space, storage, seed: 5 });
        idx.add(ids.subarray(0, 4000), data.subarray(0, 4000 * d));
        idx.remove(ids.subarray(100, 300));
        idx.add(ids.subarray(4000), data.subarray(4000 * d));
        if (build === 'incremental') idx.build();
        const found = [];
        for (let q = 0; q < 20; q += 1) found.push(...idx.search(data.subarray(q * d, (q + 1) * d), 10).ids);
        answers.push(found);
        bytes.push(idx.toBytes());
        idx.dispose();
      }
      console.log(storage, space, build, 'bytes equal', eq(bytes[0], bytes[1]), bytes[0].length, 'answers equal', eq(answers[0], answers[1]));
    }
  }
}
