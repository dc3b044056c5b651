// Learning where the arms live (issue 37 item 3): Linear TS and Sub-TS with their model in all d
// dimensions (`subspace: 'none'`) against the arms' principal subspace (the default above 64
// dimensions), on Fashion-MNIST's training images (Debian's dataset-fashion-mnist; 784 pixels scaled
// to unit norm, theta* the unit direction from the mean image to the mean sneaker) and on generated
// low-rank embeddings (d 128 to 1,536, rank 20 to 200, unit-norm rows with an isotropic tail of
// relative scale 0.3, theta* in the embedding's span). Noise 0.1, T = 4,000, K = 5,000 for the
// generated arms: regret per quarter as a fraction of uniform play's, total regret, ms a step
// (wasm in Node), the subspace's rank and the energy it keeps.
// Also as users over a catalogue (the catalogue's subspace, at its default modelDim 32, 48 and 256),
// and LinUCB and Linear Elim users in the catalogue's subspace at its default modelDim.
//   npm run bench -- subspace [--horizon T] [--images N] [--seeds S] [--skip-fashion] [--dims D,...] [--only part,...]
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import init from '../dist/index.js';
import { readImages } from './mips-real.mjs';
import { seededRandom, standardNormal } from './lib/seeded-random.mjs';
import { spacedNumberArg, spacedTextArg } from './lib/args.mjs';

const NOISE = 0.1;
const TAIL = 0.3;
const PROBLEMS = [[128, 20], [384, 50], [768, 100], [1536, 200]];

function unitRows(features, count, dim) {
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let j = 0; j < dim; j++) norm += features[i * dim + j] ** 2;
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) features[i * dim + j] /= norm;
  }
  return features;
}

function fashion(images) {
  const { count, dim, vectors } = readImages('train-images-idx3-ubyte.gz', images);
  // IDX label files: an 8-byte header (magic, count), then one byte per label.
  const labels = gunzipSync(readFileSync('/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz')).subarray(8, 8 + count);
  const features = unitRows(Float64Array.from(vectors), count, dim);
  const mean = new Float64Array(dim);
  const sneaker = new Float64Array(dim);
  let sneakers = 0;
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < dim; j++) {
      mean[j] += features[i * dim + j] / count;
      if (labels[i] === 7) sneaker[j] += features[i * dim + j];
    }
    if (labels[i] === 7) sneakers += 1;
  }
  const theta = Float64Array.from(mean, (m, j) => sneaker[j] / sneakers - m);
  return { name: `Fashion-MNIST ${count} x ${dim}`, count, dim, features, theta: unitRows(theta, 1, dim) };
}

function lowRank(dim, rank, count, seed) {
  const random = seededRandom(seed);
  const mixing = Float64Array.from({ length: dim * rank }, () => standardNormal(random));
  const features = new Float64Array(count * dim);
  const z = new Float64Array(rank);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < rank; k++) z[k] = standardNormal(random) / Math.sqrt(1 + k / 10);
    let norm = 0;
    for (let j = 0; j < dim; j++) {
      let value = 0;
      for (let k = 0; k < rank; k++) value += mixing[j * rank + k] * z[k];
      features[i * dim + j] = value;
      norm += value * value;
    }
    norm = Math.sqrt(norm);
    for (let j = 0; j < dim; j++) features[i * dim + j] = features[i * dim + j] / norm + TAIL * standardNormal(random) / Math.sqrt(dim);
  }
  unitRows(features, count, dim);
  const w = Float64Array.from({ length: rank }, () => standardNormal(random));
  const theta = new Float64Array(dim);
  for (let j = 0; j < dim; j++) for (let k = 0; k < rank; k++) theta[j] += mixing[j * rank + k] * w[k];
  return { name: `low-rank d ${dim} rank ${rank}, ${count} arms`, count, dim, features, theta: unitRows(theta, 1, dim) };
}

