// Compiled with tsc --noEmit against dist/index.d.ts: the types must accept what the README and the guides of docs/ show,
// with no lib but ES2022's (no DOM, no Node types) as well as with them.
import { runInWorker } from 'sublinear-bandits/worker';
import init, { BanditError, type SavedStateInfo, type SearchResult, type SublinearBandits } from 'sublinear-bandits';

async function main(): Promise<void> {
  const sb: SublinearBandits = await init();
  const index = new sb.ExactIndex({ dim: 4, seed: 1 });
  index.add(new Uint32Array([1, 2]), new Float32Array(8));
  index.add([3], [1, 2, 3, 4]);
  const result: SearchResult = index.search(new Float64Array(4), 2, { shortlist: 10, noLabels: [2], where: { price: [0, 1] } });
  const first: number = result.ids[0];
  const score: number = result.scores[0];
  const work: number = index.stats().innerProducts;
  const saved: Uint8Array = index.toBytes();
  const copy: InstanceType<typeof sb.ExactIndex> = sb.ExactIndex.fromBytes(saved);
  copy.dispose();
  const info: SavedStateInfo = sb.inspectState(saved);
  const described: [string, number, number | undefined, string | undefined] = [info.class, info.formatVersion, info.sizes.items, info.catalogueIdentity];
  try {
    index.remove([99]);
  } catch (error) {
    if (error instanceof BanditError) {
      const code: 'UNKNOWN_ID' | string = error.code;
      console.log(code);
    }
  }
  index.dispose();
  const bme = new sb.BoundedMEIndex({ dim: 4, epsilon: 0.2, delta: 0.1, seed: 1 });
  bme.add([1], [1, 2, 3, 4]);
  const bound: number = bme.stats().suboptimalityBound;
  const greedy = new sb.GreedyMipsIndex({ dim: 4, budgetFraction: 0.5 });
  const tree = new sb.PcaTreeIndex({ dim: 4, depth: 3 });
  const solved = sb.boundedME(new Float64Array(6), 2, 3, { epsilon: 0.1, delta: 0.1, k: 1, order: 'independent' });
  const best: number = solved.arms[0] + solved.pulls + bound;
  [bme, greedy, tree].forEach((i) => i.dispose());
  console.log(best);
  const policy = new sb.PC2UCB({ dim: 11, k: 100, lambda: 1, alpha: 1, c: 1, seed: 1 });
  const chosen: Uint32Array = policy.select(new Float64Array(2000 * 11), { k: 100 });
  policy.update(chosen, new Float64Array(chosen.length));
  const quota: Uint32Array = policy.select(new Float32Array(20 * 11), { k: 4, groups: new Uint32Array(20), perGroup: 4 });
  const ts = new sb.CombTS({ dim: 11, randomization: 'arm', v: 0.5, index: { type: 'exact', shortlist: 400 } });
  ts.setArms(new Float64Array(1000 * 11));
  const fixed: Uint32Array = ts.select({ k: 10 });
  const trial = sb.simulate({ environment: { type: 'clustered', angle: 1.2 }, policy: { type: 'comb-ts' }, horizon: 10, recordEvery: 1 });
  const total: number = trial.cumulativeReward[9] + ts.stats().certifiedRounds + quota.length + fixed.length;
  console.log(total, policy.theta()[0]);
  policy.dispose();
  ts.dispose();
  const combinatorial = [new sb.C2UCB({ dim: 4, k: 2, lambda: 1, alpha: 0.5 }), new sb.CombLinUCB({ dim: 4, priorVariance: 1, noiseVariance: 1, c: 1 }),
    new sb.CombLinTS({ dim: 4, noiseVariance: 0.5 }), new sb.GreedyCLS({ dim: 4, lambda: 2, seed: 1 })];
  for (const each of combinatorial) {
    const picked: Uint32Array = each.select(new Float64Array(3 * 4), { k: 2 });
    each.update(picked, new Float64Array(picked.length));
    each.dispose();
  }
  const promoted = sb.simulate({ environment: { type: 'promotion' }, policy: { type: 'c2ucb' }, horizon: 10 });
  const bases = sb.simulate({ environment: { type: 'matroid', K: 10, matroid: { kind: 'uniform', rank: 2 } }, policy: { type: 'cucb' }, horizon: 10 });
  const pulls = sb.simulate({ environment: { type: 'mab-bp', arms: 100, listLength: 100 }, policy: { type: 'bounded-me', epsilon: 0.1, delta: 0.1 }, horizon: 2 });
  const mips = sb.simulate({ environment: { type: 'mips', items: 1000, dim: 8, dataset: 'uniform' }, policy: { type: 'bounded-me', k: 5 }, horizon: 2 });
  console.log(promoted.cumulativeRegret[0], bases.t[0], pulls.innerProducts, mips.cumulativeReward[0]);
  const run = sb.simulate({
    environment: { type: 'linear', dim: 16, arms: 5000, noise: 1, seed: 7, change: { every: 20, add: 2, remove: 0 } },
    policy: { type: 'sub-ts', shortlist: 30, index: { type: 'hnsw' } },
    horizon: 20000, seed: 1, recordEvery: 100, onProgress: (fraction: number) => console.log(fraction),
  });
  const regret: Float64Array = run.cumulativeRegret;
  const steps: Uint32Array = run.t;
  const many = sb.simulate({ environment: { type: 'ratings', ratings: new Uint8Array(0) }, policy: { type: 'lin-ucb' }, horizon: 10, seeds: [1, 2] });
  const meanRegret: Float64Array = many.mean.cumulativeRegret;
  console.log(regret[0], steps[0], run.seconds.setup, many.runs[0].innerProducts, meanRegret[0], many.std.cumulativeRegret[0]);
  console.log(first, score, work, sb.version, index.disposed, sb.randomChecksum(1, 10));
  const graph = new sb.HnswIndex({ dim: 4, M: 16, efConstruction: 200, efSearch: 64, space: 'euclidean', seed: 1 });
  const hashed = new sb.LshIndex({ dim: 4, bits: 8, tables: 16 });
  const adaptive = new sb.AdaptiveIndex({ dim: 4, base: { type: 'lsh', bits: 4 }, copies: 3, epsilon: 0.01 });
  for (const each of [graph, hashed, adaptive]) {
    each.add([1], [1, 2, 3, 4]);
    const found: Uint32Array = each.search([1, 0, 0, 0], 1, { shortlist: 5 }).ids;
    console.log(found, each.stats().innerProducts);
    each.dispose();
  }
}

