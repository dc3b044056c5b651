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
  console.log(first, score, work, sb.version, index.disposed, sb.randomChecksum(1, 10));
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
