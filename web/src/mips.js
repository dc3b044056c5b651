// Maximum inner product search indexes (docs/mips.md, "Maximum inner product search"): one JS class per C++
// index type, all sharing the MipsIndex interface of the core.
import { attributeBatch, attributeChangeMethods, featureChangeMethod, readAddAttributes, readFilter } from './attributes.js';
import { MAX_UINT32, isArray, optionsToJson, readOptions, requireId, requireInteger, requirePositiveInteger, toFloat32Array, toFloat64Array, toIdArray } from './convert.js';
import { BanditError, ErrorCode, invalidArgument } from './errors.js';

// A batch's limits (cpp/include/sublinear/mips/mips_index.hpp kMaxBatchQueries, kMaxBatchAnswers):
// refused before anything is copied to the wasm heap.
const MAX_BATCH_QUERIES = 2 ** 24;
const MAX_BATCH_ANSWERS = 2 ** 28;


const SEARCH_KEYS = ['shortlist'];
const NO_SEARCH_OPTIONS = Object.freeze(readSearchOptions({}));

// search(query, k, { shortlist, exclude, labels, allLabels, noLabels, where }): exclude is ids, the
// rest the attribute filter (attributes.js).
function readSearchOptions(options) {
  // Most searches pass no options: one answer for all of them, rather than an empty copy of none,
  // an empty filter and its JSON read at every call.
  if (options === undefined) return NO_SEARCH_OPTIONS;
  const { given, exclude, labels, conditions } = readFilter(options, 'search options', SEARCH_KEYS);
  const { shortlist = 0 } = given;
  if (shortlist !== 0) requirePositiveInteger(shortlist, 'shortlist');
  // What the calls read, without a spread of the filter (a slower copy).
  return { shortlist, exclude, labels, conditions };
}

// searchBatch's queries: one flat array of n x dim numbers (a Float32Array, say), or an array of n
// vectors of dim numbers each -> { values: Float32Array, rows: n, or undefined for a flat array
// (whose n the index's dim gives) }.
function readQueries(queries) {
  if (ArrayBuffer.isView(queries) || !isArray(queries, 'queries') || queries.length === 0 || typeof queries[0] === 'number') {
    return { values: toFloat32Array(queries, 'queries'), rows: undefined };
  }
  const rows = queries.length;
  if (rows > MAX_BATCH_QUERIES) throw invalidArgument(`a batch takes at most ${MAX_BATCH_QUERIES} queries, got ${rows}`);
  const vectors = [];
  for (let q = 0; q < rows; q++) {
    if (!Object.hasOwn(queries, q)) throw invalidArgument(`queries[${q}] is missing (a sparse array)`);
    const vector = toFloat32Array(queries[q], `queries[${q}]`);
    if (vector.length !== vectors[0]?.length && q > 0) {
      throw new BanditError(ErrorCode.DIMENSION_MISMATCH, `queries[${q}] has ${vector.length} entries, queries[0] ${vectors[0].length}`);
    }
    vectors.push(vector);
  }
  const values = new Float32Array(rows * vectors[0].length);
  vectors.forEach((vector, q) => values.set(vector, q * vector.length));
  return { values, rows };
}

