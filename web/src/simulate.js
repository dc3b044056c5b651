// simulate() (docs/papers.md, "Simulations"): a whole experiment runs inside wasm; JavaScript calls in once
// and gets typed arrays back. A ratings file travels as bytes on the wasm heap, never through
// JSON.stringify, and onProgress is called from C++ at most about 100 times.
import { invalidArgument } from './errors.js';
import { isArray, optionsToJson, readOptions, toBytes } from './convert.js';
import { refuseExtraArguments } from './runtime.js';

const NO_BYTES = new Uint8Array(0);

// config -> [json without onProgress and the ratings, ratings bytes or null, onProgress or undefined].
// Also run by runInWorker, so that a bad config is refused before a worker starts.
export function readConfig(config) {
  if (config === null || typeof config !== 'object' || isArray(config, 'config')) {
    throw invalidArgument('simulate(config): config must be an object { environment, policy, horizon, seed | seeds, recordEvery, onProgress }');
  }
  const { onProgress, ...rest } = readOptions(config, 'config');
  if (onProgress !== undefined && typeof onProgress !== 'function') throw invalidArgument('onProgress must be a function');
  let bytes = null;
  const environment = rest.environment;
  if (environment !== null && typeof environment === 'object' && !isArray(environment, 'config.environment') && Object.hasOwn(environment, 'ratings')) {
    const { ratings, ...others } = environment;
    bytes = typeof ratings === 'string' ? new TextEncoder().encode(ratings) : toBytes(ratings, 'environment.ratings');
    rest.environment = others;
  }
  return [optionsToJson(rest), bytes, onProgress];
}

export function defineSimulationClasses(runtime) {
  const { Module } = runtime;

  // Many users (environment.users > 1) add `users`; one user's result has exactly the old keys.
  function copyUsers(handle, i) {
    const json = handle.runUsers(i);
    if (json === '') return undefined;
    const { count, regret, memory } = JSON.parse(json);
    return {
      count,
      regret: { median: Float64Array.from(regret.median), q1: Float64Array.from(regret.q1), q3: Float64Array.from(regret.q3) },
      memory,
    };
  }

  function copyRun(handle, i) {
    const run = {
      seed: handle.runSeed(i),
      t: handle.runT(i).slice(),
      cumulativeRegret: handle.runRegret(i).slice(),
      cumulativeReward: handle.runReward(i).slice(),
      seconds: handle.runSeconds(i),
      innerProducts: handle.runInnerProducts(i),
    };
    const users = copyUsers(handle, i);
    if (users !== undefined) run.users = users;
    return run;
  }

  function simulate(config, ...extra) {
    refuseExtraArguments('simulate()', [config, ...extra], 1);
    const [json, bytes, onProgress] = readConfig(config);
    // While it runs, onProgress may not call into the module (runtime.callWithCallback).
    const handle = runtime.callWithCallback('simulate()', onProgress, (progress) =>
      runtime.withHeap([bytes ?? NO_BYTES], (address) =>
        Module.runSimulation(json, address, bytes?.length ?? 0, bytes !== null, progress)));
    try {
      if (!handle.multipleSeeds()) return copyRun(handle, 0);
      const runs = [];
      for (let i = 0; i < handle.runCount(); i++) runs.push(copyRun(handle, i));
      return {
        runs,
        t: runs[0].t.slice(),
        mean: { cumulativeRegret: handle.meanRegret().slice(), cumulativeReward: handle.meanReward().slice() },
        std: { cumulativeRegret: handle.stdRegret().slice(), cumulativeReward: handle.stdReward().slice() },
      };
    } finally {
      handle.delete();
    }
  }

  return { simulate };
}
