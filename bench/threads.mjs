// Index construction on one thread and on every core, side by side in one run (issue 15): the
// single-thread build (init({ threads: 1 })) against the threaded build (init(), all cores Node
// gives), on the same data with the same seeds. For HnswIndex (Gaussian items, M 16, efConstruction
// 200) and for Sub-TS's buildIndex() (its default graph, M 8 and efConstruction 16 at d <= 32, which
// HnswIndex keeps on one thread as too light to gain; and with M 16, efConstruction 200): build
// seconds, the speedup, and recall@10 against an exact scan. Sub-TS does not expose its graph's
// searches, so its recall column is an HnswIndex with Sub-TS's graph options over the same arms,
// built on the same number of threads.
// Then the per-call work threads take on: the first --steps select/update steps of default Sub-TS
// (each search's graph slice is built on a helper while the caller scans the arms not yet in the
// graph), Sub-Elim and Linear Elim (their reviews examine arms on every thread), and Linear TS (no
// threads: the reference), with whether both builds made the same choices, which they must.
//   npm run bench -- threads [--n=100000] [--dim=32] [--arms=100000] [--armDim=16] [--queries=200] [--repeats=1] [--steps=3000]
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { numberArg } from './lib/args.mjs';

const K = 10;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function parseArgs(args) {
  return { n: numberArg(args, 'n', 100000), dim: numberArg(args, 'dim', 32), arms: numberArg(args, 'arms', 100000), armDim: numberArg(args, 'armDim', 16),
    queries: numberArg(args, 'queries', 200), repeats: numberArg(args, 'repeats', 1), steps: numberArg(args, 'steps', 3000), seed: 42 };
}

function gaussian(count, seed) {
  const random = seededRandom(seed);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  return values;
}

const ids = (n) => Uint32Array.from({ length: n }, (_, i) => i);

// The exact top K of every query, from the package's exact index.
function truth(sb, items, n, dim, queries) {
  const exact = new sb.ExactIndex({ dim });
  exact.add(ids(n), items);
  const sets = [];
  for (let q = 0; q < queries.length / dim; q++) sets.push(new Set(exact.search(queries.subarray(q * dim, (q + 1) * dim), K).ids));
  exact.dispose();
  return sets;
}

function recallOf(index, queries, dim, sets) {
  let recall = 0;
  sets.forEach((set, q) => {
    for (const id of index.search(queries.subarray(q * dim, (q + 1) * dim), K).ids) recall += set.has(id) ? 1 / set.size : 0;
  });
  return recall / sets.length;
}

// Seconds to build an incremental HnswIndex's graph over `items` with build(), and its recall@10.
function hnswBuild(sb, spec, items, n, dim, queries, sets) {
  const index = new sb.HnswIndex({ dim, ...spec });
  index.add(ids(n), items);
  const start = performance.now();
  index.build();
  const seconds = (performance.now() - start) / 1000;
  const recall = recallOf(index, queries, dim, sets);
  index.dispose();
  return { seconds, recall };
}

function subTsBuild(sb, arms, K, dim, options) {
  const policy = new sb.SubTS({ dim, seed: 1, ...options });
  policy.addArms(ids(K), arms);
  const start = performance.now();
  const waiting = policy.buildIndex();
  const seconds = (performance.now() - start) / 1000;
  if (waiting !== 0) throw new Error(`Sub-TS's buildIndex() left ${waiting} arms waiting`);
  const { M, efConstruction, space } = policy.stats().index;
  policy.dispose();
  return { seconds, spec: { M, efConstruction, space, seed: 1 } };
}

// Milliseconds a step over the first `steps` select/update calls of a default policy, and its choices.
function policySteps(sb, name, arms, K, dim, steps) {
  const policy = new sb[name]({ dim, seed: 1, horizon: 50000 });
  const chunk = 25000;
  for (let first = 0; first < K; first += chunk) policy.addArms(ids(K).subarray(first, first + chunk), arms.subarray(first * dim, (first + chunk) * dim));
  const noise = seededRandom(7);
  const chosen = [];
  const start = performance.now();
  for (let t = 0; t < steps; t++) {
    const arm = policy.select();
    chosen.push(arm);
    let mean = 0;
    for (let j = 0; j < dim; j++) mean += arms[arm * dim + j] / Math.sqrt(dim);
    policy.update(arm, mean + 0.3 * standardNormal(noise));
  }
  const ms = (performance.now() - start) / steps;
  policy.dispose();
  return { ms, chosen };
}

