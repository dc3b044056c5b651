// A trial driven from JavaScript through the package's classes, with performance.now() around every
// policy call. simulate() reports whole-run totals only; the timing charts need more: the total
// time at checkpoints of the horizon (when a sublinear policy has paid for its index) and the time
// per round after the initial pulls (a matroid policy's first K / rank rounds only visit unpulled
// arms, cheaply, and would hide how a round's cost grows with K). The times include the call from
// JavaScript into WebAssembly, as a page using the package pays it; the environment's own work
// (drawing rewards, computing regret) is not timed.
import { seededRandom, standardNormal } from '../../bench/lib/seeded-random.mjs';

// Checkpoints 1, 2, 5, 10, 20, 50, … below the horizon, and the horizon.
export function checkpointsUpTo(horizon) {
  const points = [];
  for (let power = 1; power < horizon; power *= 10) {
    for (const step of [1, 2, 5]) if (step * power < horizon) points.push(step * power);
  }
  return [...points, horizon];
}

function policyClass(sb, type) {
  const found = Object.values(sb).find((value) => typeof value === 'function' && value.type === type);
  if (!found) throw new Error(`no policy class of type '${type}'`);
  return found;
}

// Gaussian arms and parameter (N(0, I), as simulate()'s linear environment), Gaussian noise.
function linearProblem(sb, { dim = 16, arms, noise = 1 }, random) {
  const features = Float64Array.from({ length: arms * dim }, () => standardNormal(random));
  const theta = Float64Array.from({ length: dim }, () => standardNormal(random));
  const means = new Float64Array(arms);
  for (let i = 0; i < arms; i++) {
    for (let j = 0; j < dim; j++) means[i] += features[i * dim + j] * theta[j];
  }
  const best = means.reduce((a, b) => Math.max(a, b), -Infinity);
  return {
    create: (Policy, options) => {
      const policy = new Policy({ dim, ...options });
      policy.addArms(Uint32Array.from({ length: arms }, (_, i) => i), features);
      return policy;
    },
    // The chosen arm's reward, and the regret and reward to record.
    play: (arm) => {
      const reward = means[arm] + noise * standardNormal(random);
      return { feedback: reward, regret: best - means[arm], reward };
    },
    dispose: () => {},
  };
}

// The matroids of simulate()'s matroid environment, built the same way (partition: arm i in group
// i mod groups; graphic and transversal: random edges), with Bernoulli arms of uniform means.
function makeMatroid(sb, K, { kind, rank, groups, vertices, right, degree = 2 }, random) {
  const below = (n) => Math.floor(random() * n);
  if (kind === 'uniform') return sb.Matroid.uniform(K, rank);
  if (kind === 'partition') return sb.Matroid.partition(Uint32Array.from({ length: K }, (_, i) => i % groups));
  if (kind === 'graphic') {
    const edges = new Uint32Array(2 * K);
    for (let i = 0; i < K; i++) {
      edges[2 * i] = below(vertices);
      const other = below(vertices - 1);
      edges[2 * i + 1] = other >= edges[2 * i] ? other + 1 : other;
    }
    return sb.Matroid.graphic(vertices, edges);
  }
  if (kind === 'transversal') {
    const edges = new Uint32Array(2 * K * degree);
    for (let i = 0; i < K * degree; i++) {
      edges[2 * i] = Math.floor(i / degree);
      edges[2 * i + 1] = below(right);
    }
    return sb.Matroid.transversal(K, right, edges);
  }
  throw new Error(`unknown matroid kind '${kind}'`);
}

function matroidProblem(sb, { K, matroid: shape }, random) {
  const matroid = makeMatroid(sb, K, shape, random);
  const means = Float64Array.from({ length: K }, () => random());
  const value = (basis) => basis.reduce((sum, arm) => sum + means[arm], 0);
  const optimal = value(matroid.maxWeightBasis(means));
  return {
    create: (Policy, options) => new Policy({ matroid, ...options }),
    play: (basis) => {
      const feedback = Float64Array.from(basis, (arm) => (random() < means[arm] ? 1 : 0));
      return { feedback, regret: optimal - value(basis), reward: feedback.reduce((a, b) => a + b, 0) };
    },
    dispose: () => matroid.dispose(),
  };
}

