// Matroid semi-bandits (Tzeng et al., arXiv:2405.17968, has no experiment; this one is ours): Bernoulli arms
// with means uniform in [0, 1] on each matroid class; CUCB, CTS and FasterCUCB side by side at a fixed horizon
// T as K grows. Reported: per-round select time after the initial pulls (the second half of the
// run), update time, cumulative regret, and ratios against the smallest K and against CUCB.
//   npm run bench -- matroid            K in {1e3, 1e4, 1e5}, T = 5000 (a few minutes)
//   npm run bench -- matroid --full     K in {1e3, 1e4, 1e5, 1e6}, T = 50000 (hours: CUCB and CTS are O(K) a round)
//   --kinds uniform,partition  --sizes 1e3,1e6  restrict the grid
import init from '../dist/index.js';
import { seededRandom } from './lib/seeded-random.mjs';
import { spacedTextArg } from './lib/args.mjs';

const RANK = 50;

function buildMatroid(sb, kind, K, random) {
  if (kind === 'uniform') return sb.Matroid.uniform(K, RANK);
  if (kind === 'partition') return sb.Matroid.partition(Uint32Array.from({ length: K }, (_, k) => k % RANK));
  if (kind === 'graphic') {
    // K random edges on RANK + 1 vertices (rank RANK when connected).
    const edges = new Uint32Array(2 * K);
    for (let k = 0; k < K; k++) {
      const u = Math.floor(random() * (RANK + 1));
      let v = Math.floor(random() * RANK);
      if (v >= u) v++;
      edges[2 * k] = u;
      edges[2 * k + 1] = v;
    }
    return sb.Matroid.graphic(RANK + 1, edges);
  }
  // Transversal: each arm adjacent to 2 of RANK right vertices.
  const edges = new Uint32Array(4 * K);
  for (let k = 0; k < K; k++) {
    edges[4 * k] = k;
    edges[4 * k + 1] = Math.floor(random() * RANK);
    edges[4 * k + 2] = k;
    edges[4 * k + 3] = Math.floor(random() * RANK);
  }
  return sb.Matroid.transversal(K, RANK, edges);
}

// Times are measured over rounds after `measureFrom` (default: the second half of the run); the
// regret over those rounds is returned as lateRegret.
function run(sb, Policy, matroid, means, optimum, horizon, rounds, seed, measureFrom = rounds / 2) {
  // epsilon is FasterCUCB's rounding; the other policies do not take it.
  const policy = new Policy({ matroid, horizon, a: 0, b: 1, seed, ...(Policy === sb.FasterCUCB ? { epsilon: 0.1 } : {}) });
  const random = seededRandom(seed * 7919 + 1);
  let regret = 0;
  let selectTime = 0;
  let updateTime = 0;
  let measured = 0;
  let lateRegret = 0;
  const selectTimes = [];
  for (let t = 1; t <= rounds; t++) {
    const start = performance.now();
    const basis = policy.select();
    const selected = performance.now();
    let value = 0;
    const rewards = new Float64Array(basis.length);
    for (let i = 0; i < basis.length; i++) {
      value += means[basis[i]];
      rewards[i] = random() < means[basis[i]] ? 1 : 0;
    }
    regret += optimum - value;
    const updating = performance.now();
    policy.update(basis, rewards);
    if (t > measureFrom) {
      lateRegret += optimum - value;
      selectTime += selected - start;
      selectTimes.push(selected - start);
      updateTime += performance.now() - updating;
      measured++;
    }
  }
  const stats = policy.stats();
  policy.dispose();
  selectTimes.sort((x, y) => x - y);
  const selectMedianMs = selectTimes[Math.floor(selectTimes.length / 2)];
  return { regret, lateRegret, selectMs: selectTime / measured, selectMedianMs, updateMs: updateTime / measured, stats };
}