export default async function threads(args, report) {
  const options = parseArgs(args);
  const one = await init({ threads: 1 });
  const all = await init();
  report.note(`Single-thread build: ${one.threadsReason}. Threaded build: ${all.threads} threads (${all.threadsReason}).`);
  report.note(`HnswIndex: ${options.n} x ${options.dim} Gaussian items, M 16, efConstruction 200, efSearch 64, build() after add(); ` +
    `Sub-TS: K = ${options.arms} Gaussian arms, d = ${options.armDim}, default options, buildIndex() after addArms(). ` +
    `Recall@10 over ${options.queries} Gaussian queries against the exact top 10; median of ${options.repeats} build(s) each.`);
  report.data('configuration', { ...options, threads: all.threads, reason: all.threadsReason });

  const items = gaussian(options.n * options.dim, options.seed);
  const queries = gaussian(options.queries * options.dim, options.seed + 1);
  const sets = truth(one, items, options.n, options.dim, queries);
  const hnswSpec = { M: 16, efConstruction: 200, efSearch: 64, space: 'inner-product', seed: 1 };
  const arms = gaussian(options.arms * options.armDim, options.seed + 2);
  const armQueries = gaussian(options.queries * options.armDim, options.seed + 3);
  const armSets = truth(one, arms, options.arms, options.armDim, armQueries);

  const rows = [];
  const measure = (label, run) => {
    const runs = { one: [], all: [] };
    for (let r = 0; r < options.repeats; r++) {
      // Alternating, so that drift in the machine's load falls on both sides.
      runs.one.push(run(one));
      runs.all.push(run(all));
      report.progress((r + 1) / options.repeats, label);
    }
    const seconds = (side) => median(side.map((x) => x.seconds));
    const recall = (side) => median(side.map((x) => x.recall));
    const row = [label, seconds(runs.one), seconds(runs.all), seconds(runs.one) / seconds(runs.all), recall(runs.one), recall(runs.all)];
    rows.push(row);
    return row;
  };
  measure(`HnswIndex ${options.n} x ${options.dim}`, (sb) => hnswBuild(sb, hnswSpec, items, options.n, options.dim, queries, sets));
  const subTsSpecs = [];
  for (const [label, policyOptions] of [['default graph', {}], ['index M 16, efConstruction 200', { index: { type: 'hnsw', M: 16, efConstruction: 200 } }]]) {
    let spec = null;
    measure(`Sub-TS buildIndex() K ${options.arms}, d ${options.armDim}, ${label}`, (sb) => {
      const built = subTsBuild(sb, arms, options.arms, options.armDim, policyOptions);
      spec = built.spec;
      // Its graph's recall: the same options over the same arms, built on the same threads.
      const mirror = hnswBuild(sb, { ...built.spec, efSearch: 64 }, arms, options.arms, options.armDim, armQueries, armSets);
      return { seconds: built.seconds, recall: mirror.recall };
    });
    subTsSpecs.push(`${label}: ${JSON.stringify(spec)}`);
  }
  report.table(`Index construction: 1 thread against ${all.threads} (wasm in Node)`,
    ['what', '1 thread s', `${all.threads} threads s`, 'speedup', 'recall@10, 1 thread', `recall@10, ${all.threads} threads`], rows);
  report.note(`Sub-TS's graphs (${subTsSpecs.join('; ')}): each recall column is an HnswIndex with those options (efSearch 64) over the same arms. ` +
    'A graph with efConstruction x dimension below 3,200 (Sub-TS\'s default) is built on one thread by both builds (HnswIndex\'s kParallelWork).');
  report.data('rows', rows);

  const stepRows = [];
  for (const name of ['LinTS', 'SubTS', 'LinearElim', 'SubElim']) {
    const runs = { one: [], all: [] };
    for (let r = 0; r < options.repeats; r++) {
      runs.one.push(policySteps(one, name, arms, options.arms, options.armDim, options.steps));
      runs.all.push(policySteps(all, name, arms, options.arms, options.armDim, options.steps));
      report.progress((r + 1) / options.repeats, name);
    }
    const ms = (side) => median(side.map((x) => x.ms));
    const same = runs.one.every((run, r) => run.chosen.every((arm, t) => arm === runs.all[r].chosen[t]));
    stepRows.push([name, ms(runs.one), ms(runs.all), ms(runs.one) / ms(runs.all), same ? 'yes' : 'NO']);
  }
  report.table(`Steps on 1 thread against ${all.threads}: the first ${options.steps} select/update calls, K = ${options.arms}, d = ${options.armDim}, default options (wasm in Node)`,
    ['policy', '1 thread ms/step', `${all.threads} threads ms/step`, 'speedup', 'same choices'], stepRows);
  report.note('Sub-TS: each search builds its graph slice on one helper thread while the calling thread scans the arms not yet in the graph, so a step takes ' +
    'about the longer of the two; more than 2 threads do not shorten it further (the slice stays on one thread, in row order, so that the graph is the same on any number of threads). ' +
    'Linear Elim and Sub-Elim: the arms a review or re-partition examines are shared among all threads; the decisions stay on the calling thread. Linear TS uses no threads: the reference.');
  report.data('steps', stepRows);
}