/**
 * config: { environment: { type: 'linear' | 'matroid', ... }, policy: { type, ...options }, horizon,
 * seed, recordEvery, steadyRounds? }. Without steadyRounds the trial plays `horizon` rounds; with
 * { min, max, seconds } it stops once at least `min` rounds after the initial pulls were timed and
 * they took `seconds`, or `max` rounds were timed (the policy is still configured for `horizon`).
 * Returns simulate()'s result fields, plus `elapsed` (policy seconds, setup included, at each
 * checkpoint) and `steady` (select + update seconds over the rounds after the initial pulls).
 */
export function runTimedTrial(sb, config, onProgress = () => {}) {
  const { environment, policy: { type, ...options }, horizon, seed = 1, recordEvery = 1, steadyRounds } = config;
  const started = performance.now();
  const random = seededRandom(environment.seed ?? seed);
  const problem = environment.type === 'matroid' ? matroidProblem(sb, environment, random) : linearProblem(sb, environment, random);
  const seconds = { setup: 0, select: 0, update: 0, total: 0 };
  const timed = (part, call) => {
    const start = performance.now();
    const value = call();
    seconds[part] += (performance.now() - start) / 1000;
    return value;
  };
  const policy = timed('setup', () => problem.create(policyClass(sb, type), { horizon, seed, ...options }));
  const checkpoints = checkpointsUpTo(horizon);
  const record = { t: [], cumulativeRegret: [], cumulativeReward: [] };
  const elapsed = { t: [], seconds: [] };
  // Policies without initial pulls (the linear ones) have no initialPullsDone.
  let pulling = policy.stats().initialPullsDone === false;
  const steady = { from: pulling ? 0 : 1, rounds: 0, seconds: 0 };
  let regret = 0;
  let reward = 0;
  let reported = 0;
  const done = (t) => (steadyRounds
    ? steady.rounds >= steadyRounds.max || (steady.rounds >= steadyRounds.min && steady.seconds >= steadyRounds.seconds)
    : t >= horizon);
  let t = 0;
  try {
    while (!done(t)) {
      t += 1;
      const before = seconds.select + seconds.update;
      const choice = timed('select', () => policy.select());
      const outcome = problem.play(choice);
      timed('update', () => policy.update(choice, outcome.feedback));
      regret += outcome.regret;
      reward += outcome.reward;
      if (!pulling) {
        steady.rounds += 1;
        steady.seconds += seconds.select + seconds.update - before;
      } else if (policy.stats().initialPullsDone) {
        pulling = false;
        steady.from = t + 1;
      }
      if (t === checkpoints[elapsed.t.length]) {
        elapsed.t.push(t);
        elapsed.seconds.push(seconds.setup + seconds.select + seconds.update);
      }
      const last = done(t);
      if (t % recordEvery === 0 || last) {
        record.t.push(t);
        record.cumulativeRegret.push(regret);
        record.cumulativeReward.push(reward);
      }
      const fraction = steadyRounds ? (pulling ? 0 : steady.rounds / steadyRounds.max) : t / horizon;
      if (fraction - reported >= 0.01) onProgress(reported = fraction);
    }
    seconds.total = (performance.now() - started) / 1000;
    return {
      seed,
      t: Uint32Array.from(record.t),
      cumulativeRegret: Float64Array.from(record.cumulativeRegret),
      cumulativeReward: Float64Array.from(record.cumulativeReward),
      seconds,
      innerProducts: policy.stats().innerProducts ?? 0,
      elapsed,
      steady,
    };
  } finally {
    policy.dispose();
    problem.dispose();
  }
}
