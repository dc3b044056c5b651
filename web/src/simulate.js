// simulate() (API.md, "Simulation"): a whole experiment runs inside wasm; JavaScript calls in once
// and gets typed arrays back. A ratings file travels as bytes on the wasm heap, never through
// JSON.stringify, and onProgress is called from C++ at most about 100 times.
import { invalidArgument } from './errors.js';
import { optionsToJson } from './convert.js';

export function defineSimulationClasses(runtime) {
  const { Module } = runtime;

  // The ratings file as UTF-8 bytes, and the environment without it.
  function splitRatings(environment) {
    if (environment === null || typeof environment !== 'object' || Array.isArray(environment) || !('ratings' in environment)) {
      return { environment, bytes: null };
    }
    const { ratings, ...rest } = environment;
    let bytes;
    if (typeof ratings === 'string') bytes = new TextEncoder().encode(ratings);
    else if (ratings instanceof Uint8Array) bytes = ratings;
    else if (ratings instanceof ArrayBuffer) bytes = new Uint8Array(ratings);
    else throw invalidArgument('environment.ratings must be the file contents: a string or a Uint8Array');
    return { environment: rest, bytes };
  }

  function copyRun(handle, i) {
    return {
      seed: handle.runSeed(i),
      t: handle.runT(i).slice(),
      cumulativeRegret: handle.runRegret(i).slice(),
      cumulativeReward: handle.runReward(i).slice(),
      seconds: handle.runSeconds(i),
      innerProducts: handle.runInnerProducts(i),
    };
  }

  function simulate(config) {
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      throw invalidArgument('simulate(config): config must be an object { environment, policy, horizon, seed | seeds, recordEvery, onProgress }');
    }
    const { onProgress, ...rest } = config;
    if (onProgress !== undefined && typeof onProgress !== 'function') throw invalidArgument('onProgress must be a function');
    const { environment, bytes } = splitRatings(rest.environment);
    const json = optionsToJson(environment === undefined ? rest : { ...rest, environment });
    let progressError = null;
    // An exception must not unwind through wasm frames: the callback reports it and C++ stops.
    const progress = onProgress === undefined ? undefined : (fraction) => {
      try {
        onProgress(fraction);
        return true;
      } catch (error) {
        progressError = error;
        return false;
      }
    };
    const handle = runtime.withHeap(bytes ? [bytes] : [], (address = 0) => {
      Module.pendingError = null;
      const made = Module.runSimulation(json, address, bytes ? bytes.length : 0, bytes !== null, progress);
      if (progressError !== null) {
        Module.pendingError = null;
        made?.delete();
        throw progressError;
      }
      runtime.check();
      return made;
    });
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
