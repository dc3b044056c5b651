// Liu, Wu, Mozafari, "A Bandit Approach to Maximum Inner Product Search" (arXiv:1812.06360), reproduced:
//  - Figures 2-3: precision@5 and precision@10 against online speedup over the exhaustive scan for
//    BoundedME, Greedy-MIPS, PCA-MIPS and LSH-MIPS, on Gaussian and
//    uniform data. Online speedup = exact scan time / method time, measured side by side in this run
//    (preprocessing excluded, as in the paper); the inner-product ratio is printed beside it.
//  - Figure 1: BoundedME on MAB-BP Bernoulli reward lists: the (1 - delta)-percentile of the
//    suboptimality over 20 random datasets, averaged over delta, against epsilon.
// `npm run bench -- mips-paper` (scaled: 2000 vectors x 2000 dims), `-- mips-paper --full` (10^4 x 10^4;
// the paper used 10^4 x 10^5, which does not fit a 4 GiB wasm heap beside its indexes).
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { spacedTextArg } from './lib/args.mjs';

function fill(random, count, distribution) {
  const values = new Float32Array(count);
  if (distribution === 'uniform') {
    for (let i = 0; i < count; i++) values[i] = random();
  } else {
    for (let i = 0; i < count; i++) values[i] = standardNormal(random);
  }
  return values;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export default async function mipsPaper(args, report) {
  const full = args.includes('--full');
  // --methods BoundedME,Greedy-MIPS  --data gaussian  --no-figure1: run a part (e.g. the target alone at --full).
  const methodFilter = spacedTextArg(args, 'methods', null)?.split(',') ?? null;
  const dataFilter = spacedTextArg(args, 'data', null)?.split(',') ?? ['gaussian', 'uniform'];
  const n = full ? 10000 : 2000;
  const dim = full ? 10000 : 2000;
  const queryCount = full ? 20 : 40;
  const sb = await init();
  report.note(`Configuration: ${n} vectors x ${dim} dims, ${queryCount} queries per setting drawn from the data's distribution, ` +
    `top-5 and top-10 searched separately; ${full ? 'full setting (--full)' : 'scaled default (pass --full for 10^4 x 10^4)'}. ` +
    'Liu et al. used 10^4 x 10^5.');

  const grids = [
    ...[[0.05, 0.1], [0.1, 0.1], [0.2, 0.1], [0.3, 0.1], [0.3, 0.5], [0.5, 0.1], [0.5, 0.5], [0.7, 0.1], [0.7, 0.5], [0.9, 0.1], [0.9, 0.5], [0.99, 0.9]]
      .map(([epsilon, delta]) => ({ method: 'BoundedME', label: `eps ${epsilon} delta ${delta}`, make: () => new sb.BoundedMEIndex({ dim, epsilon, delta, seed: 1 }) })),
    ...[0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
      .map((budgetFraction) => ({ method: 'Greedy-MIPS', label: `B ${Math.round(budgetFraction * 100)}%`, make: () => new sb.GreedyMipsIndex({ dim, budgetFraction }) })),
    ...(full ? [0, 2, 4, 6, 8, 12, 16, 20] : [0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20])
      .map((depth) => ({ method: 'PCA-MIPS', label: `depth ${depth}`, make: () => new sb.PcaTreeIndex({ dim, depth, seed: 1 }) })),
    ...[1, 2, 4, 8, 12, 16, 20].flatMap((bits) => [1, 5, 10, 25, 50].map((tables) => ({
      method: 'LSH-MIPS', label: `a ${bits} b ${tables}`, make: () => new sb.LshIndex({ dim, bits, tables, seed: 1 }) }))),
  ];

  const selected = methodFilter ? grids.filter((g) => methodFilter.includes(g.method)) : [...grids];
  grids.length = 0;
  grids.push(...selected);
  report.note('Timing: for every setting and k, the exhaustive scan and the method each answer all queries twice, alternating; ' +
    'speedup = best exhaustive pass / best method pass (the best of two resists interference from other processes on this shared machine).');
  const summary = [];
  const allRows = {};
  for (const distribution of dataFilter) {
    const random = seededRandom(distribution === 'gaussian' ? 1 : 2);
    const data = fill(random, n * dim, distribution);
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const queries = Array.from({ length: queryCount }, () => fill(random, dim, distribution));
    const addAll = (index) => {
      const chunk = 500;  // keeps the temporary heap copy small
      for (let s = 0; s < n; s += chunk) index.add(ids.subarray(s, Math.min(n, s + chunk)), data.subarray(s * dim, Math.min(n, s + chunk) * dim));
    };
    const exact = new sb.ExactIndex({ dim });
    addAll(exact);
    const truth = { 5: queries.map((q) => exact.search(q, 5).ids), 10: queries.map((q) => exact.search(q, 10).ids) };
    const timeQueries = (index, k) => {
      const start = performance.now();
      for (const q of queries) index.search(q, k);
      return (performance.now() - start) / queryCount;
    };
    const exactTimes = { 5: [], 10: [] };
    const measured = [];
    for (const [g, setting] of grids.entries()) {
      report.progress((g + 1) / grids.length, `${distribution} ${setting.method} ${setting.label}`);
      const buildStart = performance.now();
      const index = setting.make();
      addAll(index);
      index.search(queries[0], 5);  // lazy structures (PCA tree) are built by the first search
      const buildSeconds = (performance.now() - buildStart) / 1000;
      const row = { method: setting.method, label: setting.label, buildSeconds };
      for (const k of [5, 10]) {
        const before = index.stats().innerProducts;
        let hits = 0;
        const results = queries.map((q) => index.search(q, k).ids);
        row[`ip${k}`] = (index.stats().innerProducts - before) / (queryCount * n);
        results.forEach((found, i) => {
          const set = new Set(truth[k][i]);
          hits += Array.from(found).filter((id) => set.has(id)).length;
        });
        row[`precision${k}`] = hits / (k * queryCount);
        const exactPasses = [];
        const methodPasses = [];
        for (let repeat = 0; repeat < 2; repeat++) {
          exactPasses.push(timeQueries(exact, k));
          methodPasses.push(timeQueries(index, k));
        }
        exactTimes[k].push(...exactPasses);
        row[`ms${k}`] = Math.min(...methodPasses);
        row[`speedup${k}`] = Math.min(...exactPasses) / row[`ms${k}`];
      }
      index.dispose();
      measured.push(row);
    }
    exact.dispose();
    const exactMs = { 5: median(exactTimes[5]), 10: median(exactTimes[10]) };
    allRows[distribution] = { exactMs, exactTimes, rows: measured };
    report.table(`${distribution === 'gaussian' ? 'Gaussian N(0,1)' : 'Uniform [0,1)'} data, ${n} x ${dim} (Figures ${distribution === 'gaussian' ? 2 : 3}): ` +
      `exhaustive scan ${exactMs[5].toFixed(2)} ms/query (top-5), ${exactMs[10].toFixed(2)} (top-10), median of ${exactTimes[5].length} timings`,
    ['method', 'setting', 'build s', 'speedup@5', 'precision@5', 'inner products@5', 'speedup@10', 'precision@10', 'inner products@10'],
    measured.map((r) => [r.method, r.label, r.buildSeconds, r.speedup5, r.precision5, r.ip5, r.speedup10, r.precision10, r.ip10]));
    for (const method of [...new Set(measured.map((r) => r.method))]) {
      const rows = measured.filter((r) => r.method === method);
      const best = (threshold, k, withCeiling = false) => {
        const ok = rows.filter((r) => r[`precision${k}`] >= threshold);
        if (ok.length === 0) return withCeiling ? ['—', '—', '—'] : ['—', '—'];
        const top = ok.reduce((a, b) => (b[`speedup${k}`] > a[`speedup${k}`] ? b : a));
        // The work ceiling: the speedup if time were proportional to the inner products computed.
        return withCeiling ? [top[`speedup${k}`], top.label, 1 / top[`ip${k}`]] : [top[`speedup${k}`], top.label];
      };
      summary.push([distribution, method, ...best(0.9, 5, true), ...best(0.5, 5), ...best(0.9, 10)]);
    }
  }
  report.table('Best online speedup reaching a precision floor (over each method\'s grid)',
    ['data', 'method', 'speedup @ p@5>=0.9', 'setting', '1 / inner-product ratio there', 'speedup @ p@5>=0.5', 'setting', 'speedup @ p@10>=0.9', 'setting'], summary);
  const target = summary.find((r) => r[0] === 'gaussian' && r[1] === 'BoundedME');
  if (target) report.note(`Target (issue 3): BoundedME >= 5x online speedup at precision@5 >= 0.9 on 10^4 x 10^4 Gaussian. ` +
    `This run (${n} x ${dim}): ${typeof target[2] === 'number' ? `${target[2].toFixed(2)}x (${target[3]})` : 'precision 0.9 not reached'} -> ` +
    `${typeof target[2] === 'number' && target[2] >= 5 ? 'met' : 'NOT met'}${full ? '' : ' (scaled setting; run --full for the target size)'}.`);
  report.note('Liu et al. states no numbers for Figures 2-3 in its text; it reports BoundedME "5-10x faster than state-of-the-art MIPS ' +
    'algorithms" and that the baselines\' precision drops quickly as the speedup grows while BoundedME keeps high precision.');
  report.data('figures23', { n, dim, queryCount, results: allRows });

  if (args.includes('--no-figure1')) return;
  // ---- Figure 1: the (epsilon, delta) guarantee on MAB-BP Bernoulli lists ----
  // Every call copies the K x N lists into the wasm heap (70 calls per dataset), which bounds the size.
  const K = full ? 2000 : 1000;
  const N = full ? 10000 : 5000;
  const epsilons = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
  const deltas = [0.01, 0.05, 0.1, 0.2, 0.3];
  const runs = 20;
  const sub = { shuffled: new Map(), literal: new Map() };
  const pulls = new Map();
  const key = (e, d) => `${e}/${d}`;
  for (let run = 0; run < runs; run++) {
    report.progress((run + 1) / runs, 'Figure 1 (MAB-BP)');
    const random = seededRandom(1000 + run);
    // Arm a: mean r_a uniform in [0, 1]; rewards 1 with probability r_a. The list's own mean is the true mean.
    const shuffled = new Float64Array(K * N);
    const sorted = new Float64Array(K * N);
    const means = new Float64Array(K);
    for (let a = 0; a < K; a++) {
      const r = random();
      let ones = 0;
      for (let j = 0; j < N; j++) {
        const one = random() < r ? 1 : 0;
        shuffled[a * N + j] = one;
        ones += one;
      }
      sorted.fill(1, a * N, a * N + ones);  // the paper's wording: "rewards with value 1 are returned before those with value 0"
      means[a] = ones / N;
    }
    const best = Math.max(...means);
    for (const epsilon of epsilons) {
      for (const delta of deltas) {
        const k = key(epsilon, delta);
        // Random draw order (what the guarantee assumes).
        const result = sb.boundedME(shuffled, K, N, { epsilon, delta, seed: run, order: 'shared' });
        (sub.shuffled.get(k) ?? sub.shuffled.set(k, []).get(k)).push(best - means[result.arms[0]]);
        (pulls.get(k) ?? pulls.set(k, []).get(k)).push(result.pulls / (K * N));
        // The wording taken literally: ones first, drawn in list order.
        const literal = sb.boundedME(sorted, K, N, { epsilon, delta, seed: run, order: 'given' });
        (sub.literal.get(k) ?? sub.literal.set(k, []).get(k)).push(best - means[literal.arms[0]]);
      }
    }
  }
  const percentile = (values, delta) => [...values].sort((a, b) => a - b)[Math.ceil((1 - delta) * values.length) - 1];
  const figure1 = epsilons.map((epsilon) => {
    const percentiles = (which) => deltas.map((d) => percentile(sub[which].get(key(epsilon, d)), d));
    const random = percentiles('shuffled');
    const literal = percentiles('literal');
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    const work = mean(deltas.map((d) => mean(pulls.get(key(epsilon, d)))));
    return [epsilon, mean(random), Math.max(...random), Math.max(...random) <= epsilon ? 'yes' : 'NO', work,
      mean(literal), Math.max(...literal), Math.max(...literal) <= epsilon ? 'yes' : 'NO', `< ${epsilon}`];
  });
  report.table(`Figure 1: BoundedME on MAB-BP, ${K} arms x ${N} Bernoulli rewards (paper: 10^4 x 10^5), ${runs} datasets per (epsilon, delta), ` +
    `delta in {${deltas.join(', ')}}; (1-delta)-percentile of the suboptimality over the ${runs} datasets, averaged over delta (paper's plot) and its maximum over delta`,
  ['epsilon', 'random order: mean', 'max', 'all <= epsilon', 'pulls / (K N)', 'ones first, in order: mean', 'max', 'all <= epsilon', 'paper (Figure 1)'],
  figure1);
  report.note('Figure 1 reading: the guarantee assumes each pull is a uniformly random draw without replacement ("random order" columns). ' +
    'Taken literally, "the rewards with value 1 are returned before those with value 0" makes every arm with more ones than the pulls so far ' +
    'look perfect, so early rounds drop arms among those ties arbitrarily (here: by index); the last rounds read almost whole lists, so ' +
    'the returned arm is still close to the best because 1000 uniform means lie close together near 1. The paper gives no numbers, only that ' +
    'every plotted suboptimality lies below its epsilon.');
  report.data('figure1', { K, N, runs, epsilons, deltas, rows: figure1 });
}
