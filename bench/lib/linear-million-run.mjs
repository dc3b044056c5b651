// One seed of `bench linear --million`: a linear bandit over K Gaussian (or unit-norm) arms, played
// by an exact policy and its sublinear counterpart with default options through the public API (select / update from
// JavaScript, as an application would). Shared by Node and the Chromium page, so both run the same
// code on the same numbers.
import { seededRandom, standardNormal } from './seeded-random.mjs';

// Arms and theta* depend on the seed only, so both policies face the same instance and the same
// noise sequence.
function makeProblem({ arms, dim, thetaNorm, distribution }, seed) {
  const random = seededRandom(1000003 * seed + 7);
  const features = new Float64Array(arms * dim);
  for (let i = 0; i < arms; i++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      const value = standardNormal(random);
      features[i * dim + j] = value;
      norm += value * value;
    }
    if (distribution === 'unit') for (let j = 0; j < dim; j++) features[i * dim + j] /= Math.sqrt(norm);
  }
  const theta = Float64Array.from({ length: dim }, () => standardNormal(random));
  const scale = thetaNorm / Math.hypot(...theta);
  for (let j = 0; j < dim; j++) theta[j] *= scale;
  const means = new Float64Array(arms);
  let best = -Infinity;
  for (let i = 0; i < arms; i++) {
    let mean = 0;
    for (let j = 0; j < dim; j++) mean += features[i * dim + j] * theta[j];
    means[i] = mean;
    if (mean > best) best = mean;
  }
  return { features, means, best, ids: Uint32Array.from({ length: arms }, (_, i) => i) };
}

export function playOneSeed(sb, config, seed, type, now = () => performance.now()) {
  const problem = makeProblem(config, seed);
  const noiseRandom = seededRandom(seed * 7919 + 1);
  const heapBefore = sb.memoryUsage().allocatedBytes;
  const Policy = { 'lin-ts': sb.LinTS, 'sub-ts': sb.SubTS, 'linear-elim': sb.LinearElim, 'sub-elim': sb.SubElim }[type];
  let start = now();
  // --storage: the sublinear policy's graph over int8 codes or floats; other index options stay its defaults.
  const index = config.storage && type === 'sub-ts' ? { index: { type: 'hnsw', storage: config.storage } } : {};
  const policy = new Policy({ dim: config.dim, horizon: config.horizon, seed, ...index });
  policy.addArms(problem.ids, problem.features);
  // The step time of a complete index: the graph is built at once here (as in a Worker), where by
  // default the steps build it a slice at a time (bench horizon measures that, in total).
  if (config.buildIndex) policy.buildIndex();
  const setup = now() - start;
  let regret = 0;
  let longest = 0;
  start = now();
  for (let t = 0; t < config.horizon; t++) {
    const stepStart = now();
    const arm = policy.select();
    policy.update(arm, problem.means[arm] + config.noise * standardNormal(noiseRandom));
    longest = Math.max(longest, now() - stepStart);
    regret += problem.best - problem.means[arm];
  }
  const steps = now() - start;
  const stats = policy.stats();
  const heap = sb.memoryUsage().allocatedBytes - heapBefore;
  policy.dispose();
  return { type, seed, regret, setupMs: setup, stepMs: steps / config.horizon, longestMs: longest, heapBytes: heap,
    approximation: stats.approximation ?? null, shortlist: stats.shortlist ?? null };
}
