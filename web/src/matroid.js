// Matroids and matroid semi-bandit policies (docs/policies.md, "Matroid semi-bandits"). A Matroid is built by
// its static factories; a policy copies the matroid it is given, so the matroid may be disposed
// (or reused for other policies) afterwards.
import { WasmObject, handleOf } from './runtime.js';
import { invalidArgument } from './errors.js';
import { MAX_UINT32, guardProxy, lengthOf, optionsToJson, readOptions, requireNumber, requirePositiveInteger, toFloat64Array, toIdArray } from './convert.js';

// Vertices of a graphic matroid and arms and right vertices of a transversal one get a few 32-bit
// words each in the core (union-find, adjacency offsets, matchings): 2^28 keeps each such array
// within 1 GiB of the 4 GiB wasm heap, and K + 1 within a 32-bit size_t.
const MAX_VERTICES = 2 ** 28;
const constructing = Symbol('Matroid.construct');

export function defineMatroidClasses(runtime) {
  const { Module, withHeap, call } = runtime;
  const count = (name, max) => (value) => requirePositiveInteger(value, name, max);

  class Matroid extends WasmObject {
    constructor(token, handle) {
      if (token !== constructing) throw invalidArgument('use Matroid.uniform, .partition, .graphic or .transversal');
      super(runtime, handle);
    }
  }

  // A factory: its handle is wrapped only after call() has checked that the core made one.
  const factory = (name, converters, create) => {
    const createHandle = runtime.func(converters, create, `Matroid.${name}()`);
    const made = (...args) => new Matroid(constructing, createHandle(...args));
    return made;
  };
  Object.assign(Matroid, {
    /** Every set of at most D of the K arms is independent. */
    uniform: factory('uniform', [count('K', MAX_UINT32), count('D', MAX_UINT32)], (K, D) => Module.createUniformMatroid(K, D)),
    /** At most one arm per group; groupOfArm[k] is arm k's group label. */
    partition: factory('partition', [(groups) => toIdArray(groups, 'groupOfArm')], (groups) =>
      withHeap([groups], (address) => Module.createPartitionMatroid(address, groups.length))),
    /** Arms are the edges [u0, v0, u1, v1, ...]; independent sets are forests. */
    graphic: factory('graphic', [count('numVertices', MAX_VERTICES), (edges) => toIdArray(edges, 'edges')], (numVertices, edges) =>
      withHeap([edges], (address) => Module.createGraphicMatroid(numVertices, address, edges.length))),
    /** Arms 0..K-1 matched to distinct right vertices; edges: [arm0, right0, arm1, right1, ...]. */
    transversal: factory('transversal', [count('K', MAX_VERTICES), count('numRight', MAX_VERTICES), (edges) => toIdArray(edges, 'edges')],
      (K, numRight, edges) => withHeap([edges], (address) => Module.createTransversalMatroid(K, numRight, address, edges.length))),
  });

  runtime.members(Matroid, {
    rank: { get: (handle) => handle.rank() },
    groundSetSize: { get: (handle) => handle.size() },
    kind: { get: (handle) => handle.kind() },
    isIndependent: {
      args: [(arms) => toIdArray(arms, 'arms')],
      call: (handle, arms) => withHeap([arms], (address) => handle.isIndependent(address, arms.length)),
    },
    maxWeightBasis: {
      args: [(weights) => toFloat64Array(weights, 'weights')],
      call: (handle, weights) => withHeap([weights], (address) => {
        handle.maxWeightBasis(address, weights.length);
        return handle.lastBasis().slice();
      }),
    },
  });

  const SemiBanditPolicy = runtime.family('SemiBanditPolicy', {
    create(type, options) {
      const { matroid, ...rest } = readOptions(options, 'options');
      if (!guardProxy(() => matroid instanceof Matroid, "option 'matroid'")) throw invalidArgument("option 'matroid' must be a Matroid of this module (sb.Matroid.uniform(...), ...)");
      const json = optionsToJson(rest);
      // The matroid's handle is taken last: a getter of the options may have disposed it.
      return call(() => Module.createSemiBanditPolicy(type, handleOf(matroid, Matroid, "option 'matroid'"), json));
    },
    restore: (address, length, array, type) => Module.restoreSemiBanditPolicy(address, length, array, type),
    table: {
      /** The basis to play: a Uint32Array of arm indices. */
      select: {
        call: (handle) => {
          handle.select();
          return handle.lastBasis().slice();
        },
      },
      /** rewards[i] is the reward of basis[i]; basis must be the last selected one (any order). */
      update: {
        args: [(basis) => toIdArray(basis, 'basis'), (rewards, before) => toFloat64Array(rewards, 'rewards', lengthOf(before[0], 'rewards', 'basis'))],
        call: (handle, basis, rewards) => withHeap([basis, rewards], (basisAddress, rewardAddress) =>
          handle.update(basisAddress, basis.length, rewardAddress, rewards.length)),
      },
      // forget(factor): every count weighs `factor` in [0, 1]; forget(0) starts over (API.md v3).
      forget: {
        args: [(factor) => requireNumber(factor, 'factor')],
        call: (handle, factor) => handle.forget(factor),
      },
      rank: { get: (handle) => handle.rank() },
      armCount: { get: (handle) => handle.armCount() },
      rounds: { get: (handle) => handle.rounds() },
    },
  });

  // CUCB, FasterCUCB, CTS: one class per registered semi-bandit policy (cpp/src/matroid/semi_bandit_factory.cpp).
  return { Matroid, ...runtime.registeredSubclasses(SemiBanditPolicy, 'semi-bandit-policy') };
}