void main();

async function matroids(): Promise<void> {
  const sb: SublinearBandits = await init();
  const m = sb.Matroid.uniform(100, 5);
  const g = sb.Matroid.graphic(4, new Uint32Array([0, 1, 1, 2]));
  const rank: number = m.rank + g.rank + sb.Matroid.partition([0, 1, 1]).rank + sb.Matroid.transversal(2, 1, [0, 0, 1, 0]).rank;
  const best: Uint32Array = m.maxWeightBasis(new Float64Array(100));
  const ok: boolean = m.isIndependent([1, 2]);
  const p = new sb.FasterCUCB({ matroid: m, horizon: 1000, a: 0.1, b: 1, epsilon: 0.1, seed: 1 });
  const basis: Uint32Array = p.select();
  p.update(basis, new Float64Array(basis.length).fill(0.5));
  const q = new sb.CTS({ matroid: g });
  const r = new sb.CUCB({ matroid: m, seed: 2 });
  console.log(rank, best, ok, p.stats().rounds, q.rank, r.armCount);
}

void matroids();

async function linear(): Promise<void> {
  const sb: SublinearBandits = await init();
  const policy = new sb.SubTS({ dim: 16, horizon: 20000, delta: 0.05, shortlist: 30,
    index: { type: 'hnsw', M: 16, efConstruction: 100 }, seed: 3 });
  policy.addArms(new Uint32Array([1, 2]), new Float64Array(32));
  policy.removeArms([2]);
  const arm: number = policy.select();
  policy.update(arm, 0.5);
  const theta: Float64Array = policy.theta();
  const elim = new sb.SubElim({ dim: 4, index: { type: 'exact' }, eta: 0.05 });
  const ucb = new sb.LinUCB({ dim: 4, lambda: 1, delta: 0.1 });
  const others = [new sb.LinTS({ dim: 4, inflation: 0.5 }), new sb.LinearElim({ dim: 4 }), elim, ucb];
  console.log(theta.length, policy.armCount, policy.dim, policy.stats().innerProducts, others.length);
  for (const other of others) other.dispose();
  policy.dispose();
}

void linear();

