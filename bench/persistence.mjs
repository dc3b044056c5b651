// Saved state (issue 14): for every index type and for Sub-TS, the time to build the object against
// the time to save it (toBytes) and to load it (fromBytes), the saved size against the raw data,
// and a check that the loaded object answers exactly as the original.
//
//   npm run bench -- persistence              indexes at 10^5 x 32 (HNSW and the others), Sub-TS at 10^5 arms
//   npm run bench -- persistence --million    Sub-TS alone at 10^5 and 10^6 arms (the 10^6 build takes minutes),
//                                            saved as persistence-million
//   options: --items N (index size), --dim d, --arms K (Sub-TS), --queries Q (answers compared)
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { spacedNumberArg } from './lib/args.mjs';

function gaussianSource(seed) {
  const random = seededRandom(seed);
  return (count) => Float32Array.from({ length: count }, () => standardNormal(random));
}

function timed(run) {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

const sameArrays = (a, b) => a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

const INDEXES = [
  ['ExactIndex', {}],
  ['HnswIndex', {}],
  ['LshIndex', {}],
  ['AdaptiveIndex', {}],
  ['BoundedMEIndex', {}],
  ['GreedyMipsIndex', {}],
  ['PcaTreeIndex', {}],
];

function benchIndex(sb, className, spec, items, dim, queries) {
  const gaussian = gaussianSource(7);
  const vectors = gaussian(items * dim);
  const ids = Uint32Array.from({ length: items }, (_, i) => i);
  const index = new sb[className]({ dim, seed: 1, ...spec });
  const build = timed(() => index.add(ids, vectors));
  const save = timed(() => index.toBytes());
  const bytes = save.value;
  const load = timed(() => sb[className].fromBytes(bytes));
  const restored = load.value;
  // Both answer the same queries in the same order (searches may change an index's state).
  const queryVectors = gaussian(queries * dim);
  let identical = true;
  for (let q = 0; q < queries; ++q) {
    const query = queryVectors.subarray(q * dim, (q + 1) * dim);
    const a = index.search(query, 10);
    const b = restored.search(query, 10);
    identical &&= sameArrays(Array.from(a.ids), Array.from(b.ids)) && sameArrays(Array.from(a.scores), Array.from(b.scores));
  }
  identical &&= sameArrays(Array.from(index.toBytes()), Array.from(restored.toBytes()));
  const rawBytes = items * (dim * 4 + 4);
  index.dispose();
  restored.dispose();
  return [className, items, build.ms / 1000, save.ms / 1000, load.ms / 1000, build.ms / load.ms, bytes.length / 2 ** 20,
    bytes.length / rawBytes, identical ? 'yes' : 'NO'];
}

function benchSubTS(sb, arms, dim, steps, report) {
  const gaussian = gaussianSource(11);
  const ids = Uint32Array.from({ length: arms }, (_, i) => i);
  const features = Float64Array.from(gaussian(arms * dim));
  const theta = gaussian(dim);
  const policy = new sb.SubTS({ dim, horizon: 20000, seed: 1 });
  const build = timed(() => policy.addArms(ids, features));
  const reward = (arm) => {
    let value = 0;
    for (let i = 0; i < dim; ++i) value += features[arm * dim + i] * theta[i];
    return value;
  };
  for (let t = 0; t < steps; ++t) {
    const arm = policy.select();
    policy.update(arm, reward(arm));
  }
  const save = timed(() => policy.toBytes());
  const bytes = save.value;
  const load = timed(() => sb.SubTS.fromBytes(bytes));
  const restored = load.value;
  let identical = true;
  for (let t = 0; t < 200; ++t) {
    const arm = policy.select();
    identical &&= restored.select() === arm;
    policy.update(arm, reward(arm));
    restored.update(arm, reward(arm));
  }
  const rawBytes = arms * (dim * 8 + 4);
  report.progress(1, `Sub-TS ${arms}`);
  policy.dispose();
  restored.dispose();
  return [`SubTS (${steps} steps played)`, arms, build.ms / 1000, save.ms / 1000, load.ms / 1000, build.ms / load.ms,
    bytes.length / 2 ** 20, bytes.length / rawBytes, identical ? 'yes' : 'NO'];
}

export default async function persistence(args, report) {
  const items = spacedNumberArg(args, 'items', 1e5);
  const dim = spacedNumberArg(args, 'dim', 32);
  const queries = spacedNumberArg(args, 'queries', 100);
  const million = args.includes('--million');
  const armCounts = million ? [1e5, 1e6] : [spacedNumberArg(args, 'arms', 1e5)];
  const armDim = 16;
  report.note(`Configuration: every index with default options over ${items} Gaussian items of dimension ${dim} (one add() call); ` +
    `Sub-TS with default options over ${armCounts.join(' and ')} Gaussian arms of dimension ${armDim}, 1,000 steps played before saving. ` +
    `"build / load" is the time to build the object divided by the time to load its saved state; "size / raw" divides the saved ` +
    `size by the raw data (ids and float32 vectors for indexes, ids and float64 features for Sub-TS). "identical" compares ` +
    `${queries} searches (200 selections for Sub-TS) and the re-saved bytes of the original and the loaded object. ` +
    'Greedy-MIPS, the PCA tree and BoundedME build nothing in add() (their structures are built or refreshed by the first ' +
    'search), so their "build" is the copy of the items and loading them costs about as much.');
  const sb = await init();
  const rows = [];
  for (const [i, [className, spec]] of (million ? [] : INDEXES).entries()) {
    report.progress(i / INDEXES.length, className);
    rows.push(benchIndex(sb, className, spec, items, dim, queries));
  }
  report.progress(1, 'indexes');
  for (const arms of armCounts) rows.push(benchSubTS(sb, arms, armDim, 1000, report));
  report.table('Build, save and load (wasm in Node)', ['object', 'size', 'build s', 'save s', 'load s', 'build / load', 'saved MiB',
    'size / raw', 'identical'], rows);
  const bad = rows.filter((row) => row.at(-1) !== 'yes');
  if (bad.length > 0) {
    report.note(`Loaded objects that answered differently: ${bad.map((row) => row[0]).join(', ')}.`);
    process.exitCode = 1;
  }
}
