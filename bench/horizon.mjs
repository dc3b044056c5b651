// Total time against the horizon (issue 15): a sublinear policy pays for its index before its fast
// steps pay back, so what a user sees is setup plus steps up to the horizon they run. For each pair
// (Linear TS / Sub-TS, Linear Elim / Sub-Elim) with default options: the total time (addArms
// included) at each checkpoint horizon, the ratio sublinear / baseline there, the longest single
// call, and the regret at the end.
//
//   npm run bench -- horizon                 K = 10^5 for the TS pair, 10^4 for the elimination pair
//   options: --arms K (TS pair), --elim-arms K, --dim d, --horizon T (the last checkpoint)
import init from '../dist/index.js';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';

function option(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
}

function makeProblem(arms, dim, seed) {
  const random = seededRandom(seed);
  const features = Float64Array.from({ length: arms * dim }, () => standardNormal(random));
  const theta = Float64Array.from({ length: dim }, () => standardNormal(random));
  const norm = Math.hypot(...theta);
  const means = new Float64Array(arms);
  let best = -Infinity;
  for (let i = 0; i < arms; i++) {
    let mean = 0;
    for (let j = 0; j < dim; j++) mean += (features[i * dim + j] * theta[j]) / norm;
    means[i] = mean;
    best = Math.max(best, mean);
  }
  return { features, means, best, ids: Uint32Array.from({ length: arms }, (_, i) => i) };
}

// Total milliseconds at each checkpoint, the longest call and the regret over the horizon.
function play(sb, Policy, problem, dim, checkpoints) {
  const horizon = checkpoints.at(-1);
  const noise = seededRandom(99);
  const totals = [];
  let longest = 0;
  let regret = 0;
  const timed = (call) => {
    const start = performance.now();
    const value = call();
    const spent = performance.now() - start;
    longest = Math.max(longest, spent);
    return [value, spent];
  };
  const policy = new Policy({ dim, horizon, seed: 1 });
  let [, total] = timed(() => policy.addArms(problem.ids, problem.features));
  let next = 0;
  for (let t = 1; t <= horizon; t++) {
    const [arm, selecting] = timed(() => policy.select());
    const [, updating] = timed(() => policy.update(arm, problem.means[arm] + 0.3 * standardNormal(noise)));
    total += selecting + updating;
    regret += problem.best - problem.means[arm];
    if (t === checkpoints[next]) {
      totals.push(total);
      next += 1;
    }
  }
  policy.dispose();
  return { totals, longest, regret };
}

export default async function horizon(args, report) {
  const dim = option(args, 'dim', 16);
  const last = option(args, 'horizon', 20000);
  const checkpoints = [10, 100, 1000, 3000, 10000, 20000, 50000].filter((t) => t < last).concat([last]);
  const pairs = [
    ['LinTS', 'SubTS', option(args, 'arms', 1e5)],
    ['LinearElim', 'SubElim', option(args, 'elim-arms', 1e4)],
  ];
  report.note(`Configuration: default options, Gaussian arms of dimension ${dim}, a unit theta, noise 0.3, seed 1; ` +
    `pairs ${pairs.map(([a, b, k]) => `${a} / ${b} at K = ${k}`).join(', ')}; checkpoints ${checkpoints.join(', ')}. ` +
    'Total = addArms + every select and update up to the checkpoint (wasm in Node, driven from JavaScript). ' +
    '"ratio" = sublinear total / baseline total: below 1 the sublinear policy has paid for its index.');
  const sb = await init();
  for (const [baseline, sublinear, arms] of pairs) {
    const problem = makeProblem(arms, dim, 5);
    report.progress(0, `${baseline} K=${arms}`);
    const a = play(sb, sb[baseline], problem, dim, checkpoints);
    report.progress(0.5, `${sublinear} K=${arms}`);
    const b = play(sb, sb[sublinear], problem, dim, checkpoints);
    report.progress(1, `${sublinear} K=${arms}`);
    report.table(`${baseline} against ${sublinear}, K = ${arms}: total seconds at each horizon`,
      ['horizon', `${baseline} s`, `${sublinear} s`, 'ratio'],
      checkpoints.map((t, i) => [t, a.totals[i] / 1000, b.totals[i] / 1000, b.totals[i] / a.totals[i]]));
    report.table(`${baseline} against ${sublinear}, K = ${arms}: longest call and regret at T = ${last}`,
      ['policy', 'longest call ms', 'regret'],
      [[baseline, a.longest, a.regret], [sublinear, b.longest, b.regret]]);
    report.data(`${baseline}-${sublinear}`, { arms, checkpoints, baseline: a, sublinear: b });
  }
}