async function catalogues(): Promise<void> {
  const sb: SublinearBandits = await init();
  const catalogue = new sb.Catalogue({ dim: 32, index: { type: 'hnsw' }, seed: 1 });
  catalogue.add(new Uint32Array([1, 2]), new Float64Array(64), { labels: [3, 7] });
  catalogue.add(new Uint32Array([3, 4]), new Float64Array(64), { labels: [[3, 8], new Uint32Array([7])], values: { price: [9.5, 20], stock: new Float64Array([0, 2]) } });
  catalogue.setLabels([3], [[1, 2]]);
  catalogue.setValues([3, 4], { stock: [1, 0] });
  catalogue.remove([2]);
  const waiting: number = catalogue.build();
  const identity: string = catalogue.stats().identity;
  console.log(waiting, identity, catalogue.size, catalogue.dim, catalogue.has(1));
  const user = new sb.SubTS({ catalogue, seed: 7 });
  const page: Uint32Array = user.selectSlate(2, { labels: [3], allLabels: [8], noLabels: [1], where: { price: [0, 50], stock: [1, Infinity] }, exclude: [4] });
  console.log(page);
  const baseline = new sb.LinTS({ catalogue, inflation: 0.5 });
  const ucb = new sb.LinUCB({ catalogue, lambda: 2 });
  // Every linear policy is a user over a catalogue (issue 55: the elimination policies' were refused).
  const eliminating = new sb.LinearElim({ catalogue });
  const subElim = new sb.SubElim({ catalogue, seed: 3 });
  const elimRestored: InstanceType<typeof sb.SubElim> = sb.SubElim.fromBytes(subElim.toBytes(), { catalogue });
  console.log(eliminating.select(), elimRestored.stats().updates);
  user.update(user.select(), 1);
  const bytes: Uint8Array = user.toBytes();
  const restored: InstanceType<typeof sb.SubTS> = sb.SubTS.fromBytes(bytes, { catalogue });
  const copy: InstanceType<typeof sb.Catalogue> = sb.Catalogue.fromBytes(catalogue.toBytes());
  // @ts-expect-error: over a catalogue, dim is the catalogue's
  new sb.LinUCB({ catalogue, dim: 32 });
  // The arms' subspace of Thompson users is the catalogue's (its modelDim and subspaceEnergy).
  const embeddings = new sb.Catalogue({ dim: 768, modelDim: 48, subspaceEnergy: 0.6 });
  const inSubspace = new sb.LinTS({ catalogue: embeddings, subspace: 'arms' });
  const basisBytes: number | undefined = embeddings.stats().subspace?.basisBytes;
  const version: number | undefined = inSubspace.stats().subspace?.version;
  console.log(basisBytes, version);
  // A population: each user's saved model (frozen) against every user learning LinTS from scratch.
  const population = sb.evaluate({
    catalogue,
    users: { states: new Map([[7, bytes]]) },
    baseline: { policy: { type: 'lin-ts' } },
    log: { users: [7], arms: [1], rewards: [1], propensities: [0.5] },
    interval: 'bootstrap',
    resamples: 200,
    seed: 1,
  });
  const difference: number | null | undefined = population.difference?.dr?.value;
  const horizon: number | undefined = population.baseline?.horizon;
  const people: number = population.users;
  console.log(difference, horizon, people, population.dr?.effectiveSampleSize);
  for (const each of [user, baseline, ucb, restored, copy, catalogue, inSubspace, embeddings]) each.dispose();
}

void catalogues();

// Without a signal, runInWorker needs nothing of the DOM's types (worker-consumer.ts passes one).
async function inWorker(): Promise<void> {
  const result = await runInWorker({ environment: { type: 'linear', dim: 4, arms: 50 }, policy: { type: 'lin-ts' }, horizon: 100, seed: 1 },
    { onProgress: (fraction: number) => console.log(fraction) });
  const regret: Float64Array = result.cumulativeRegret;
  console.log(regret.length);
}

void inWorker();

// The options init() takes, typed without the DOM: a URL-like object from locateFile, the bytes of a
// build, and the threads' start timeout.
async function loading(bytes: Uint8Array): Promise<void> {
  const fromBytes = await init({ wasmBinary: bytes, threads: 1, warmUp: false });
  const located = await init({ locateFile: (path: string) => ({ href: `https://example.org/assets/${path}` }), threadsTimeout: 5000 });
  const named = await init({ locateFile: (path: string, prefix: string) => prefix + path });
  const threads: number = fromBytes.threads + located.threads + named.threads;
  const reason: string = located.threadsReason;
  console.log(threads, reason);
}

void loading(new Uint8Array(8));
