// Compiled with tsc --noEmit against the package's types and tests/toys/toys.d.ts (tests/js/types.test.js):
// a module's own types, declared outside the package, are used as the package's are.
import init, { type Decision, type SearchResult, type SublinearBandits } from 'sublinear-bandits';
import type { ToyIndexType, ToyLinearPolicyType } from './toys.js';

async function main(): Promise<void> {
  const sb: SublinearBandits = await init();
  const index = new sb.ToyNormBoundIndex({ dim: 4, block: 8, seed: 1 });
  index.add(new Uint32Array([1, 2]), new Float32Array(8), { labels: [3, 4] });
  const found: SearchResult = index.search([1, 0, 0, 0], 1, { labels: [3] });
  const copy = sb.ToyNormBoundIndex.fromBytes(index.toBytes());
  const skipped: unknown = copy.stats().rowsSkipped;
  const indexType: ToyIndexType = 'toy-norm-bound';
  console.log(found.ids[0], skipped, sb.ToyNormBoundIndex.type === indexType);
  copy.dispose();
  index.dispose();

  const policy = new sb.ToyGreedy({ dim: 4, exploreEvery: 10, forgetting: 'none', seed: 2 });
  policy.addArms([1, 2], new Float64Array(8));
  const arm: number = policy.select();
  policy.update(arm, 1);
  const decision: Decision = policy.decide();
  policy.reward(decision.eventId, 0);
  const restored = sb.ToyGreedy.fromBytes(policy.toBytes());
  const policyType: ToyLinearPolicyType = 'toy-greedy';
  console.log(restored.theta()[0], sb.ToyGreedy.type === policyType);
  restored.dispose();
  policy.dispose();

  const catalogue = new sb.Catalogue({ dim: 4 });
  catalogue.add([7], [1, 0, 0, 0]);
  const user = new sb.ToyGreedy({ catalogue, exploreEvery: 5 });
  console.log(user.select());
  user.dispose();
  catalogue.dispose();
}

void main();
