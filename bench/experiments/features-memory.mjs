// Wasm memory (its high-water mark: it never shrinks) and malloc's bytes in use, in MB, in two
// builds side by side (issue 57 point 3): after a catalogue's add() and a policy's addArms() of a
// large batch of features (streamed from the caller's array, or copied whole to the heap before),
// and after fromBytes() of the states whose decoders made passing copies (a set of arms, CUCB's
// counts and means, a ridge model's matrices). Every figure is a module of its own, one thread.
// Then the CPU time of the two adds at 100,000 x 32 in both builds (one thread, median of 5).
//   node bench/experiments/features-memory.mjs <base dist/index.js> <dist/index.js>
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [basePath, newPath] = process.argv.slice(2);
let s = 7;
const uniform = (length) => {
  const values = new Float64Array(length);
  for (let i = 0; i < values.length; i++) { s = (s * 1103515245 + 12345) >>> 0; values[i] = s / 2 ** 32 - 0.5; }
  return values;
};
const idsTo = (n) => Uint32Array.from({ length: n }, (_, i) => i);
const arms = { n: 100000, d: 32 };
const features = uniform(arms.n * arms.d);
const wide = { n: 80000, d: 64 };
const wideFeatures = uniform(wide.n * wide.d);
const MB = 2 ** 20;
const usage = (sb) => {
  const { heapBytes, allocatedBytes } = sb.memoryUsage();
  return `${(heapBytes / MB).toFixed(1)} (${(allocatedBytes / MB).toFixed(1)} in use)`;
};

// [class, configuration, maker]: memory is read after the maker (the add) and after fromBytes().
const cases = [
  ['Catalogue', `${arms.n} x ${arms.d} features (${(features.byteLength / 1e6).toFixed(1)} MB), exact index`, (sb) => {
    const catalogue = new sb.Catalogue({ dim: arms.d, index: { type: 'exact' } });
    catalogue.add(idsTo(arms.n), features);
    return catalogue;
  }],
  ['Catalogue', `${wide.n} x ${wide.d} features (${(wideFeatures.byteLength / 1e6).toFixed(1)} MB), exact index`, (sb) => {
    const catalogue = new sb.Catalogue({ dim: wide.d, index: { type: 'exact' } });
    catalogue.add(idsTo(wide.n), wideFeatures);
    return catalogue;
  }],
  ['LinUCB', `own arms ${arms.n} x ${arms.d}`, (sb) => {
    const policy = new sb.LinUCB({ dim: arms.d, seed: 1 });
    policy.addArms(idsTo(arms.n), features);
    return policy;
  }],
  ['CUCB', 'a partition matroid of 600,000 arms, one round', (sb) => {
    const matroid = sb.Matroid.partition(Uint32Array.from({ length: 600000 }, (_, i) => i % 5));
    const policy = new sb.CUCB({ matroid, horizon: 100, seed: 2 });
    matroid.dispose();
    const basis = policy.select();
    policy.update(basis, Float64Array.from(basis, () => 0.5));
    return policy;
  }],
  ['CombLinUCB', 'a model of 1,000 dimensions, one round', (sb) => {
    const policy = new sb.CombLinUCB({ dim: 1000, k: 2, seed: 3 });
    const rows = policy.select(uniform(4 * 1000), { k: 2 });
    policy.update(rows, Float64Array.from(rows, () => 0.5));
    return policy;
  }],
];
const mods = [];
// Paths from the working directory, not from this file.
for (const p of [basePath, newPath]) mods.push((await import(pathToFileURL(resolve(p)).href)).default);
for (const [Type, what, make] of cases) {
  for (const k of [0, 1]) {
    const sb = await mods[k]({ threads: 1 });
    const object = make(sb);
    const made = usage(sb);
    const bytes = object.toBytes();
    object.dispose();
    const own = await mods[k]({ threads: 1 });
    const back = own[Type].fromBytes(bytes);
    console.log(`${Type} ${what}, state ${(bytes.length / 1e6).toFixed(1)} MB, ${k === 0 ? 'base' : 'new'}: wasm memory after make ${made}, after fromBytes ${usage(own)}`);
    back.dispose();
  }
}

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };
const timed = [await mods[0]({ threads: 1 }), await mods[1]({ threads: 1 })];
const armIds = idsTo(arms.n);
for (const [name, make, add] of [
  ['Catalogue add() (exact index)', (sb) => new sb.Catalogue({ dim: arms.d, index: { type: 'exact' } }), (o) => o.add(armIds, features)],
  ['LinUCB addArms()', (sb) => new sb.LinUCB({ dim: arms.d, seed: 1 }), (o) => o.addArms(armIds, features)],
]) {
  const times = [[], []];
  for (let rep = 0; rep < 5; rep++) {
    for (const k of [0, 1]) {
      const object = make(timed[k]);
      const t = cpu();
      add(object);
      times[k].push(cpu() - t);
      object.dispose();
    }
  }
  const median = (k) => times[k].sort((a, b) => a - b)[2];
  console.log(`${name} ${arms.n} x ${arms.d}, CPU ms, median of 5: base ${median(0).toFixed(0)} new ${median(1).toFixed(0)} (${(median(1) / median(0)).toFixed(2)}x)`);
}