export function defineMipsClasses(runtime) {
  const { Module, withHeap, attributesOnHeap, call } = runtime;

  const MipsIndex = runtime.family('MipsIndex', {
    create: runtime.createFrom(Module.createMipsIndex),
    restore: (address, length, array, type) => Module.restoreMipsIndex(address, length, array, type),
    table: {
      dim: { get: (handle) => handle.dim() },
      size: { get: (handle) => handle.size() },
      has: { args: [(id) => requireId(id)], call: (handle, id) => handle.has(id) },
      add: {
        args: [(ids) => toIdArray(ids), (vectors) => toFloat32Array(vectors, 'vectors'), readAddAttributes],
        call: (handle, ids, vectors, read) => {
          const attributes = attributeBatch(read, ids.length, ErrorCode.DIMENSION_MISMATCH);
          if (attributes.form === 0 && attributes.names === '') {
            return runtime.withIdsAndRows(ids, vectors, (idAddress, vectorAddress, array) =>
              handle.add(idAddress, ids.length, vectorAddress, vectors.length, array));
          }
          return attributesOnHeap(attributes, (a) => runtime.withIdsAndRows(ids, vectors, (idAddress, vectorAddress, array) =>
            handle.addWithAttributes(idAddress, ids.length, vectorAddress, vectors.length, array, a.form, a.labelAddress, a.labels.length,
              a.countAddress, a.names, a.valueAddress, a.values.length)));
        },
      },
      ...attributeChangeMethods(runtime, (ids) => toIdArray(ids)),
      ...featureChangeMethod(runtime, (ids) => toIdArray(ids), toFloat32Array),
      remove: {
        args: [(ids) => toIdArray(ids)],
        call: (handle, ids) => withHeap([ids], (address) => handle.remove(address, ids.length)),
      },
      // search() for each query of a batch, on all of the module's threads where the index's searches
      // only read it (mips.d.ts says which): query q's answer is ids and scores
      // [q * stride, q * stride + counts[q]), best first.
      searchBatch: {
        args: [readQueries, (k) => requirePositiveInteger(k, 'k'), readSearchOptions],
        call: (handle, { values, rows }, k, { shortlist, exclude, labels, conditions }) => {
          const dim = handle.dim();
          const count = rows ?? Math.floor(values.length / dim);
          if (rows !== undefined ? values.length !== rows * dim : values.length % dim !== 0) {
            const given = rows !== undefined ? `vectors of ${values.length / rows} entries` : `${values.length} entries`;
            throw new BanditError(ErrorCode.DIMENSION_MISMATCH, `queries must hold n x ${dim} numbers (the index's dim), got ${given}`);
          }
          if (count > MAX_BATCH_QUERIES) throw invalidArgument(`a batch takes at most ${MAX_BATCH_QUERIES} queries, got ${count}`);
          const stride = Math.min(k, handle.size());
          if (count * stride > MAX_BATCH_ANSWERS) {
            throw invalidArgument(`a batch answers at most ${MAX_BATCH_ANSWERS} ids (queries x min(k, size)), asked for ${count} x ${stride}`);
          }
          return withHeap([values, exclude, labels], (address, excludeAddress, labelAddress) => {
            const view = handle.searchBatch(address, values.length, count, k, shortlist, excludeAddress, exclude.length, labelAddress,
              labels.length, conditions) >>> 0;
            if (view === 0) return undefined;  // failed: call() throws the error C++ reported
            try {
              const buffer = runtime.heapBuffer();
              const [queryCount, answerStride, idsAddress, scoresAddress, countsAddress] = new Uint32Array(buffer, view, 5);
              const slots = queryCount * answerStride;
              return {
                ids: new Uint32Array(buffer, idsAddress, slots).slice(),
                scores: new Float32Array(buffer, scoresAddress, slots).slice(),
                counts: new Uint32Array(buffer, countsAddress, queryCount).slice(),
                stride: answerStride,
              };
            } finally {
              handle.releaseBatch();
            }
          });
        },
      },
      // Waiting items into the structure (HnswIndex's incremental build): all of them, or at most
      // maxItems; returns how many still wait.
      build: {
        args: [(maxItems = MAX_UINT32) => requireInteger(maxItems, 'maxItems', 0, MAX_UINT32)],
        call: (handle, maxItems) => handle.build(maxItems),
      },
      search: {
        args: [(query) => toFloat32Array(query, 'query'), (k) => requirePositiveInteger(k, 'k'), readSearchOptions],
        // The answer is read through the block search() returns (its length, the addresses of its
        // ids and scores): a search is one call into the module.
        call: (handle, query, k, { shortlist, exclude, labels, conditions }) => withHeap([query, exclude, labels],
          (address, excludeAddress, labelAddress) => {
            const view = handle.search(address, query.length, k, shortlist, excludeAddress, exclude.length, labelAddress, labels.length,
              conditions) >>> 0;
            if (view === 0) return undefined;  // failed: call() throws the error C++ reported
            // The block holds 32-bit words (count, ids' address, scores' address), all 4-byte aligned.
            const words = runtime.heapWords();
            const at = view >>> 2;
            const count = words[at];
            const ids = words[at + 1] >>> 2;
            const scores = words[at + 2] >>> 2;
            // Copies (one each): the memory is the module's, and the next search overwrites it.
            return { ids: words.slice(ids, ids + count), scores: runtime.heapFloats().slice(scores, scores + count) };
          }),
      },
    },
  });

  // ExactIndex, HnswIndex, ...: one class per registered index type (cpp/src/mips/index_factory.cpp).
  const classes = runtime.registeredSubclasses(MipsIndex, 'index');

  // BoundedME on explicit reward lists (the MAB-BP problem): rewards[arm * N + j].
  const boundedME = runtime.func([
    (rewards) => toFloat64Array(rewards, 'rewards'),
    (K) => requirePositiveInteger(K, 'K'),
    (N) => requirePositiveInteger(N, 'N'),
    (options) => optionsToJson(readOptions(options, 'options')),
  ], (rewards, K, N, optionsJson) => withHeap([rewards], (address) => {
    const pulls = Module.boundedME(address, rewards.length, K, N, optionsJson);
    return { arms: Module.boundedMELastArms().slice(), pulls };
  }), 'boundedME()');

  return { ...classes, boundedME };
}
