// One policy's run of `bench horizon`, in a process of its own (node bench/lib/horizon-play.mjs
// '{"policy":"SubTS","arms":1000000,"dim":16,"checkpoints":[10,100]}' prints the result as JSON):
// a long run of one policy left the next one's adds slower in the same process (Sub-TS's setup at
// 10^6 read 0.43 s after 100 steps of Linear TS and 0.97 s after 50,000, with the wasm heap warm
// both times), so each policy of a pair starts from the same state, as in an application that
// runs one policy.
//
// First the policy runs 20 steps on a fresh wasm heap ("cold": its setup and longest call include
// the first touch of the memory it needs, which a page pays once), then the timed run on that warm
// heap.
import { fileURLToPath } from 'node:url';
import init from '../../dist/index.js';
import { seededRandom, standardNormal } from './seeded-random.mjs';

export const kChunk = 25000;

export function makeProblem(arms, dim, seed) {
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
export function play(sb, Policy, problem, dim, checkpoints) {
  const horizon = checkpoints.at(-1);
  const noise = seededRandom(99);
  const totals = [];
  let longest = 0;
  // Which call that was: an add (its chunk), a select or an update (its step).
  let longestCall = '';
  // Calls over 50 ms: on a shared machine the single longest call can be a pause of the host.
  let over50 = 0;
  let regret = 0;
  const timed = (call, what) => {
    const start = performance.now();
    const value = call();
    const spent = performance.now() - start;
    if (spent > longest) [longest, longestCall] = [spent, what];
    if (spent > 50) over50 += 1;
    return [value, spent];
  };
  const policy = new Policy({ dim, horizon, seed: 1 });
  let total = 0;
  const chunk = kChunk;
  for (let first = 0; first < problem.ids.length; first += chunk) {
    const [, spent] = timed(() => policy.addArms(problem.ids.subarray(first, first + chunk),
      problem.features.subarray(first * dim, (first + chunk) * dim)), `addArms ${first / chunk + 1}`);
    total += spent;
  }
  const setup = total;
  // The step at which the policy's index had every arm (checked every 100 steps, untimed).
  let built = policy.stats().index?.pending === 0 ? 0 : -1;
  let next = 0;
  for (let t = 1; t <= horizon; t++) {
    const [arm, selecting] = timed(() => policy.select(), `select ${t}`);
    const [, updating] = timed(() => policy.update(arm, problem.means[arm] + 0.3 * standardNormal(noise)), `update ${t}`);
    total += selecting + updating;
    regret += problem.best - problem.means[arm];
    if (built < 0 && t % 100 === 0 && policy.stats().index?.pending === 0) built = t;
    if (t === checkpoints[next]) {
      totals.push(total);
      next += 1;
    }
  }
  policy.dispose();
  return { totals, setup, longest, longestCall, over50, calls: Math.ceil(problem.ids.length / kChunk) + 2 * horizon, regret, built };
}


if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { policy, arms, dim, checkpoints } = JSON.parse(process.argv[2]);
  const sb = await init();
  const problem = makeProblem(arms, dim, 5);
  const cold = play(sb, sb[policy], problem, dim, [20]);
  const run = play(sb, sb[policy], problem, dim, checkpoints);
  process.stdout.write(JSON.stringify({ cold: { setup: cold.setup, longest: cold.longest, longestCall: cold.longestCall }, run }));
}
