// runInWorker with an AbortController's signal: checked wherever the lib declares AbortController
// (the DOM lib, or Node's types).
import { runInWorker } from 'sublinear-bandits/worker';

async function inWorker(): Promise<void> {
  const controller = new AbortController();
  const result = await runInWorker({ environment: { type: 'linear', dim: 4, arms: 50 }, policy: { type: 'lin-ts' }, horizon: 100, seed: 1 },
    { onProgress: (fraction: number) => console.log(fraction), signal: controller.signal });
  const regret: Float64Array = result.cumulativeRegret;
  console.log(regret.length);
  controller.abort();
}

void inWorker();
