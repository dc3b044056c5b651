// Maximum inner product search indexes (API.md): one JS class per C++ index type, all sharing the
// MipsIndex interface of the core.
import { WasmObject, takeRestoredHandle } from './runtime.js';
import { optionsToJson, requireObject, requirePositiveInteger, toFloat32Array, toFloat64Array, toIdArray } from './convert.js';

const MAX_K = 0xffffffff;

export function defineMipsClasses(runtime) {
  const { Module } = runtime;

  class MipsIndex extends WasmObject {
    // Each subclass names its C++ type in `static type`.
    constructor(options) {
      super(runtime, takeRestoredHandle() ??
        runtime.call(() => Module.createMipsIndex(optionsToJson({ ...requireObject(options, 'options'), type: new.target.type }))));
    }

    // The whole state as bytes (docs/state-format.md); <Class>.fromBytes restores it.
    toBytes() {
      return runtime.toBytes(this);
    }

    static fromBytes(bytes) {
      return runtime.fromBytes(this, bytes, (address, length) => Module.restoreMipsIndex(address, length, this.type));
    }

    get dim() {
      return this._call((handle) => handle.dim());
    }

    get size() {
      return this._call((handle) => handle.size());
    }

    has(id) {
      return this._call((handle) => handle.has(id));
    }

    add(ids, vectors) {
      const handle = this._handle;
      const idArray = toIdArray(ids);
      const vectorArray = toFloat32Array(vectors, 'vectors');
      runtime.withHeap([idArray, vectorArray], (idAddress, vectorAddress) =>
        runtime.call(() => handle.add(idAddress, idArray.length, vectorAddress, vectorArray.length)));
    }

    remove(ids) {
      const handle = this._handle;
      const idArray = toIdArray(ids);
      runtime.withHeap([idArray], (idAddress) => runtime.call(() => handle.remove(idAddress, idArray.length)));
    }

    search(query, k, options = {}) {
      const handle = this._handle;
      requirePositiveInteger(k, 'k', MAX_K);
      const { shortlist = 0 } = requireObject(options, 'search options');
      if (shortlist !== 0) requirePositiveInteger(shortlist, 'shortlist', MAX_K);
      const queryArray = toFloat32Array(query, 'query');
      return runtime.withHeap([queryArray], (queryAddress) => runtime.call(() => {
        handle.search(queryAddress, queryArray.length, k, shortlist);
        // Copies: the views point into wasm memory that the next search overwrites.
        return { ids: handle.lastIds().slice(), scores: handle.lastScores().slice() };
      }));
    }

    stats() {
      return JSON.parse(this._call((handle) => handle.stats()));
    }
  }

  class ExactIndex extends MipsIndex {
    static type = 'exact';
  }

  // Graph, hashing and adaptive indexes (issue 3): the options are read and validated in C++.
  class HnswIndex extends MipsIndex {
    static type = 'hnsw';
  }

  class LshIndex extends MipsIndex {
    static type = 'lsh';
  }

  class AdaptiveIndex extends MipsIndex {
    static type = 'adaptive';
  }

  // Paper 001's methods: BoundedME (no preprocessing, (epsilon, delta) guarantee) and its baselines.
  class BoundedMEIndex extends MipsIndex {
    static type = 'bounded-me';
  }

  class GreedyMipsIndex extends MipsIndex {
    static type = 'greedy';
  }

  class PcaTreeIndex extends MipsIndex {
    static type = 'pca-tree';
  }

  // BoundedME on explicit reward lists (the MAB-BP problem): rewards[arm * N + j].
  function boundedME(rewards, K, N, options = {}) {
    requirePositiveInteger(K, 'K', MAX_K);
    requirePositiveInteger(N, 'N', MAX_K);
    const optionsJson = optionsToJson(requireObject(options, 'options'));
    const rewardArray = toFloat64Array(rewards, 'rewards');
    return runtime.withHeap([rewardArray], (address) => runtime.call(() => {
      const pulls = Module.boundedME(address, rewardArray.length, K, N, optionsJson);
      return { arms: Module.boundedMELastArms().slice(), pulls };
    }));
  }

  return { ExactIndex, HnswIndex, LshIndex, AdaptiveIndex, BoundedMEIndex, GreedyMipsIndex, PcaTreeIndex, boundedME };
}
