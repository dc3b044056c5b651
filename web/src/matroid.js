// Matroids and matroid semi-bandit policies (API.md, "Matroid semi-bandits"). A Matroid is built by
// its static factories; a policy copies the matroid it is given, so the matroid may be disposed
// (or reused for other policies) afterwards.
import { WasmObject, takeRestoredHandle } from './runtime.js';
import { invalidArgument } from './errors.js';
import { optionsToJson, requireObject, requirePositiveInteger, toFloat64Array, toIdArray } from './convert.js';

const MAX_UINT32 = 0xffffffff;
const constructing = Symbol('Matroid.construct');

export function defineMatroidClasses(runtime) {
  const { Module } = runtime;

  class Matroid extends WasmObject {
    constructor(token, handle) {
      if (token !== constructing) throw invalidArgument('use Matroid.uniform, .partition, .graphic or .transversal');
      super(runtime, handle);
    }

    /** Every set of at most D of the K arms is independent. */
    static uniform(K, D) {
      requirePositiveInteger(K, 'K', MAX_UINT32);
      requirePositiveInteger(D, 'D', MAX_UINT32);
      return new Matroid(constructing, runtime.call(() => Module.createUniformMatroid(K, D)));
    }

    /** At most one arm per group; groupOfArm[k] is arm k's group label. */
    static partition(groupOfArm) {
      const groups = toIdArray(groupOfArm, 'groupOfArm');
      return new Matroid(constructing, runtime.withHeap([groups], (address) => runtime.call(() => Module.createPartitionMatroid(address, groups.length))));
    }

    /** Arms are the edges [u0, v0, u1, v1, ...]; independent sets are forests. */
    static graphic(numVertices, edges) {
      requirePositiveInteger(numVertices, 'numVertices', MAX_UINT32);
      const pairs = toIdArray(edges, 'edges');
      return new Matroid(constructing, runtime.withHeap([pairs], (address) => runtime.call(() => Module.createGraphicMatroid(numVertices, address, pairs.length))));
    }

    /** Arms 0..K-1 matched to distinct right vertices; edges: [arm0, right0, arm1, right1, ...]. */
    static transversal(K, numRight, edges) {
      requirePositiveInteger(K, 'K', MAX_UINT32);
      requirePositiveInteger(numRight, 'numRight', MAX_UINT32);
      const pairs = toIdArray(edges, 'edges');
      return new Matroid(constructing, runtime.withHeap([pairs], (address) => runtime.call(() => Module.createTransversalMatroid(K, numRight, address, pairs.length))));
    }

    get rank() {
      return this._call((handle) => handle.rank());
    }

    get groundSetSize() {
      return this._call((handle) => handle.size());
    }

    get kind() {
      return this._call((handle) => handle.kind());
    }

    isIndependent(arms) {
      const handle = this._handle;
      const armArray = toIdArray(arms, 'arms');
      return runtime.withHeap([armArray], (address) => runtime.call(() => handle.isIndependent(address, armArray.length)));
    }

    maxWeightBasis(weights) {
      const handle = this._handle;
      const weightArray = toFloat64Array(weights, 'weights');
      return runtime.withHeap([weightArray], (address) => runtime.call(() => {
        handle.maxWeightBasis(address, weightArray.length);
        return handle.lastBasis().slice();
      }));
    }
  }

  class SemiBanditPolicy extends WasmObject {
    // Each subclass names its C++ type in `static type`.
    constructor(options) {
      super(runtime, takeRestoredHandle() ?? SemiBanditPolicy.#create(new.target.type, options));
    }

    static #create(type, options) {
      const { matroid, ...rest } = requireObject(options, 'options');
      if (!(matroid instanceof Matroid)) throw invalidArgument("option 'matroid' must be a Matroid of this module (sb.Matroid.uniform(...), ...)");
      const matroidHandle = matroid._handle;
      return runtime.call(() => Module.createSemiBanditPolicy(type, matroidHandle, optionsToJson(rest)));
    }

    // The saved state, the matroid included (docs/state-format.md); <Class>.fromBytes restores it.
    toBytes() {
      return runtime.toBytes(this);
    }

    static fromBytes(bytes) {
      return runtime.fromBytes(this, bytes, (address, length) => Module.restoreSemiBanditPolicy(address, length, this.type));
    }

    /** The basis to play: a Uint32Array of arm indices. */
    select() {
      return this._call((handle) => {
        handle.select();
        return handle.lastBasis().slice();
      });
    }

    /** rewards[i] is the reward of basis[i]; basis must be the last selected one (any order). */
    update(basis, rewards) {
      const handle = this._handle;
      const basisArray = toIdArray(basis, 'basis');
      const rewardArray = toFloat64Array(rewards, 'rewards');
      runtime.withHeap([basisArray, rewardArray], (basisAddress, rewardAddress) =>
        runtime.call(() => handle.update(basisAddress, basisArray.length, rewardAddress, rewardArray.length)));
    }

    get rank() {
      return this._call((handle) => handle.rank());
    }

    get armCount() {
      return this._call((handle) => handle.armCount());
    }

    get rounds() {
      return this._call((handle) => handle.rounds());
    }

    stats() {
      return JSON.parse(this._call((handle) => handle.stats()));
    }
  }

  class CUCB extends SemiBanditPolicy {
    static type = 'cucb';
  }

  class FasterCUCB extends SemiBanditPolicy {
    static type = 'faster-cucb';
  }

  class CTS extends SemiBanditPolicy {
    static type = 'cts';
  }

  return { Matroid, CUCB, FasterCUCB, CTS };
}