// catalogueOptions: the policy is a user over a Catalogue (an exact index for Linear TS, the default
// graph for Sub-TS) made with these options, whose subspace it learns in; undefined: its own arms.
function play(sb, Policy, options, problem, horizon, seed, catalogueOptions) {
  const { count, dim, features, theta } = problem;
  const means = new Float64Array(count);
  for (let i = 0; i < count; i++) for (let j = 0; j < dim; j++) means[i] += features[i * dim + j] * theta[j];
  const best = Math.max(...means);
  const uniform = best - means.reduce((a, b) => a + b, 0) / count;
  const ids = Uint32Array.from({ length: count }, (_, i) => i);
  let catalogue = null;
  if (catalogueOptions) {
    // An exact index for the users that do not search a graph (Sub-TS searches the default graph).
    catalogue = new sb.Catalogue({ dim, ...(Policy !== sb.SubTS ? { index: { type: 'exact' } } : {}), ...catalogueOptions });
    catalogue.add(ids, features);
  }
  const policy = catalogue ? new Policy({ catalogue, horizon, seed, ...options }) : new Policy({ dim, horizon, seed, ...options });
  try {
    if (!catalogue) policy.addArms(ids, features);
    const random = seededRandom(1000 + seed);
    const quarters = [0, 0, 0, 0];
    const started = performance.now();
    for (let t = 0; t < horizon; t++) {
      const arm = policy.select();
      quarters[Math.floor((4 * t) / horizon)] += best - means[arm];
      policy.update(arm, means[arm] + NOISE * standardNormal(random));
    }
    const ms = (performance.now() - started) / horizon;
    const stats = policy.stats();
    return { quarters: quarters.map((q) => q / ((uniform * horizon) / 4)), total: quarters.reduce((a, b) => a + b, 0), ms, stats };
  } finally {
    policy.dispose();
    catalogue?.dispose();
  }
}

export default async function subspace(args, report) {
  const config = { horizon: spacedNumberArg(args, 'horizon', 4000), images: spacedNumberArg(args, 'images', 60000), seeds: spacedNumberArg(args, 'seeds', 1), fashion: !args.includes('--skip-fashion'),
    // --dims 384,1536: only these generated problems; --only Linear,catalogue: contenders whose names contain a part.
    dims: spacedTextArg(args, 'dims', null)?.split(',').map(Number) ?? null,
    only: spacedTextArg(args, 'only', null)?.split(',') ?? null };
  const sb = await init();
  const problems = [];
  if (config.fashion) problems.push(() => fashion(config.images));
  for (const [dim, rank] of PROBLEMS) {
    if (!config.dims || config.dims.includes(dim)) problems.push(() => lowRank(dim, rank, 5000, 40 + dim));
  }
  const contenders = [
    ['Linear TS, full model', sb.LinTS, { subspace: 'none' }],
    ['Linear TS, arms\' subspace (default)', sb.LinTS, {}],
    ['Sub-TS, full model', sb.SubTS, { subspace: 'none' }],
    ['Sub-TS, arms\' subspace (default)', sb.SubTS, {}],
    // Users over a catalogue learn in the catalogue's subspace (one basis for every user; its
    // modelDim min(d, 32) by default, 48 and a policy's own 256 beside it).
    ['Linear TS, catalogue user (catalogue\'s subspace, modelDim 32)', sb.LinTS, {}, {}],
    ['Linear TS, catalogue user, catalogue modelDim 48', sb.LinTS, {}, { modelDim: 48 }],
    ['Linear TS, catalogue user, catalogue modelDim 256', sb.LinTS, {}, { modelDim: 256 }],
    ['Sub-TS, catalogue user (catalogue\'s subspace, modelDim 32)', sb.SubTS, {}, {}],
    // LinUCB and the elimination users scan the catalogue's projected rows B^T x in the same subspace.
    ['LinUCB, catalogue user (catalogue\'s subspace, modelDim 32)', sb.LinUCB, {}, {}],
    ['Linear Elim, catalogue user (catalogue\'s subspace, modelDim 32)', sb.LinearElim, {}, {}],
    ['Linear Elim, catalogue user, catalogue modelDim 64', sb.LinearElim, {}, { modelDim: 64 }],
    ['Linear Elim, catalogue user, catalogue modelDim 256', sb.LinearElim, {}, { modelDim: 256 }],
    ['Linear Elim, catalogue user, subspace none', sb.LinearElim, { subspace: 'none' }, {}],
  ].filter(([name]) => !config.only || config.only.some((part) => name.includes(part)));
  const rows = [];
  let done = 0;
  for (const make of problems) {
    const problem = make();
    for (const [name, Policy, options, catalogueOptions] of contenders) {
      for (let seed = 1; seed <= config.seeds; seed++) {
        const outcome = play(sb, Policy, options, problem, config.horizon, seed, catalogueOptions);
        const sub = outcome.stats.subspace;
        rows.push([problem.name, name, seed, ...outcome.quarters, outcome.total, outcome.ms, sub ? `${sub.rank} / ${sub.modelDim}` : '', sub ? sub.energy : '']);
        done += 1;
        report.progress(done / (problems.length * contenders.length * config.seeds), `${problem.name} ${name}`);
      }
    }
  }
  report.table(`Regret per quarter / uniform play's, T = ${config.horizon}, noise ${NOISE} (wasm in Node)`,
    ['arms', 'policy', 'seed', 'Q1', 'Q2', 'Q3', 'Q4', 'total regret', 'ms a step', 'subspace rank / modelDim', 'energy kept'], rows);
  report.data('config', config);
}
