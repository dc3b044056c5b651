// Linear bandit policies (API.md, "Linear bandits"): one JS class per policy type of the core,
// all driving the same LinearPolicy interface step by step.
import { MAX_MAGNITUDE, MAX_UINT32, requireId, requireInteger, requireNumber, toFeatureArray, toIdArray } from './convert.js';

export function defineLinearClasses(runtime) {
  const { Module, withHeap, call } = runtime;

  const LinearPolicy = runtime.family('LinearPolicy', {
    create(type, options) {
      const json = runtime.typedOptions(type, options);
      return call(() => Module.createLinearPolicy(json));
    },
    restore: (address, length, type) => Module.restoreLinearPolicy(address, length, type),
    table: {
      dim: { get: (handle) => handle.dim() },
      armCount: { get: (handle) => handle.armCount() },
      type: { get: (handle) => handle.type() },
      hasArm: { args: [(id) => requireId(id)], call: (handle, id) => handle.hasArm(id) },
      addArms: {
        args: [(ids) => toIdArray(ids), (features) => toFeatureArray(features, 'features')],
        call: (handle, ids, features) => withHeap([ids, features], (idAddress, featureAddress) =>
          handle.addArms(idAddress, ids.length, featureAddress, features.length)),
      },
      removeArms: {
        args: [(ids) => toIdArray(ids)],
        call: (handle, ids) => withHeap([ids], (address) => handle.removeArms(address, ids.length)),
      },
      select: { call: (handle) => handle.select() },
      update: {
        // The core refuses rewards beyond 1e15 too (they would overflow the ridge sums).
        args: [(arm) => requireId(arm, 'arm'), (reward) => requireNumber(reward, 'reward', MAX_MAGNITUDE)],
        call: (handle, arm, reward) => handle.update(arm, reward),
      },
      // Waiting arms into the policy's MIPS index now (Sub-TS's and Sub-Elim's HNSW graphs are built
      // a slice per step by default): all of them, or at most maxItems; returns how many still wait.
      buildIndex: {
        args: [(maxItems = MAX_UINT32) => requireInteger(maxItems, 'maxItems', 0, MAX_UINT32)],
        call: (handle, maxItems) => handle.buildIndex(maxItems),
      },
      // A copy: the view points into wasm memory that the next call overwrites.
      theta: { call: (handle) => handle.theta().slice() },
    },
  });

  return runtime.subclasses(LinearPolicy, {
    LinUCB: 'lin-ucb',
    LinTS: 'lin-ts',
    LinearElim: 'linear-elim',
    SubElim: 'sub-elim',
    SubTS: 'sub-ts',
  });
}
