// Runs a preset or custom experiment: one simulate() per (run, seed) in Web Workers through the
// package's runInWorker, a small pool so both cores work, one AbortSignal to cancel everything.
import { runInWorker } from 'sublinear-bandits/worker';

export function planJobs({ runs, horizon, seeds, ratings }) {
  const recordEvery = Math.max(1, Math.floor(horizon / 100));
  return runs.flatMap((run, runIndex) => seeds.map((seed) => ({
    runIndex,
    seed,
    // The environment's seed follows the run's seed, so every policy faces the same instances.
    config: {
      environment: { ...run.environment, seed, ...(ratings && ['ratings', 'promotion'].includes(run.environment.type) ? { ratings } : {}) },
      policy: run.policy,
      horizon,
      seed,
      recordEvery,
    },
  })));
}

export async function runJobs(jobs, { signal, concurrency = 2, onProgress, onJobDone }) {
  const fractions = new Array(jobs.length).fill(0);
  const report = () => onProgress?.(fractions.reduce((sum, value) => sum + value, 0) / jobs.length);
  let next = 0;
  async function worker() {
    while (next < jobs.length && !signal.aborted) {
      const index = next++;
      const job = jobs[index];
      const result = await runInWorker(job.config, {
        signal,
        onProgress: (fraction) => {
          fractions[index] = fraction;
          report();
        },
      });
      fractions[index] = 1;
      report();
      onJobDone?.(job, result);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
}
