// Runs a preset or custom experiment: one simulate() per (run, seed) in Web Workers through the
// package's runInWorker (or, for runs marked `timed`, one timed trial in the demo's own worker), a
// small pool so both cores work, one AbortSignal to cancel everything.
import { runInWorker } from 'sublinear-bandits/worker';

export function planJobs({ runs, horizon, seeds, ratings }) {
  const recordEvery = Math.max(1, Math.floor(horizon / 100));
  // A run may ask for fewer seeds (a timing run whose rounds already average the noise away).
  return runs.flatMap((run, runIndex) => seeds.slice(0, run.seeds ?? seeds.length).map((seed) => ({
    runIndex,
    seed,
    timed: Boolean(run.timed),
    // The environment's seed follows the run's seed, so every policy faces the same instances.
    config: {
      environment: { ...run.environment, seed, ...(ratings && ['ratings', 'promotion'].includes(run.environment.type) ? { ratings } : {}) },
      policy: run.policy,
      horizon,
      seed,
      recordEvery,
      ...(run.steadyRounds ? { steadyRounds: run.steadyRounds } : {}),
    },
  })));
}

// timed-trial.js's runTimedTrial in a worker; aborting the signal terminates the worker.
function runTimedInWorker(config, { signal, onProgress }) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./timing-worker.js', import.meta.url), { type: 'module' });
    const finish = (settle, value) => {
      worker.terminate();
      signal.removeEventListener('abort', onAbort);
      settle(value);
    };
    const onAbort = () => finish(reject, new DOMException('The trial was aborted', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = ({ data }) => {
      if (data.type === 'progress') onProgress(data.fraction);
      else if (data.type === 'result') finish(resolve, data.result);
      else finish(reject, new Error(data.message));
    };
    worker.onerror = (event) => finish(reject, new Error(`timing worker failed: ${event.message ?? 'unknown error'}`));
    worker.postMessage(config);
  });
}

export async function runJobs(jobs, { signal, concurrency = 2, onProgress, onJobDone }) {
  const fractions = new Array(jobs.length).fill(0);
  const report = () => onProgress?.(fractions.reduce((sum, value) => sum + value, 0) / jobs.length);
  let next = 0;
  async function worker() {
    while (next < jobs.length && !signal.aborted) {
      const index = next++;
      const job = jobs[index];
      const result = await (job.timed ? runTimedInWorker : runInWorker)(job.config, {
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
