// Compiled with tsc --noEmit against dist/index.d.ts: the types must accept what API.md shows.
import init, { BanditError, type SearchResult, type SublinearBandits } from 'sublinear-bandits';

async function main(): Promise<void> {
  const sb: SublinearBandits = await init();
  const index = new sb.ExactIndex({ dim: 4, seed: 1 });
  index.add(new Uint32Array([1, 2]), new Float32Array(8));
  index.add([3], [1, 2, 3, 4]);
  const result: SearchResult = index.search(new Float64Array(4), 2, { shortlist: 10 });
  const first: number = result.ids[0];
  const score: number = result.scores[0];
  const work: number = index.stats().innerProducts;
  try {
    index.remove([99]);
  } catch (error) {
    if (error instanceof BanditError) {
      const code: 'UNKNOWN_ID' | string = error.code;
      console.log(code);
    }
  }
  index.dispose();
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
}

void main();

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