export default async function matroidBenchmark(args, report) {
  const full = args.includes('--full');
  const sizes = spacedTextArg(args, 'sizes', null)?.split(',').map(Number) ?? (full ? [1e3, 1e4, 1e5, 1e6] : [1e3, 1e4, 1e5]);
  if (sizes.some((K) => !Number.isInteger(K) || K < RANK)) throw new Error(`--sizes must be integers >= ${RANK}`);
  const chosenKinds = spacedTextArg(args, 'kinds', null)?.split(',') ?? null;
  const horizon = full ? 50000 : 5000;
  // CTS samples K Beta variables a round; beyond this K only its select time is measured, on a short run.
  const ctsFullRunUpTo = full ? 1e5 : 1e4;
  const ctsTimingRounds = 200;
  const kinds = [
    ['uniform', sizes],
    ['partition', sizes],
    ['graphic', sizes],
    ['transversal', sizes],
  ].filter(([kind, ks]) => ks.length > 0 && (!chosenKinds || chosenKinds.includes(kind)));
  const sb = await init();
  report.note(`Bernoulli arms, means uniform in [0, 1] (seeded), rank D = ${RANK}; T = ${horizon}; FasterCUCB epsilon = 0.1; CUCB/FasterCUCB lambda_t = sqrt(1.5 log t). ` +
    'Times are wasm through the JS API (one select() and one update() call per round, Node), per round over the second half of the run (after the initial pulls, which take K/D rounds; means, so the FasterCUCB re-sorts at cell changes are included). ' +
    `CTS beyond K = ${ctsFullRunUpTo}: select time over ${ctsTimingRounds} rounds only (no regret).`);
  const results = [];
  let done = 0;
  const total = kinds.reduce((sum, [, ks]) => sum + ks.length, 0);
  for (const [kind, ks] of kinds) {
    const rows = [];
    for (const K of ks) {
      const random = seededRandom(K + kind.length);
      const means = Float64Array.from({ length: K }, () => random());
      const matroid = buildMatroid(sb, kind, K, random);
      const optimum = Array.from(matroid.maxWeightBasis(means)).reduce((s, a) => s + means[a], 0);
      const cucb = run(sb, sb.CUCB, matroid, means, optimum, horizon, horizon, 1);
      const faster = run(sb, sb.FasterCUCB, matroid, means, optimum, horizon, horizon, 1);
      const ctsFull = K <= ctsFullRunUpTo;
      const cts = run(sb, sb.CTS, matroid, means, optimum, horizon, ctsFull ? horizon : ctsTimingRounds, 1);
      matroid.dispose();
      const row = { kind, K, rank: RANK, cucb, faster, cts: { ...cts, regret: ctsFull ? cts.regret : null } };
      results.push(row);
      rows.push([K, cucb.selectMs * 1000, faster.selectMs * 1000, cts.selectMs * 1000, cucb.updateMs * 1000, faster.updateMs * 1000,
        cucb.regret, faster.regret, ctsFull ? cts.regret : '—', faster.regret / cucb.regret, cucb.selectMs / faster.selectMs,
        faster.stats.bins, faster.stats.cellsEntered, Math.round(faster.stats.armsScanned / horizon)]);
      report.progress(++done / total, `${kind} K=${K}`);
    }
    report.table(`${kind} matroid, D = ${RANK}, T = ${horizon}`,
      ['K', 'CUCB select µs', 'FasterCUCB select µs', 'CTS select µs', 'CUCB update µs', 'FasterCUCB update µs',
        'CUCB regret', 'FasterCUCB regret', 'CTS regret', 'regret Faster/CUCB', 'select speed-up vs CUCB', 'bins', 'cells entered', 'arms scanned / round'],
      rows);
  }
  const growth = [];
  for (const [kind, ks] of kinds) {
    const first = results.find((r) => r.kind === kind && r.K === ks[0]);
    const last = results.find((r) => r.kind === kind && r.K === ks[ks.length - 1]);
    const total = (r) => r.selectMs + r.updateMs;
    growth.push([kind, `${ks[0]} → ${ks[ks.length - 1]} (x${ks[ks.length - 1] / ks[0]})`,
      last.cucb.selectMs / first.cucb.selectMs, last.faster.selectMs / first.faster.selectMs,
      last.faster.selectMedianMs / first.faster.selectMedianMs, total(last.faster) / total(first.faster),
      last.cts.selectMs / first.cts.selectMs,
      Math.max(...results.filter((r) => r.kind === kind).map((r) => Math.abs(r.faster.regret / r.cucb.regret - 1)))]);
  }
  report.table('Growth of the per-round time with K (ratio of largest K to smallest K), and FasterCUCB regret vs CUCB',
    ['matroid', 'K', 'CUCB select x', 'FasterCUCB select x (mean)', 'FasterCUCB select x (median)', 'FasterCUCB select+update x', 'CTS select x', 'max |regret Faster/CUCB - 1|'], growth);
  report.data('results', results);

  // Steady state: the table above ends while the largest K is still in its initial pulls (K/D
  // rounds, each arm once), where CUCB's and FasterCUCB's choices coincide by construction. Here
  // the horizon is 20 K/D (at least T) and time and regret are measured after 10 K/D rounds.
  const steady = [];
  for (const kind of ['uniform', 'partition'].filter((k) => !chosenKinds || chosenKinds.includes(k))) {
    for (const K of sizes.filter((k) => k <= (full ? 1e6 : 1e5))) {
      const rounds = Math.max(horizon, 20 * Math.ceil(K / RANK));
      const from = 10 * Math.ceil(K / RANK);
      const random = seededRandom(K + kind.length);
      const means = Float64Array.from({ length: K }, () => random());
      const matroid = buildMatroid(sb, kind, K, random);
      const optimum = Array.from(matroid.maxWeightBasis(means)).reduce((sum, a) => sum + means[a], 0);
      const cucb = run(sb, sb.CUCB, matroid, means, optimum, rounds, rounds, 1, from);
      const faster = run(sb, sb.FasterCUCB, matroid, means, optimum, rounds, rounds, 1, from);
      matroid.dispose();
      steady.push([kind, K, rounds, from, cucb.selectMs * 1000, faster.selectMs * 1000, cucb.updateMs * 1000, faster.updateMs * 1000,
        cucb.lateRegret / (rounds - from), faster.lateRegret / (rounds - from), faster.lateRegret / cucb.lateRegret,
        (cucb.selectMs + cucb.updateMs) / (faster.selectMs + faster.updateMs)]);
      report.progress(1, `steady state ${kind} K=${K}`);
    }
  }
  report.table('Steady state: horizon 20 K/D, measured after 10 K/D rounds (past the initial pulls)',
    ['matroid', 'K', 'T', 'measured after', 'CUCB select µs', 'FasterCUCB select µs', 'CUCB update µs', 'FasterCUCB update µs',
      'CUCB regret / round', 'FasterCUCB regret / round', 'regret Faster/CUCB', 'time speed-up (select + update)'], steady);
  report.data('steadyState', steady);
}
