// Maximum inner product search indexes (API.md): one JS class per C++ index type, all sharing the
// MipsIndex interface of the core.
import { WasmObject } from './runtime.js';
import { optionsToJson, requireObject, requirePositiveInteger, toFloat32Array, toIdArray } from './convert.js';

const MAX_K = 0xffffffff;

export function defineMipsClasses(runtime) {
  const { Module } = runtime;

  class MipsIndex extends WasmObject {
    constructor(type, options) {
      const spec = { ...requireObject(options, 'options'), type };
      const handle = runtime.call(() => Module.createMipsIndex(optionsToJson(spec)));
      super(runtime, handle);
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
    constructor(options) {
      super('exact', options);
    }
  }

  // Graph, hashing and adaptive indexes (issue 3): the options are read and validated in C++.
  class HnswIndex extends MipsIndex {
    constructor(options) {
      super('hnsw', options);
    }
  }

  class LshIndex extends MipsIndex {
    constructor(options) {
      super('lsh', options);
    }
  }

  class AdaptiveIndex extends MipsIndex {
    constructor(options) {
      super('adaptive', options);
    }
  }

  return { ExactIndex, HnswIndex, LshIndex, AdaptiveIndex };
}
